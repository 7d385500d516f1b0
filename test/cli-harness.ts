// How CLI tests run probelet as a user does: the built CLI as a child process, or a command
// in-process with captured output, against a status API served from a fake agent.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import type { AgentApi } from "../src/apiserver/endpoints/host-interface.js";
import { parseFieldSelector } from "../src/apiserver/selectors/field-selector.js";
import { parseLabelSelector } from "../src/apiserver/selectors/label-selector.js";
import { checkFieldSelector, selectableFields, type SelectableResource } from "../src/apiserver/selectors/selectable-fields.js";
import { SelectorError } from "../src/apiserver/selectors/selector-error.js";
import type { CommandContext } from "../src/cli/probe-command.js";
import { startStatusServer, type StatusServer } from "../src/server/server.js";
import type { Clock } from "../src/util/clock.js";

/** CLI is the built entry point, dist/src/cli/main.js. */
const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));

/** CliRun is what a user sees of one CLI run. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** CliOptions feed stdin, watch stdout as it comes (and may signal the process), and bound the run. */
export interface CliOptions {
  input?: string;
  onStdout?: (soFar: string, kill: (signal: NodeJS.Signals) => void) => void;
  timeoutMs?: number;
}

/** runCli runs the built CLI and asserts that stderr never carries a stack trace. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env["PROBELET_TRACE"];
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI did not finish within ${timeoutMs / 1000} s: ${stdout}${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, (signal) => child.kill(signal));
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace on stderr");
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** captureContext is a CommandContext whose output the test reads; abort() is the user's Ctrl-C. */
export function captureContext(clock?: Clock): { ctx: CommandContext; out: () => string; err: () => string; abort: () => void } {
  let out = "";
  let err = "";
  const controller = new AbortController();
  const ctx: CommandContext = {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readStdin: () => Promise.resolve(""),
    signal: controller.signal,
    ...(clock ? { clock } : {}),
  };
  return { ctx, out: () => out, err: () => err, abort: () => controller.abort() };
}

/**
 * serveAgentApi serves an AgentApi (usually a fake) on a loopback port until the test ends;
 * `clock` is the server's (Table ages are computed with its now()).
 */
export async function serveAgentApi(t: TestContext, api: AgentApi, clock?: Clock): Promise<StatusServer> {
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", ...(clock !== undefined ? { clock } : {}) });
  t.after(() => server.close());
  return server;
}

/** RecordedRequest is one request that reached a selecting front: method, path and query parameters. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

/** SelectingServer is a served fake behind a front that records every request and applies selectors. */
export interface SelectingServer {
  url: string;
  requests: RecordedRequest[];
}

/** Request bodies larger than this are refused by the front (the agent allows 3 MiB). */
const MAX_FRONT_BODY_BYTES = 4 * 1024 * 1024;

/**
 * serveSelectingAgentApi serves an AgentApi (usually a fake) behind a loopback front that
 * records each request's query parameters and narrows pod and event lists and watches by
 * `labelSelector` and `fieldSelector` with the API server's parsers (a bad selector is the API
 * server's 400), whether or not the status server behind it applies them too. `clock` is the
 * status server's (serveAgentApi).
 */
export async function serveSelectingAgentApi(t: TestContext, api: AgentApi, clock?: Clock): Promise<SelectingServer> {
  const upstream = await serveAgentApi(t, api, clock);
  const requests: RecordedRequest[] = [];
  const front = createServer((req, res) => {
    forward(upstream.url, req, res, requests).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end(err instanceof Error ? err.message : String(err));
    });
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => {
    front.closeAllConnections();
    front.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, requests };
}

async function forward(upstream: string, req: IncomingMessage, res: ServerResponse, requests: RecordedRequest[]): Promise<void> {
  const url = new URL(req.url ?? "/", "http://front");
  requests.push({ method: req.method ?? "GET", path: url.pathname, query: url.searchParams });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FRONT_BODY_BYTES) throw new Error("request body too large for the test front");
    chunks.push(chunk as Buffer);
  }
  let select: ((object: unknown) => boolean) | undefined;
  try {
    select = selectorFor(url);
  } catch (err) {
    if (!(err instanceof SelectorError)) throw err;
    res.writeHead(400, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: err.message, reason: "BadRequest", code: 400 }));
    return;
  }
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const headers: Record<string, string> = {};
  for (const name of ["authorization", "accept", "content-type"]) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const answer = await fetch(upstream + url.pathname + url.search, { method: req.method ?? "GET", headers, signal: controller.signal, ...(body !== undefined ? { body } : {}) });
  res.writeHead(answer.status, { "Content-Type": answer.headers.get("content-type") ?? "application/json" });
  if (select === undefined || !answer.ok || answer.body === null) {
    if (answer.body !== null) for await (const chunk of answer.body) res.write(chunk);
    res.end();
    return;
  }
  if (url.searchParams.get("watch") !== "true") {
    const list = (await answer.json()) as { items?: unknown[] };
    if (Array.isArray(list.items)) list.items = list.items.filter(select);
    res.end(JSON.stringify(list));
    return;
  }
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of answer.body) {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      const event = line.trim() === "" ? undefined : (JSON.parse(line) as { type?: string; object?: unknown });
      if (event !== undefined && (event.type === "ERROR" || select(event.object))) res.write(`${line}\n`);
    }
  }
  res.end();
}

/** selectorFor is the matcher of a pod or event list or watch request that has selectors; undefined for anything else. */
function selectorFor(url: URL): ((object: unknown) => boolean) | undefined {
  const resource = /^\/api\/v1\/(?:namespaces\/[^/]+\/)?(pods|events)$/.exec(url.pathname)?.[1] as SelectableResource | undefined;
  const labelText = url.searchParams.get("labelSelector");
  const fieldText = url.searchParams.get("fieldSelector");
  if (resource === undefined || (labelText === null && fieldText === null)) return undefined;
  const labels = parseLabelSelector(labelText ?? "");
  const fields = checkFieldSelector(resource, parseFieldSelector(fieldText ?? ""));
  return (object) => labels.matches((object as { metadata?: { labels?: Record<string, string> } }).metadata?.labels) && fields.matches(selectableFields(resource, object));
}
