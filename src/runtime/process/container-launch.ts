// Turns a container config into what is needed to start its process on this host: the
// environment, the working directory and the resolved executable. Failures carry the text a
// kubelet on containerd/runc shows for the same mistake, e.g.
//   unable to start container process: exec: "nosuch": executable file not found in $PATH
//   unable to start container process: chdir to cwd ("/nope") set in config.json failed: no such file or directory
// (runc libcontainer init: chdir first, then Go's exec.LookPath on argv[0]).
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { errnoText } from "../../probe/host-command.js";
import { lookPath as findInPath } from "../../probe/look-path.js";
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
 * is the directory as configured, quoted in the error. Rejects with a LaunchError worded like runc's.
 */
export async function prepareLaunch(
  argv: readonly string[],
  context: { env: Record<string, string>; cwd: string },
  workingDir: string = context.cwd,
): Promise<LaunchSpec> {
  const { env, cwd } = context;
  const cwdProblem = await stat(cwd).then(
    (s) => (s.isDirectory() ? undefined : "ENOTDIR"),
    (err: NodeJS.ErrnoException) => err.code ?? "ENOENT",
  );
  if (cwdProblem) {
    throw new LaunchError(`${START_ERROR_PREFIX}chdir to cwd ("${workingDir}") set in config.json failed: ${errnoText(cwdProblem)}`);
  }
  const file = await lookPath(argv[0] ?? "", env["PATH"] ?? "", cwd);
  return { file, argv: [...argv], env: { ...env }, cwd };
}

/**
 * lookPath resolves argv[0] as runc's init does, through Go's exec.LookPath (probe/look-path.ts),
 * and returns its absolute path, or throws the LaunchError runc reports. runc 1.1 was built with
 * a Go whose LookPath called a directory "permission denied", which is kept here.
 */
export async function lookPath(file: string, pathVar: string, cwd: string): Promise<string> {
  const where = await findInPath(file, pathVar, cwd);
  if ("found" in where) return resolve(cwd, where.found);
  if ("missing" in where) throw new LaunchError(`${START_ERROR_PREFIX}exec: "${file}": executable file not found in $PATH`);
  const detail = where.problem === "EACCES" || where.problem === "EISDIR" ? errnoText("EACCES") : `stat ${file}: ${errnoText(where.problem)}`;
  throw new LaunchError(`${START_ERROR_PREFIX}exec: "${file}": ${detail}`);
}

/** spawnFailureMessage words an execve failure reported by spawn (runc: "exec <path>: <errno>"). */
export function spawnFailureMessage(file: string, code: string | undefined): string {
  return `${START_ERROR_PREFIX}exec ${file}: ${errnoText(code ?? "EIO")}`;
}
