// Reading -f arguments, shared by `run`, `apply`, `lint` and `probe`: a file, or standard input
// for "-". An unreadable file is a usage error worded as kubectl words it.
import { readFile } from "node:fs/promises";
import { decodePods } from "../api/decode.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { InvalidInputError } from "./probe-spec.js";

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

/** manifestFiles checks a manifest command's arguments: one or more -f files and nothing else. */
export function manifestFiles(filenames: readonly string[] | undefined, positionals: readonly string[]): readonly string[] {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ""}": give manifests with -f FILE`);
  if (filenames === undefined || filenames.length === 0) throw new UsageError("must specify -f FILE");
  return filenames;
}

/** Manifest is one decoded pod and the source it came from ("STDIN" for "-"), for messages. */
export interface Manifest {
  pod: Pod;
  source: string;
}

/**
 * readManifests reads and strictly decodes every file before anything else happens, so bad input
 * changes nothing; a file that does not decode throws InvalidInputError (`error validating "F"`).
 */
export async function readManifests(files: readonly string[], readStdin: () => Promise<string>): Promise<Manifest[]> {
  const manifests: Manifest[] = [];
  for (const file of files) {
    const source = file === "-" ? "STDIN" : file;
    const decoded = decodePods(await readInputFile(file, readStdin), source);
    if (!decoded.ok) throw new InvalidInputError(`error validating "${source}"`, decoded.errors);
    manifests.push(...decoded.value.map((pod) => ({ pod, source })));
  }
  return manifests;
}
