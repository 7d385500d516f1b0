// `probelet console`: opens the agent's web console for its owner without typing a token. With
// the API token (found as every client command finds it, never on the command line) it asks the
// agent, on its socket, for a one-time login code and the console's URL, then hands the login URL
// to the browser through a private launcher file, so the code never appears in another process's
// argv, and prints the URL. `probelet console sessions` lists the live console sessions and
// `probelet console revoke ID…|--all` ends them.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { openStateDirectory } from "../agent/state-directory.js";
import type { SessionInfo } from "../console/console-sessions.js";
import { LOGIN_CODES_PATH, SESSIONS_PATH } from "../console/console-gate.js";
import { writeFileAtomic } from "../util/atomic-file.js";
import { UsageError } from "./args.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, type StatusClient } from "./agent-client.js";
import { stateDirOf } from "./client-credentials.js";
import { clientServerUrl } from "./agent-kubeconfig.js";
import type { CommandContext } from "./probe-command.js";

/** CONSOLE_HELP is the text of `probelet console --help`. */
export const CONSOLE_HELP = `Usage:
  probelet console [--no-open]            open the console, logged in
  probelet console sessions               list the console's live sessions
  probelet console revoke (ID... | --all) end sessions (the browser is logged out at its next request)

Opens the agent's web console (pods, probe timelines, explain, logs, events) in a browser, logged
in: the agent gives a one-time login code (valid 60 s, single use) that the page trades for a
session (a cookie and a key the page keeps for this tab; a session reads, never writes, and never
reads Secrets). The browser is $BROWSER, else xdg-open; the URL is also printed. A session ends
after 12 h, at the page's "Log out", or with probelet console revoke.

Flags:
      --no-open             only print the login URL
      --all                 with revoke: end every session
${CLIENT_FLAGS_HELP}`;

const OPTIONS = { ...CLIENT_OPTIONS, "no-open": { type: "boolean" }, all: { type: "boolean" } } as const;

/** runConsoleCommand runs `probelet console [sessions|revoke] ARGS…`: 0 on success, 1 when the agent refuses or is unreachable. */
export async function runConsoleCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(CONSOLE_HELP);
    return 0;
  }
  const [action, ...ids] = positionals;
  if (action !== "revoke" && values.all) throw new UsageError("--all goes with revoke");
  if (action === "revoke" && (ids.length === 0) === (values.all !== true)) throw new UsageError("revoke takes session IDs (probelet console sessions lists them) or --all");
  if ((action === undefined || action === "sessions") && ids.length > 0) throw new UsageError(`console${action === undefined ? "" : ` ${action}`} takes no arguments, got ${ids.join(", ")}`);
  if (action !== undefined && action !== "sessions" && action !== "revoke") throw new UsageError(`unknown console action "${action}": want sessions or revoke`);
  const client = clientFromFlags(values, ctx.signal);
  try {
    if (action === "sessions") return await listSessions(client, ctx);
    if (action === "revoke") return await revokeSessions(client, values.all === true ? undefined : ids, ctx);
    return await openConsole(client, values["no-open"] === true, stateDirOf(values), ctx);
  } catch (err) {
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}

/** openConsole asks for a login code and opens (or prints) the login URL. */
async function openConsole(client: StatusClient, noOpen: boolean, stateDir: string, ctx: CommandContext): Promise<number> {
  const answer = (await client.json("POST", LOGIN_CODES_PATH)) as { code?: unknown; url?: unknown };
  if (typeof answer.code !== "string" || typeof answer.url !== "string" || !/^https?:\/\//.test(answer.url)) {
    ctx.stderr(`error: the agent at ${client.server} answered without a login URL\n`);
    return 1;
  }
  const login = clientServerUrl(answer.url);
  const home = login.slice(0, login.indexOf("/#"));
  ctx.stdout(`probelet console: ${login}\n  (the login code works once, within 60 s; the console then stays at ${home}/ in that tab)\n`);
  if (!noOpen) await openBrowser(login, stateDir, ctx);
  return 0;
}

/** listSessions prints the live sessions as a table (kubectl's layout). */
async function listSessions(client: StatusClient, ctx: CommandContext): Promise<number> {
  const { items } = (await client.json("GET", SESSIONS_PATH)) as { items?: SessionInfo[] };
  if (items === undefined || items.length === 0) {
    ctx.stderr("No console sessions.\n");
    return 0;
  }
  const rows = [["ID", "CREATED", "LAST USED", "EXPIRES", "FROM", "BROWSER"], ...items.map((s) => [s.id, s.created, s.lastUsed, s.expires, s.source, s.userAgent.slice(0, 60) || "<none>"])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const row of rows) ctx.stdout(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3))).join("")}\n`);
  return 0;
}

/** revokeSessions ends the sessions named (all with undefined); a name that is no session makes the exit code 1. */
async function revokeSessions(client: StatusClient, ids: readonly string[] | undefined, ctx: CommandContext): Promise<number> {
  if (ids === undefined) {
    const { revoked } = (await client.json("DELETE", SESSIONS_PATH)) as { revoked?: number };
    ctx.stdout(`${revoked ?? 0} console session(s) revoked\n`);
    return 0;
  }
  let code = 0;
  for (const id of ids) {
    try {
      await client.json("DELETE", `${SESSIONS_PATH}/${encodeURIComponent(id)}`);
      ctx.stdout(`console session "${id}" revoked\n`);
    } catch (err) {
      if (!(err instanceof Error) || err.name !== "ServerStatusError") throw err;
      ctx.stderr(`${err.message}\n`);
      code = 1;
    }
  }
  return code;
}

/**
 * openBrowser starts $BROWSER or xdg-open on a launcher page (mode 0600 in the state directory)
 * that moves on to the login URL, so the code stays out of argv. Failing to start a browser is
 * not an error: the URL is printed.
 */
async function openBrowser(login: string, stateDir: string, ctx: CommandContext): Promise<void> {
  const command = process.env["BROWSER"] || "xdg-open";
  const dir = await openStateDirectory(stateDir);
  if (dir === undefined) {
    ctx.stderr(`probelet console: no state directory ${stateDir} to hand the browser the URL through; open the URL above in a browser\n`);
    return;
  }
  const launcher = join(dir, "console-login.html");
  const escaped = login.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  await writeFileAtomic(launcher, `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escaped}"><title>probelet console</title>\n`);
  const started = await new Promise<boolean>((done) => {
    const child = spawn(command, [`file://${launcher}`], { stdio: "ignore", detached: true });
    child.once("error", () => done(false));
    child.once("spawn", () => {
      child.unref();
      done(true);
    });
  });
  if (!started) {
    await rm(launcher, { force: true });
    ctx.stderr(`probelet console: could not start ${command}; open the URL above in a browser\n`);
  }
}
