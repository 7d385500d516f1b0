#!/usr/bin/env -S node --max-semi-space-size=2
// The `probelet` command: a small dispatcher over the subcommands in COMMANDS (probe, run, get,
// describe, explain, logs, apply, delete, lint), each loaded on first use. Errors never surface as
// stack traces: usage and validation problems print `error: …` and exit 2, anything else exits 1.
import { realpath } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { MAX_INPUT_BYTES } from "../api/bounded-parse.js";
import { UsageError } from "./args.js";
import { survivesUncaughtErrors } from "./process-errors.js";
import type { CommandContext } from "./probe-command.js";
import { InvalidInputError } from "./probe-spec.js";
import { probeletVersion } from "../util/package-version.js";

/** CommandRun runs a command with the arguments after its name and resolves with the exit code. */
export type CommandRun = (argv: readonly string[], ctx: CommandContext) => Promise<number>;

/** Subcommand is one `probelet <name>` command, loaded on first use (keeps --help and --version fast). */
export interface Subcommand {
  /** One line for `probelet --help`. */
  summary: string;
  load(): Promise<CommandRun>;
}

/** COMMANDS lists the subcommands by name. */
export const COMMANDS: Readonly<Record<string, Subcommand>> = {
  probe: {
    summary: "run a probe once, or watch it like a kubelet worker",
    load: async () => (await import("./probe-command.js")).runProbeCommand,
  },
  run: {
    summary: "run Pod manifests with the kubelet's lifecycle, probes and status API",
    load: async () => (await import("./run-command.js")).runRunCommand,
  },
  get: { summary: "list pods or events, like kubectl get", load: async () => (await import("./get-command.js")).runGetCommand },
  describe: {
    summary: "show a pod in detail: containers, probes, conditions, events",
    load: async () => (await import("./describe-command.js")).runDescribeCommand,
  },
  explain: {
    summary: "say why a pod is not Ready and why its containers restarted",
    load: async () => (await import("./explain-command.js")).runExplainCommand,
  },
  logs: { summary: "print or follow a container's log", load: async () => (await import("./logs-command.js")).runLogsCommand },
  apply: { summary: "create pods from manifests (a changed pod is replaced)", load: async () => (await import("./apply-command.js")).runApplyCommand },
  delete: { summary: "delete pods gracefully", load: async () => (await import("./delete-command.js")).runDeleteCommand },
  kubeconfig: {
    summary: "print a kubeconfig for the local agent, for kubectl and client libraries",
    load: async () => (await import("./kubeconfig-command.js")).runKubeconfigCommand,
  },
  console: { summary: "open the agent's web console (pods, probe timelines) logged in", load: async () => (await import("./console-command.js")).runConsoleCommand },
  lint: { summary: "warn about risky probe configurations in Pod manifests and workload templates", load: async () => (await import("./lint-command.js")).runLintCommand },
  version: { summary: "print this probelet's version and the agent's", load: async () => (await import("./version-command.js")).runVersionCommand },
};

/** MAIN_HELP is the text of `probelet --help`. */
export const MAIN_HELP = `probelet: the kubelet's container probing, as a library and a CLI.

Usage:
  probelet <command> [flags]
  probelet <command> --help
  probelet --version

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)}${c.summary}`)
  .join("\n")}
`;

/** main dispatches argv (without node and the script) to a subcommand; it may throw. */
export async function main(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    ctx.stderr(MAIN_HELP);
    return 2;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? rest[0] : undefined;
    if (topic === undefined) {
      ctx.stdout(MAIN_HELP);
      return 0;
    }
    return dispatch(topic, ["--help"], ctx);
  }
  if (first === "--version") {
    ctx.stdout(`probelet ${probeletVersion()}\n`);
    return 0;
  }
  return dispatch(first, rest, ctx);
}

async function dispatch(name: string, argv: readonly string[], ctx: CommandContext): Promise<number> {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command) return (await command.load())(argv, ctx);
  if (name.startsWith("-")) throw new UsageError(`unknown flag: ${name}`);
  throw new UsageError(`unknown command "${name}"`);
}

/**
 * runCli runs main and turns every error into `error: <message>` on stderr: exit 2 for usage
 * and validation errors (with a hint or one line per field error), 1 for anything else.
 */
export async function runCli(argv: readonly string[], ctx: CommandContext): Promise<number> {
  try {
    return await main(argv, ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      const command = argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) ? ` ${argv[0]}` : "";
      ctx.stderr(`error: ${err.message}\nRun 'probelet${command} --help' for usage.\n`);
      return 2;
    }
    if (err instanceof InvalidInputError) {
      ctx.stderr(`error: ${err.message}\n${err.details.map((d) => `* ${d}\n`).join("")}`);
      return 2;
    }
    ctx.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** processContext wires a CommandContext to this process: streams, and SIGINT/SIGTERM as abort. */
function processContext(controller: AbortController): CommandContext {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    readStdin: async () => {
      // Reading stops one chunk past the input limit: readInputFile then refuses the text, and an
      // endless stdin (`cat /dev/zero | probelet lint -f -`) costs no more than that.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (size > MAX_INPUT_BYTES) break;
      }
      return Buffer.concat(chunks).toString("utf8");
    },
    signal: controller.signal,
  };
}

/**
 * keepAlive holds the event loop open while a command runs: the Clock's background timers are
 * unref'd (so a library never keeps a process alive), which would otherwise let a waiting watch
 * exit early.
 * A listening MessagePort is a ref'd handle that involves no timer.
 */
function keepAlive(): () => void {
  const { port1 } = new MessageChannel();
  port1.on("message", () => undefined);
  return () => port1.close();
}

async function runAsProcess(): Promise<void> {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const fatal = (err: unknown): void => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    // A long-running agent must not die (and orphan its containers) on one stray error.
    if (!survivesUncaughtErrors()) process.exit(1);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
  // A closed pipe (`probelet probe --watch | head -3`) ends a command quietly; the agent, which
  // must not orphan its pods, goes on without that output.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") fatal(err);
    else if (!survivesUncaughtErrors()) process.exit(0);
  });
  // Once stderr is gone nothing can be reported: reporting its error there again would loop.
  process.stderr.on("error", () => undefined);
  const release = keepAlive();
  const code = await runCli(process.argv.slice(2), processContext(controller));
  release();
  // Flush both streams, then exit even if a library left a handle open.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
  process.exit(code);
}

// Run when executed directly (also through the npm bin symlink), not when imported.
const entry = process.argv[1];
if (entry !== undefined && (await realpath(entry).catch(() => entry)) === fileURLToPath(import.meta.url)) {
  await runAsProcess();
}
