// Turns a container config into what is needed to start its process on this host: the
// environment, the working directory and the resolved executable. Failures carry the text a
// kubelet on containerd/runc shows for the same mistake, e.g.
//   unable to start container process: exec: "nosuch": executable file not found in $PATH
//   unable to start container process: chdir to cwd ("/nope") set in config.json failed: no such file or directory
// (runc libcontainer init: chdir first, then Go's exec.LookPath on argv[0]).
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { access, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { errnoText } from "../../probe/host-command.js";
import type { ContainerConfig, PodSandboxConfig } from "../runtime.js";

/** START_ERROR_PREFIX starts every start failure message, as runc's does. */
export const START_ERROR_PREFIX = "unable to start container process: ";

/** DEFAULT_PATH is used when neither the container nor the agent sets PATH (containerd's default). */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** LaunchSpec is a container process ready to spawn. */
export interface LaunchSpec {
  /** Absolute path of the executable. */
  file: string;
  /** The argv as configured: [...command, ...args]; argv[0] is kept as given. */
  argv: string[];
  /** The complete environment. */
  env: Record<string, string>;
  /**
   * The exact bytes (base64) of env values that are not UTF-8, by name (KeyValue.valueBase64):
   * the supervisor passes them to the container as they are; Node's spawn takes text only, so
   * a container started without the supervisor gets `env`'s text (U+FFFD for each bad byte).
   */
  envBytes?: Record<string, string>;
  /** Absolute working directory. */
  cwd: string;
}

/** LaunchError means the process cannot be started; its message is the runtime's full text. */
export class LaunchError extends Error {
  override readonly name = "LaunchError";
}

/** containerArgv is the process argv of a container: command then args (CRI/runc process args). */
export function containerArgv(config: Pick<ContainerConfig, "command" | "args">): string[] {
  return [...config.command, ...config.args];
}

/**
 * containerEnv builds the process environment: HOSTNAME (the pod name, or the node's name for
 * host-network pods, as containerd sets it), then the container's envs in order (later
 * duplicates win), then PATH from the agent when the container sets none.
 */
export function containerEnv(
  config: Pick<ContainerConfig, "envs">,
  sandbox: Pick<PodSandboxConfig, "name" | "hostNetwork">,
  agentEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = { HOSTNAME: sandbox.hostNetwork ? hostname() : sandbox.name };
  for (const { key, value } of config.envs) env[key] = value;
  if (!Object.hasOwn(env, "PATH")) env["PATH"] = agentEnv["PATH"] ?? DEFAULT_PATH;
  return env;
}

/** containerEnvBytes gives LaunchSpec.envBytes for the container's envs that are not UTF-8 (later duplicates win). */
export function containerEnvBytes(config: Pick<ContainerConfig, "envs">): Pick<LaunchSpec, "envBytes"> {
  const last = new Map<string, string | undefined>();
  for (const { key, valueBase64 } of config.envs) last.set(key, valueBase64);
  const bytes = [...last].filter((entry): entry is [string, string] => entry[1] !== undefined);
  return bytes.length === 0 ? {} : { envBytes: Object.fromEntries(bytes) };
}

/** containerCwd is the working directory: workingDir resolved against the agent's, else the agent's own. */
export function containerCwd(config: Pick<ContainerConfig, "workingDir">, agentCwd: string = process.cwd()): string {
  return config.workingDir ? resolve(agentCwd, config.workingDir) : agentCwd;
}

/**
 * prepareLaunch checks the working directory and resolves argv[0] through the environment's
 * PATH, for a process with the given env and cwd (see containerEnv, containerCwd). `workingDir`
 * is the directory as configured, quoted in the error; `root` is where the container's view of
 * the filesystem starts ("" the host's, else e.g. /proc/<pid>/root for its mount namespace).
 * Rejects with a LaunchError worded like runc's.
 */
export async function prepareLaunch(
  argv: readonly string[],
  context: { env: Record<string, string>; cwd: string },
  workingDir: string = context.cwd,
  root = "",
): Promise<LaunchSpec> {
  const { env, cwd } = context;
  const cwdProblem = await stat(root + cwd).then(
    (s) => (s.isDirectory() ? undefined : "ENOTDIR"),
    (err: NodeJS.ErrnoException) => err.code ?? "ENOENT",
  );
  if (cwdProblem) {
    throw new LaunchError(`${START_ERROR_PREFIX}chdir to cwd ("${workingDir}") set in config.json failed: ${errnoText(cwdProblem)}`);
  }
  const file = await lookPath(argv[0] ?? "", env["PATH"] ?? "", cwd, root);
  return { file, argv: [...argv], env: { ...env }, cwd };
}

/** Resolved is an executable found (its path as the container sees it), or the errno of the failure. */
export type Resolved = { ok: true; path: string } | { ok: false; code: string };

/**
 * candidates mirrors Go's exec.LookPath: a name containing "/" is used as is (relative to cwd);
 * otherwise each PATH entry in order ("" meaning "."). `single` tells the first case.
 */
function candidates(file: string, pathVar: string, cwd: string): { single: boolean; paths: string[] } {
  if (file.includes("/")) return { single: true, paths: [isAbsolute(file) ? file : resolve(cwd, file)] };
  return { single: false, paths: pathVar.split(":").map((dir) => resolve(cwd, join(dir === "" ? "." : dir, file))) };
}

function pick(found: { single: boolean; paths: string[] }, problems: (string | undefined)[]): Resolved {
  const at = problems.findIndex((p) => p === undefined);
  if (at >= 0) return { ok: true, path: found.paths[at]! };
  return { ok: false, code: found.single ? (problems[0] ?? "ENOENT") : "ENOENT" };
}

/**
 * resolveExecutable finds the executable a command names, as Go's exec.LookPath does (only
 * regular files with an execute bit qualify). Paths are checked under `root` (see prepareLaunch).
 */
export async function resolveExecutable(file: string, pathVar: string, cwd: string, root = ""): Promise<Resolved> {
  const found = candidates(file, pathVar, cwd);
  const problems: (string | undefined)[] = [];
  for (const path of found.paths) {
    problems.push(await executableProblem(root + path));
    if (problems.at(-1) === undefined) break;
  }
  return pick(found, problems);
}

/**
 * resolveExecutableSync is resolveExecutable with synchronous checks: a few stat calls cost less
 * than as many trips through the thread pool, on the exec-probe path into a container's world.
 */
export function resolveExecutableSync(file: string, pathVar: string, cwd: string, root = ""): Resolved {
  const found = candidates(file, pathVar, cwd);
  const problems: (string | undefined)[] = [];
  for (const path of found.paths) {
    problems.push(executableProblemSync(root + path));
    if (problems.at(-1) === undefined) break;
  }
  return pick(found, problems);
}

/** lookPath is resolveExecutable that rejects with runc's LaunchError texts. */
export async function lookPath(file: string, pathVar: string, cwd: string, root = ""): Promise<string> {
  const found = await resolveExecutable(file, pathVar, cwd, root);
  if (found.ok) return found.path;
  if (!file.includes("/")) throw new LaunchError(`${START_ERROR_PREFIX}exec: "${file}": executable file not found in $PATH`);
  const detail = found.code === "EACCES" ? errnoText("EACCES") : `stat ${file}: ${errnoText(found.code)}`;
  throw new LaunchError(`${START_ERROR_PREFIX}exec: "${file}": ${detail}`);
}

/** executableProblem returns undefined for an executable regular file, else an errno name. */
async function executableProblem(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    if (s.isDirectory()) return "EACCES";
    await access(path, fsConstants.X_OK);
    return undefined;
  } catch (err) {
    return errnoOf(err);
  }
}

function executableProblemSync(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) return "EACCES";
    accessSync(path, fsConstants.X_OK);
    return undefined;
  } catch (err) {
    return errnoOf(err);
  }
}

function errnoOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code ?? "ENOENT";
  return code === "EPERM" ? "EACCES" : code;
}

/** spawnFailureMessage words an execve failure reported by spawn (runc: "exec <path>: <errno>"). */
export function spawnFailureMessage(file: string, code: string | undefined): string {
  return `${START_ERROR_PREFIX}exec ${file}: ${errnoText(code ?? "EIO")}`;
}
