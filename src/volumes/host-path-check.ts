// hostPath type checks as the kubelet runs them before mounting (pkg/volume/hostpath/host_path.go
// checkType / checkTypeInternal): the *OrCreate types create what is missing, the others must
// find a host object of that type; the error texts are the kubelet's.
import { lstat, mkdir, open, stat } from "node:fs/promises";

/** HostPathTypeError is a failed hostPath type check; its message is the kubelet's. */
export class HostPathTypeError extends Error {
  override readonly name = "HostPathTypeError";
}

async function kindOf(path: string): Promise<"dir" | "file" | "socket" | "char" | "block" | "other" | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return undefined;
  if (info.isDirectory()) return "dir";
  if (info.isFile()) return "file";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice()) return "char";
  if (info.isBlockDevice()) return "block";
  return "other";
}

/** checkHostPathType checks (and for DirectoryOrCreate / FileOrCreate creates) a hostPath volume's path. */
export async function checkHostPathType(path: string, type: string): Promise<void> {
  const fail = (what: string): never => {
    throw new HostPathTypeError(`hostPath type check failed: ${path} is not ${what}`);
  };
  switch (type) {
    case "":
      return;
    case "DirectoryOrCreate":
      if ((await lstat(path).catch(() => undefined)) === undefined) await mkdir(path, { recursive: true, mode: 0o755 });
      if ((await kindOf(path)) !== "dir") fail("a directory");
      return;
    case "Directory":
      if ((await kindOf(path)) !== "dir") fail("a directory");
      return;
    case "FileOrCreate":
      if ((await lstat(path).catch(() => undefined)) === undefined) {
        const handle = await open(path, "a", 0o644).catch((err: NodeJS.ErrnoException) => {
          throw new HostPathTypeError(`hostPath type check failed: ${path} could not be created: ${err.code ?? err.message}`);
        });
        await handle.close();
      }
      if ((await kindOf(path)) !== "file") fail("a file");
      return;
    case "File":
      if ((await kindOf(path)) !== "file") fail("a file");
      return;
    case "Socket":
      if ((await kindOf(path)) !== "socket") fail("a socket file");
      return;
    case "CharDevice":
      if ((await kindOf(path)) !== "char") fail("a character device");
      return;
    case "BlockDevice":
      if ((await kindOf(path)) !== "block") fail("a block device");
      return;
    default:
      fail(`of a supported type (${type})`);
  }
}
