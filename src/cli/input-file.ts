// Reading a -f argument, shared by `run`, `apply` and `probe`: a file, or standard input for "-".
// An unreadable file is a usage error worded as kubectl words it.
import { readFile } from "node:fs/promises";
import { UsageError } from "./args.js";

/**
 * readInputFile reads the text of one -f argument ("-" is standard input, read with readStdin).
 * A missing file reads `the path "F" does not exist` (kubectl's FilenameParam error).
 */
export async function readInputFile(file: string, readStdin: () => Promise<string>): Promise<string> {
  if (file === "-") return readStdin();
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT") throw new UsageError(`the path "${file}" does not exist`);
    if (code === "EISDIR") throw new UsageError(`the path "${file}" is a directory: give manifest files`);
    if (code === "EACCES") throw new UsageError(`open ${file}: permission denied`);
    throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
