// Running one CNI plugin binary with the CNI protocol (CNI spec "Execution protocol"): the
// operation and the container in environment variables, the network configuration on stdin, the
// result (or an error object) as JSON on stdout. This is what containerd's CRI plugin does
// through libcni for every pod sandbox.
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Clock } from "../../util/clock.js";

/** CNI_TIMEOUT_MS bounds one plugin run; the plugin's process group is killed after it. */
export const CNI_TIMEOUT_MS = 30_000;

/** MAX_CNI_OUTPUT_BYTES bounds what is read of a plugin's stdout (a result is a few hundred bytes). */
export const MAX_CNI_OUTPUT_BYTES = 64 << 10;

/** CniCommand is the operation (CNI_COMMAND). */
export type CniCommand = "ADD" | "DEL";

/** CniRequest is one plugin invocation. */
export interface CniRequest {
  command: CniCommand;
  /** The plugin's type: the file name looked up in pluginDir. */
  type: string;
  /** CNI_CONTAINERID: the sandbox ID. */
  containerId: string;
  /** CNI_NETNS: path of the network namespace. */
  netns: string;
  /** CNI_IFNAME: the interface inside the namespace. */
  ifName: string;
  /** CNI_PATH: where the plugin finds its delegates (host-local IPAM). */
  pluginDir: string;
  /** The network configuration; written as JSON on stdin. */
  config: Record<string, unknown>;
}

/** CniError is a plugin failure, worded as libcni words it: `plugin type="bridge" failed (add): <msg>`. */
export class CniError extends Error {
  override readonly name = "CniError";
}

/** CniIp is one address of a CNI result (its "ips" list). */
export interface CniIp {
  /** CIDR notation, e.g. "10.88.0.2/24". */
  address: string;
  /** Index into the result's interfaces, when given. */
  interface?: number;
}

/** CniResult is the part of a CNI 1.0 result the runtime reads. */
export interface CniResult {
  interfaces: { name: string; sandbox?: string }[];
  ips: CniIp[];
}

/**
 * runCniPlugin runs the plugin and resolves with its parsed result (ADD) or an empty one (DEL).
 * Rejects with a CniError when the plugin fails, answers an error object, says nothing readable,
 * or overruns CNI_TIMEOUT_MS or MAX_CNI_OUTPUT_BYTES.
 */
export async function runCniPlugin(request: CniRequest, clock: Clock): Promise<CniResult> {
  const what = `plugin type="${request.type}" failed (${request.command.toLowerCase()})`;
  const env = {
    PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
    CNI_COMMAND: request.command,
    CNI_CONTAINERID: request.containerId,
    CNI_NETNS: request.netns,
    CNI_IFNAME: request.ifName,
    CNI_PATH: request.pluginDir,
  };
  const child = spawn(join(request.pluginDir, request.type), [], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  const done = new AbortController();
  let stdout = "";
  let stderr = "";
  let overrun = false;
  let timedOut = false;
  const killGroup = (): void => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  void clock.sleep(CNI_TIMEOUT_MS, done.signal).then(() => {
    if (done.signal.aborted) return;
    timedOut = true;
    killGroup();
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (stdout.length > MAX_CNI_OUTPUT_BYTES && !overrun) {
      overrun = true;
      killGroup();
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString("utf8");
  });
  child.stdin.on("error", () => undefined);
  child.stdin.end(JSON.stringify(request.config));
  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, error }));
    child.once("close", (code) => resolve({ code }));
  }).finally(() => done.abort());
  if (exit.error) throw new CniError(`${what}: ${exit.error.message}`);
  if (timedOut) throw new CniError(`${what}: no answer within ${CNI_TIMEOUT_MS / 1000}s`);
  if (overrun) throw new CniError(`${what}: output exceeds ${MAX_CNI_OUTPUT_BYTES} bytes`);
  if (exit.code !== 0) throw new CniError(`${what}: ${pluginErrorText(stdout, stderr, exit.code)}`);
  if (request.command === "DEL") return { interfaces: [], ips: [] };
  return parseResult(stdout, what);
}

/** pluginErrorText picks the message of a failed plugin: its CNI error object, else its stderr. */
function pluginErrorText(stdout: string, stderr: string, code: number | null): string {
  const parsed = parseJson(stdout) as { msg?: unknown; details?: unknown } | undefined;
  if (parsed && typeof parsed.msg === "string") return typeof parsed.details === "string" && parsed.details !== "" ? `${parsed.msg}: ${parsed.details}` : parsed.msg;
  const text = stderr.trim().split("\n").slice(-1)[0] ?? "";
  return text !== "" ? text : `exit status ${code ?? "signal"}`;
}

function parseResult(stdout: string, what: string): CniResult {
  const parsed = parseJson(stdout) as { interfaces?: unknown; ips?: unknown } | undefined;
  if (!parsed || !Array.isArray(parsed.ips)) throw new CniError(`${what}: the plugin's result has no "ips" list`);
  const ips = parsed.ips.filter((ip): ip is CniIp => typeof (ip as CniIp | null)?.address === "string");
  const interfaces = Array.isArray(parsed.interfaces) ? parsed.interfaces.filter((i): i is { name: string; sandbox?: string } => typeof (i as { name?: unknown } | null)?.name === "string") : [];
  return { interfaces, ips };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
