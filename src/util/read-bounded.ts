// Reading a small file (a certificate, a key) with a size bound, so a wrong path to a huge file
// costs an error, not the process's memory.
import { open } from "node:fs/promises";

/** readFileBounded reads at most maxBytes of path; a larger file rejects with an Error naming it. */
export async function readFileBounded(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`);
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
