// Reading -f arguments, shared by `run`, `apply`, `lint` and `probe`: a file, or standard input
// for "-", never more than the API server's request limit (bounded-parse.ts). An unreadable
// file is a usage error worded as kubectl words it; an oversized one is invalid input (exit 2).
import { formatOfFile, MAX_INPUT_BYTES, NO_OBJECTS_MESSAGE, tooLargeMessage } from "../api/bounded-parse.js";
import { decodePods } from "../api/decode.js";
import type { Pod } from "../api/types.js";
import { readFileBounded } from "../util/read-bounded-file.js";
import { UsageError } from "./args.js";
import { InvalidInputError } from "./probe-spec.js";

function tooLarge(file: string): InvalidInputError {
  return new InvalidInputError(`error reading "${file === "-" ? "STDIN" : file}"`, [tooLargeMessage(MAX_INPUT_BYTES)]);
}

/**
 * readInputFile reads the text of one -f argument ("-" is standard input, read with readStdin).
 * A missing file reads `the path "F" does not exist` (kubectl's FilenameParam error); a file
 * over MAX_INPUT_BYTES is an InvalidInputError naming it, and is never read past the limit.
 */
export async function readInputFile(file: string, readStdin: () => Promise<string>): Promise<string> {
  if (file === "-") {
    const text = await readStdin();
    if (text.length > MAX_INPUT_BYTES || Buffer.byteLength(text, "utf8") > MAX_INPUT_BYTES) throw tooLarge(file);
    return text;
  }
  try {
    const read = await readFileBounded(file, MAX_INPUT_BYTES);
    if (!read.ok) throw tooLarge(file);
    return read.text;
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
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
 * changes nothing; a file that does not decode, or holds no object, throws InvalidInputError
 * (`error validating "F"`). `.json` files are strict JSON; anything else is a YAML stream.
 */
export async function readManifests(files: readonly string[], readStdin: () => Promise<string>): Promise<Manifest[]> {
  const manifests: Manifest[] = [];
  for (const file of files) {
    const source = file === "-" ? "STDIN" : file;
    const decoded = decodePods(await readInputFile(file, readStdin), source, formatOfFile(file));
    if (!decoded.ok) throw new InvalidInputError(`error validating "${source}"`, decoded.errors);
    if (decoded.value.length === 0) throw new InvalidInputError(`error validating "${source}"`, [NO_OBJECTS_MESSAGE]);
    manifests.push(...decoded.value.map((pod) => ({ pod, source })));
  }
  return manifests;
}
