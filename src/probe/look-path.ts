// Go's os/exec LookPath (lp_unix.go) for commands run on this host: how a name without "/" is
// found in PATH, and what is wrong when it is not. The kubelet's own commands, and every Go
// runtime under it, find programs this way; an execvp-style search differs in one visible
// place: a PATH directory the user cannot search makes execvp report "permission denied", while
// Go skips that directory and, when no other directory has the program, says it is not found.
import { constants as fsConstants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";

/**
 * LookPathResult is where a command was found, or why not: `missing` for a bare name no PATH
 * directory holds as an executable file (Go's ErrNotFound), otherwise the errno name of what
 * findExecutable met for a name with "/" ("ENOENT", "EACCES", "EISDIR").
 */
export type LookPathResult = { found: string } | { missing: true } | { problem: string };

/**
 * lookPath resolves `file` as Go's exec.LookPath does: a name containing "/" is checked as is
 * (relative names against `cwd`); a bare name is tried in each PATH entry in order ("" meaning
 * "."), and an entry whose candidate cannot be stat'ed, is a directory or is not executable is
 * skipped, whatever the reason.
 */
export async function lookPath(file: string, pathVar: string, cwd: string): Promise<LookPathResult> {
  if (file.includes("/")) {
    const problem = await executableProblem(isAbsolute(file) ? file : resolve(cwd, file));
    return problem === undefined ? { found: file } : { problem };
  }
  for (const dir of pathVar.split(":")) {
    const candidate = join(dir === "" ? "." : dir, file);
    if ((await executableProblem(resolve(cwd, candidate))) === undefined) return { found: candidate };
  }
  return { missing: true };
}

/**
 * executableProblem is Go's findExecutable: undefined for a file the caller may execute, else the
 * errno name: the stat error, EISDIR for a directory, EACCES when no execute permission applies.
 */
export async function executableProblem(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    if (s.isDirectory()) return "EISDIR";
    await access(path, fsConstants.X_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "ENOENT";
    return code === "EPERM" ? "EACCES" : code;
  }
}
