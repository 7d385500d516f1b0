// Unix-domain sockets by path, for the agent's owner-only API socket in its state directory: a
// path longer than sun_path allows (107 bytes on Linux; Node would silently cut it and bind
// elsewhere) is reached through /proc/self/fd/N/NAME, N being a descriptor of the directory held
// open while the address is in use. Binding happens under umask 0177, so the socket is 0600 from
// its first instant.
import { closeSync, constants, lstatSync, openSync, unlinkSync } from "node:fs";
import type { Server } from "node:net";
import { basename, dirname } from "node:path";

/** The longest path bound or dialled as it is; sun_path holds 108 bytes with the final NUL. */
const MAX_DIRECT_PATH_BYTES = 107;

/** SocketAddress is a path to bind or dial, valid until release(). */
export interface SocketAddress {
  path: string;
  /** release closes the directory descriptor a long path went through (idempotent). */
  release(): void;
}

/** socketAddress returns an address for path that fits in sun_path. */
export function socketAddress(path: string): SocketAddress {
  if (Buffer.byteLength(path) <= MAX_DIRECT_PATH_BYTES) return { path, release: () => undefined };
  const fd = openSync(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
  let open = true;
  return {
    path: `/proc/self/fd/${fd}/${basename(path)}`,
    release: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/**
 * removeStaleSocket removes what a killed agent left at path (its socket, or anything but a
 * directory) without following a symbolic link; only call it while holding the state lock.
 */
export function removeStaleSocket(path: string): void {
  const info = (() => {
    try {
      return lstatSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  })();
  if (info === undefined) return;
  if (info.isDirectory()) throw new Error(`${path} is a directory, where the agent's socket belongs`);
  unlinkSync(path);
}

/**
 * listenOnSocket binds server to the Unix socket at path (owner-only, mode 0600) and resolves
 * once it listens; the returned release() must run after the server has closed.
 */
export async function listenOnSocket(server: Server, path: string): Promise<() => void> {
  const address = socketAddress(path);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // Node binds a pipe synchronously within listen(), so the umask covers exactly that bind.
      const umask = process.umask(0o177);
      try {
        server.listen(address.path, () => {
          server.off("error", reject);
          resolve();
        });
      } finally {
        process.umask(umask);
      }
    });
  } catch (err) {
    address.release();
    throw err;
  }
  return address.release;
}
