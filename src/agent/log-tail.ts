// Where `logs --tail N` starts reading, found from the end of a container's log files in bounded
// memory, as the kubelet's tail.FindTailLineStartIndex does for one file (pkg/util/tail): blocks
// are read backwards until N lines are found, so a tail of a 40 MB log reads a few KiB. Lines are
// file lines (CRI entries, as the kubelet counts them). The count goes on into the rotated files,
// newest first; a compressed one is counted by decompressing it as a stream (no seek in gzip).
import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { COMPRESS_SUFFIX } from "./rotated-logs.js";

/** TAIL_BLOCK_BYTES is how much is read at a time from the end (kubelet tail's blockSize). */
const TAIL_BLOCK_BYTES = 4096;
const NEWLINE = 0x0a;

/** LogStart is where reading starts: a file of the list, a byte offset in it, or lines to skip (compressed). */
export interface LogStart {
  file: number;
  offset: number;
  skipLines: number;
}

/**
 * tailInFile finds the offset of the n-th line from the end of a plain file, or says how many
 * lines the whole file has when it has fewer. A last line without "\\n" counts.
 */
async function tailInFile(path: string, n: number, opened?: FileHandle): Promise<{ offset: number } | { lines: number }> {
  const handle = opened ?? (await open(path, "r").catch(() => undefined));
  if (!handle) return { lines: 0 };
  try {
    const { size } = await handle.stat();
    if (n === 0) return { offset: size };
    const block = Buffer.alloc(TAIL_BLOCK_BYTES);
    let end = size;
    let found = 0;
    let first = true;
    while (end > 0) {
      const start = Math.max(0, end - TAIL_BLOCK_BYTES);
      const { bytesRead } = await handle.read(block, 0, end - start, start);
      for (let i = bytesRead - 1; i >= 0; i--) {
        if (block[i] !== NEWLINE) continue;
        // The file's own last "\n" ends the last line; it does not start one.
        if (first && start + i === size - 1) continue;
        if (++found === n) return { offset: start + i + 1 };
      }
      first = false;
      end = start;
    }
    return { lines: size > 0 ? found + 1 : 0 };
  } finally {
    if (!opened) await handle.close();
  }
}

/** gzipLines counts the lines of a compressed file by streaming it. */
async function gzipLines(path: string): Promise<number> {
  let lines = 0;
  let last = NEWLINE;
  try {
    for await (const chunk of createReadStream(path).pipe(createGunzip()) as AsyncIterable<Buffer>) {
      for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
      if (chunk.length > 0) last = chunk[chunk.length - 1]!;
    }
  } catch {
    return lines;
  }
  return last === NEWLINE ? lines : lines + 1;
}

/**
 * tailStart finds where the last `n` lines of the files (oldest first) begin; `live`, when given,
 * is the last file already open (it may have been renamed since).
 */
export async function tailStart(files: readonly string[], n: number, live?: FileHandle): Promise<LogStart> {
  let needed = n;
  for (let i = files.length - 1; i >= 0; i--) {
    const path = files[i]!;
    if (path.endsWith(COMPRESS_SUFFIX)) {
      const lines = await gzipLines(path);
      if (lines >= needed) return { file: i, offset: 0, skipLines: lines - needed };
      needed -= lines;
      continue;
    }
    const found = await tailInFile(path, needed, i === files.length - 1 ? live : undefined);
    if ("offset" in found) return { file: i, offset: found.offset, skipLines: 0 };
    needed -= found.lines;
  }
  return { file: 0, offset: 0, skipLines: 0 };
}

/**
 * logChunks reads a log file from a start: a byte offset of a plain file, or lines skipped of a
 * compressed one. Memory is one read chunk.
 */
export async function* logChunks(path: string, offset: number, skipLines: number): AsyncGenerator<Buffer> {
  const compressed = path.endsWith(COMPRESS_SUFFIX);
  let stream: Readable;
  try {
    const file = createReadStream(path, compressed ? {} : { start: offset });
    await new Promise<void>((resolve, reject) => {
      file.once("open", () => resolve());
      file.once("error", reject);
    });
    stream = compressed ? file.pipe(createGunzip()) : file;
  } catch {
    return; // gone meanwhile (removed by rotation): nothing to read
  }
  let skip = skipLines;
  try {
    for await (const raw of stream as AsyncIterable<Buffer>) {
      let chunk = raw;
      while (skip > 0 && chunk.length > 0) {
        const at = chunk.indexOf(NEWLINE);
        if (at < 0) {
          chunk = chunk.subarray(chunk.length);
          break;
        }
        chunk = chunk.subarray(at + 1);
        skip--;
      }
      if (chunk.length > 0) yield chunk;
    }
  } catch {
    // A truncated or corrupt rotated file ends where it can no longer be read.
  } finally {
    stream.destroy();
  }
}
