// Reading a file without trusting its size: at most limit + 1 bytes are ever read, so a huge
// (or growing, or endless, like /dev/zero) file costs no more memory than the limit. Files of a
// state directory are opened with O_NOFOLLOW, so a symbolic link planted there is never followed.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/** BoundedFile is a file's text, or the sign that it holds more than the limit. */
export type BoundedFile = { ok: true; text: string } | { ok: false; tooLarge: true };

/** ReadOptions choose how the file is opened. */
export interface ReadOptions {
  /** Refuse a symbolic link at the path instead of following it (O_NOFOLLOW). */
  noFollow?: boolean;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * openForReading opens path read-only; with noFollow a symbolic link rejects with an Error
 * (code ELOOP) that says so.
 */
export async function openForReading(path: string, options: ReadOptions = {}): Promise<FileHandle> {
  if (options.noFollow !== true) return open(path, "r");
  return open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ELOOP") throw err;
    throw Object.assign(new Error(`${path} is a symbolic link: refusing to follow it`), { code: "ELOOP" });
  });
}

/**
 * readFileBounded reads a UTF-8 file of at most limitBytes bytes. Filesystem errors (ENOENT,
 * EISDIR, EACCES, …) reject as readFile's do.
 */
export async function readFileBounded(path: string, limitBytes: number, options: ReadOptions = {}): Promise<BoundedFile> {
  const handle = await openForReading(path, options);
  try {
    return await readHandleBounded(handle, limitBytes);
  } finally {
    await handle.close();
  }
}

/** readHandleBounded reads an open file from its current position, at most limitBytes bytes. */
export async function readHandleBounded(handle: FileHandle, limitBytes: number): Promise<BoundedFile> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const room = limitBytes + 1 - size;
    const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, room));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    size += bytesRead;
    if (size > limitBytes) return { ok: false, tooLarge: true };
  }
  return { ok: true, text: Buffer.concat(chunks, size).toString("utf8") };
}

/**
 * readSmallFile is readFileBounded for files that must fit (a token, a certificate, a key): a
 * larger one rejects with an Error naming the file and the limit.
 */
export async function readSmallFile(path: string, limitBytes: number, options: ReadOptions = {}): Promise<string> {
  const file = await readFileBounded(path, limitBytes, options);
  if (!file.ok) throw new Error(`${path} is larger than ${limitBytes} bytes`);
  return file.text;
}
