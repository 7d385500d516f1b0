// `probelet run`: the agent in the foreground. It loads manifests (-f, --manifests DIR), starts the
// status API, and prints a live view of pod changes and events until SIGINT/SIGTERM (graceful);
// a second signal kills everything at once.
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Agent } from "../agent/agent.js";
import { applyManifest, ManifestDirectory } from "../agent/manifest-source.js";
import { ProcessRuntime } from "../runtime/process/process-runtime.js";
import { defaultSupervisorPath, supervisorAvailable } from "../runtime/process/supervised-process.js";
import type { Runtime } from "../runtime/runtime.js";
import { startStatusServer } from "../server/server.js";
import { CriRuntime } from "../runtime/cri/cri-runtime.js";
import { systemClock, type Clock } from "../util/clock.js";
import { createLogger, type Logger, type LogLevel } from "../util/logger.js";
import { UsageError } from "./args.js";
import { readInputFile } from "./input-file.js";
import type { CommandContext } from "./probe-command.js";
import { formatEventLine, formatPodLine } from "./live-view.js";
import { surviveUncaughtErrors } from "./process-errors.js";

/** DEFAULT_LISTEN is the status API address: loopback, on the kubelet's read-only port. */
export const DEFAULT_LISTEN = "127.0.0.1:10255";

/** RUN_HELP is the text of `probelet run --help`. */
export const RUN_HELP = `Usage:
  probelet run [-f FILE]... [--manifests DIR] [--runtime process|cri [--cri-socket PATH]] [--listen HOST:PORT]
               [--state-dir DIR] [--token TOKEN] [--leave-running]

Runs the agent in the foreground: starts the pods of every manifest, probes and restarts them as
the kubelet does, serves the status API, and prints pod changes and events as they happen.
Ctrl-C stops every pod gracefully; a second Ctrl-C kills them at once.

Flags:
  -f, --filename FILE    a Pod manifest (multi-document YAML or JSON; "-" reads stdin); repeatable
      --manifests DIR    a directory of manifests, watched like the kubelet's static pods
      --runtime NAME     process (default): each container is a local process group;
                         cri: real containers through containerd's CRI (images must be present)
      --cri-socket PATH  the CRI socket (default $PROBELET_CRI_SOCKET, else /run/containerd/containerd.sock)
      --leave-running    on exit, leave containers running for the next agent to adopt
      --listen ADDR      status API address (default ${DEFAULT_LISTEN}; port 0 picks one)
      --token TOKEN      require "Authorization: Bearer TOKEN" (needed for a non-loopback --listen)
      --state-dir DIR    container logs and agent state (default $PROBELET_STATE_DIR or ~/.local/state/probelet)
      --log-level LEVEL  agent log level on stderr: debug, info, warn, error (default warn)
  -q, --quiet            no live view
`;

