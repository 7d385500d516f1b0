// Reading a file without trusting its size: at most limit + 1 bytes are ever read, so a huge
// (or growing, or endless, like /dev/zero) file costs no more memory than the limit.
import { open } from "node:fs/promises";

/** BoundedFile is a file's text, or the sign that it holds more than the limit. */
export type BoundedFile = { ok: true; text: string } | { ok: false; tooLarge: true };

const CHUNK_BYTES = 64 * 1024;

/**
 * readFileBounded reads a UTF-8 file of at most limitBytes bytes. Filesystem errors (ENOENT,
 * EISDIR, EACCES, …) reject as readFile's do.
 */
export async function readFileBounded(path: string, limitBytes: number): Promise<BoundedFile> {
  const handle = await open(path, "r");
  try {
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
  } finally {
    await handle.close();
  }
}

/**
 * readSmallFile is readFileBounded for files that must fit (a token, a certificate, a key): a
 * larger one rejects with an Error naming the file and the limit.
 */
export async function readSmallFile(path: string, limitBytes: number): Promise<string> {
  const file = await readFileBounded(path, limitBytes);
  if (!file.ok) throw new Error(`${path} is larger than ${limitBytes} bytes`);
  return file.text;
}
