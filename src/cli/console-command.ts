// `probelet console`: opens the agent's web console for its owner without typing a token. With
// the API token (found as every client command finds it, never on the command line) it asks the
// agent for a one-time login code, then hands the login URL to the browser through a private
// launcher file, so the code never appears in another process's argv, and prints the URL.
import { spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { LOGIN_CODES_PATH } from "../console/console-gate.js";
import { UsageError } from "./args.js";
import { readAgentUrl } from "./agent-url-file.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, DEFAULT_SERVER, parseCommandArgs } from "./client.js";
import { credentialLoader, defaultStateDir } from "./client-credentials.js";
import { sendRequest } from "./http-transport.js";
import type { CommandContext } from "./probe-command.js";

/** CONSOLE_HELP is the text of `probelet console --help`. */
export const CONSOLE_HELP = `Usage:
  probelet console [--state-dir DIR] [--server URL] [--no-open]

Opens the agent's web console (pods, probe timelines, explain, logs, events) in a browser, logged
in: the agent gives a one-time login code (valid 60 s, single use) that the browser trades for a
session cookie. The browser is $BROWSER, else xdg-open; the URL is also printed.

Flags:
      --no-open             only print the login URL
${CLIENT_FLAGS_HELP}`;

const OPTIONS = { ...CLIENT_OPTIONS, "no-open": { type: "boolean" } } as const;

/** Bound on the login-code answer read from the agent. */
const MAX_ANSWER_CHARS = 4096;

/** runConsoleCommand runs `probelet console ARGS…`: 0 once the URL is out, 1 when the agent refuses or is unreachable. */
export async function runConsoleCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(CONSOLE_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`console takes no arguments, got ${positionals.join(", ")}`);
  if (values.token !== undefined) throw new UsageError("--token would show the token to every user of this machine (ps): use --token-file FILE");
  const stateDir = values["state-dir"] !== undefined ? resolve(values["state-dir"]) : defaultStateDir();
  const server = (values.server ?? (await readAgentUrl(stateDir)) ?? (process.env["PROBELET_SERVER"] || DEFAULT_SERVER)).replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`invalid server URL "${server}": want an http:// or https:// URL such as ${DEFAULT_SERVER}`);
  }
  const credentials = await credentialLoader({ ...values, "state-dir": stateDir }, url)();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (credentials.token !== undefined) headers["Authorization"] = `Bearer ${credentials.token}`;
  let res: Response;
  try {
    res = await sendRequest(server + LOGIN_CODES_PATH, { method: "POST", headers, signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(10_000)]), ...(credentials.ca ? { ca: credentials.ca } : {}) });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err instanceof Error ? err.message : String(err));
    ctx.stderr(`error: cannot reach the probelet agent at ${server}: ${cause}\n`);
    return 1;
  }
  const text = (await res.text()).slice(0, MAX_ANSWER_CHARS);
  if (res.status !== 201) {
    ctx.stderr(`error: the agent at ${server} refused a console login (${res.status}): ${text.trim()}\n`);
    return 1;
  }
  const answer = JSON.parse(text) as { code?: unknown; path?: unknown };
  if (typeof answer.code !== "string" || typeof answer.path !== "string") {
    ctx.stderr(`error: the agent at ${server} answered without a login code\n`);
    return 1;
  }
  const login = `${server}${answer.path}?code=${encodeURIComponent(answer.code)}`;
  ctx.stdout(`probelet console: ${login}\n  (the login code works once, within 60 s; the console then stays at ${server}/)\n`);
  if (!values["no-open"]) await openBrowser(login, stateDir, ctx);
  return 0;
}

/**
 * openBrowser starts $BROWSER or xdg-open on a launcher page (mode 0600 in the state directory)
 * that moves on to the login URL, so the code stays out of argv. Failing to start a browser is
 * not an error: the URL is printed.
 */
async function openBrowser(login: string, stateDir: string, ctx: CommandContext): Promise<void> {
  const command = process.env["BROWSER"] || "xdg-open";
  const launcher = join(stateDir, "console-login.html");
  const escaped = login.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  await writeFile(launcher, `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escaped}"><title>probelet console</title>\n`, { mode: 0o600 });
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