/** runRunCommand runs `probelet run ARGS…`; resolves with the exit code after shutdown. */
export async function runRunCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseRunArgs(argv);
  if (values.help) {
    ctx.stdout(RUN_HELP);
    return 0;
  }
  const files = values.filename ?? [];
  if (files.length === 0 && values.manifests === undefined) throw new UsageError("nothing to run: give -f FILE or --manifests DIR");
  const runtimeName = values.runtime ?? "process";
  if (runtimeName !== "process" && runtimeName !== "cri") throw new UsageError(`unsupported runtime "${runtimeName}": supported values: "process", "cri"`);
  if (values["leave-running"] && runtimeName === "process" && !(await supervisorAvailable())) {
    throw new UsageError(`--leave-running needs the process supervisor helper (${defaultSupervisorPath()}, built by npm run build with a C compiler): without it process containers cannot outlive the agent`);
  }
  const stateDir = resolve(values["state-dir"] ?? process.env["PROBELET_STATE_DIR"] ?? join(homedir(), ".local", "state", "probelet"));
  await mkdir(stateDir, { recursive: true });
  const level = parseLevel(values["log-level"] ?? "warn");
  const logger = createLogger({ level });
  const clock = ctx.clock ?? systemClock;

  // Validate every -f file before anything starts: bad input changes nothing.
  const texts: { name: string; text: string }[] = [];
  for (const file of files) texts.push({ name: file, text: await readInputFile(file, () => ctx.readStdin()) });

  surviveUncaughtErrors();
  const runtime = await openRuntime(runtimeName, values["cri-socket"], stateDir, clock, logger);
  const agent = new Agent({ runtime, stateDir, clock, logger: logger.child("agent") });
  const unsubscribe = values.quiet ? [] : [agent.watchPods((e) => ctx.stdout(formatPodLine(e, clock.now()))), agent.watchEvents((e) => ctx.stdout(formatEventLine(e)))];
  await agent.restore();
  let failed = false;
  for (const { name, text } of texts) {
    const report = applyManifest(agent, text, name === "-" ? "STDIN" : name, name === "-" ? "file:-" : `file:${resolve(name)}`, false);
    for (const warning of report.warnings) ctx.stderr(`Warning: ${warning}\n`);
    if (report.errors.length > 0) {
      ctx.stderr(`error: ${report.errors.join("\n")}\n`);
      failed = true;
    }
  }
  if (failed) {
    await agent.close(0);
    await runtime.close();
    return 2;
  }
  const dir = values.manifests === undefined ? undefined : new ManifestDirectory(values.manifests, agent, clock, logger.child("manifests"), (r) => {
    for (const w of r.warnings) ctx.stderr(`Warning: ${w}\n`);
    for (const e of r.errors) ctx.stderr(`error: ${e}\n`);
  });
  let server;
  try {
    server = await startStatusServer(agent, { listen: values.listen ?? DEFAULT_LISTEN, ...(values.token ? { token: values.token } : {}), logger: logger.child("server") });
  } catch (err) {
    await agent.close(0);
    await runtime.close();
    throw new UsageError(`cannot serve the status API on ${values.listen ?? DEFAULT_LISTEN}: ${err instanceof Error ? err.message : String(err)}`);
  }
  await dir?.start();
  await agent.cleanupOrphans();
  agent.start();
  ctx.stdout(`probelet: agent running (runtime ${runtime.type}, status API ${server.url}, state ${stateDir}); Ctrl-C stops\n`);

  await waitForAbort(ctx.signal);
  ctx.stdout("probelet: stopping pods gracefully (signal again to kill them at once)\n");
  const secondSignal = new Promise<void>((resolveSecond) => {
    const again = (): void => resolveSecond();
    process.once("SIGINT", again);
    process.once("SIGTERM", again);
  });
  await dir?.close();
  if (values["leave-running"]) {
    await agent.detach();
    await server.close();
    await runtime.close();
    ctx.stdout("probelet: stopped; containers left running for the next agent\n");
    return 0;
  }
  const graceful = agent.close();
  await Promise.race([graceful, secondSignal.then(() => agent.destroy())]);
  for (const off of unsubscribe) off();
  await server.close();
  await runtime.close();
  ctx.stdout("probelet: stopped\n");
  return 0;
}

function parseRunArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        filename: { type: "string", short: "f", multiple: true },
        manifests: { type: "string" },
        runtime: { type: "string" },
        "cri-socket": { type: "string" },
        "leave-running": { type: "boolean" },
        listen: { type: "string" },
        token: { type: "string" },
        "state-dir": { type: "string" },
        "log-level": { type: "string" },
        quiet: { type: "boolean", short: "q" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** openRuntime builds the chosen runtime; for CRI it checks the socket answers before anything starts. */
async function openRuntime(name: string, socket: string | undefined, stateDir: string, clock: Clock, logger: Logger): Promise<Runtime> {
  if (name === "process") {
    const runtime = new ProcessRuntime({ clock, logger, stateDir });
    await runtime.reapOrphans();
    return runtime;
  }
  const path = socket ?? process.env["PROBELET_CRI_SOCKET"] ?? "/run/containerd/containerd.sock";
  const cgroupPrefix = process.env["PROBELET_CRI_CGROUP_PARENT"];
  const runtime = new CriRuntime({ socket: path, clock, logger, ...(cgroupPrefix ? { cgroupPrefix } : {}) });
  try {
    await runtime.version();
  } catch (err) {
    await runtime.close();
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return runtime;
}

function parseLevel(text: string): LogLevel {
  if (text === "debug" || text === "info" || text === "warn" || text === "error" || text === "trace") return text;
  throw new UsageError(`invalid --log-level "${text}": supported values: "debug", "info", "warn", "error"`);
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((r) => signal.addEventListener("abort", () => r(), { once: true }));
}
