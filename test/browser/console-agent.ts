// What the console's browser tests run against: a real `probelet run` agent with the pods a
// platform engineer meets (a pod failing liveness, a crash loop without probes, a pod with an
// init container and a sidecar), Debian's chromium driven by playwright-core, a login through
// `probelet console`, and a TCP relay in front of the agent that can drop and come back, as an
// SSH tunnel to a remote agent does.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { freePort, sleep } from "../e2e/host.js";
import { relayConnection } from "../kube-clients/cut-proxy.js";

/** CHROMIUM is Debian's browser (scripts/browser.sh installs it). */
export const CHROMIUM = "/usr/bin/chromium";
/** The flags this closed network needs (docs/console.md): no background requests, no QUIC, no GPU. */
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const cli = join(import.meta.dirname, "../../src/cli/main.js");

/** The pods of the test: see the file's header. */
function manifest(heartbeat: string): string {
  return `apiVersion: v1
kind: Pod
metadata: { name: flaky, labels: { app: flaky } }
spec:
  terminationGracePeriodSeconds: 2
  containers:
    - name: app
      image: busybox
      command: ["sh", "-c", "touch ${heartbeat}; echo started; sleep 4; rm -f ${heartbeat}; echo heartbeat stopped; exec sleep 600"]
      livenessProbe: { exec: { command: ["sh", "-c", "if [ -e ${heartbeat} ]; then echo alive; else echo no heartbeat file; exit 1; fi"] }, periodSeconds: 1, failureThreshold: 3, timeoutSeconds: 1 }
      readinessProbe: { exec: { command: ["true"] }, periodSeconds: 1 }
---
apiVersion: v1
kind: Pod
metadata: { name: crashloop, labels: { app: batch } }
spec:
  containers:
    - name: app
      image: busybox
      command: ["sh", "-c", "echo starting; echo 'fatal: cannot open config /etc/app/config.yaml: no such file or directory; the message is long enough that the containers table has to wrap it to stay within the window' >&2; exit 1"]
---
apiVersion: v1
kind: Pod
metadata: { name: with-sidecar, labels: { app: shop } }
spec:
  terminationGracePeriodSeconds: 1
  initContainers:
    - name: migrate
      image: busybox
      command: ["sh", "-c", "echo migrating; echo done"]
    - name: log-shipper
      image: busybox
      restartPolicy: Always
      command: ["sh", "-c", "trap 'exit 0' TERM; echo shipping; while true; do sleep 1; done"]
      startupProbe: { exec: { command: ["true"] }, periodSeconds: 1 }
      readinessProbe: { exec: { command: ["true"] }, periodSeconds: 2 }
  containers:
    - name: main
      image: busybox
      command: ["sh", "-c", "trap 'exit 0' TERM; echo main started; while true; do sleep 1; done"]
      readinessProbe: { exec: { command: ["true"] }, periodSeconds: 2 }
`;
}

/** Relay is a TCP relay in front of the agent that can drop every connection and come back. */
export interface Relay {
  port: number;
  /** down stops listening and cuts every connection. */
  down(): Promise<void>;
  /** up listens again on the same port. */
  up(): Promise<void>;
}

async function startRelay(target: number): Promise<Relay & { close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const up = async (): Promise<void> => {
    const s = createServer((client) => relayConnection(client, target, sockets));
    await new Promise<void>((resolve, reject) => s.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
    server = s;
  };
  const down = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s !== undefined) await new Promise((resolve) => s.close(resolve));
  };
  await up();
  return { port, up, down, close: down };
}

/** ConsoleAgent is the running agent, its API with the owner's token, and a logged-in browser. */
export interface ConsoleAgent {
  api: string;
  stateDir: string;
  bearer: Record<string, string>;
  browser: Browser;
  /** The relay's base URL: the console as a browser reaches it through a tunnel. */
  relayUrl: string;
  relay: Relay;
  /** Every URL a page requested outside the agent (and the relay): there must be none. */
  outside: string[];
  agentLog(): string;
  /** login runs `probelet console` and opens its URL in a new browser context (through the relay when asked). */
  login(options?: { width?: number; height?: number; viaRelay?: boolean }): Promise<{ context: BrowserContext; loginUrl: string }>;
  /** The agent's port, which names its session cookie (probelet_session_PORT). */
  port: number;
  /** cli runs the probelet CLI against the agent and returns its stdout. */
  cli(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function waitUntil<T>(what: string, tries: number, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const killed = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
  if (!killed) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** startConsoleAgent starts everything; close() ends it all, whatever state the tests left. */
export async function startConsoleAgent(): Promise<ConsoleAgent> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-console-"));
  const stateDir = join(dir, "state");
  const file = join(dir, "pods.yaml");
  await writeFile(file, manifest(join(dir, "heartbeat")));
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const agent = spawn(process.execPath, [cli, "run", "-f", file, "--listen", `127.0.0.1:${port}`, "--state-dir", stateDir, "-q"], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  agent.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const opened: { browser?: Browser; relay?: Relay & { close(): Promise<void> } } = {};
  const close = async (): Promise<void> => {
    await opened.browser?.close();
    await opened.relay?.close();
    await stop(agent);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil("the agent's healthz", 150, async () => ((await fetch(`${api}/healthz`)).ok ? true : undefined));
    const token = (await readFile(join(stateDir, "agent-token"), "utf8")).trim();
    const relay = (opened.relay = await startRelay(port));
    const relayUrl = `http://127.0.0.1:${relay.port}`;
    // launch() gives the browser a fresh, empty user-data-dir of its own (and removes it on close).
    const browser = (opened.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS }));
    const outside: string[] = [];
    const run = async (...args: string[]): Promise<string> => (await promisify(execFile)(process.execPath, [cli, ...args, "--state-dir", stateDir])).stdout;
    return {
      api,
      port,
      stateDir,
      bearer: { Authorization: `Bearer ${token}` },
      browser,
      relayUrl,
      relay,
      outside,
      agentLog: () => log,
      cli: run,
      close,
      login: async (options = {}) => {
        const stdout = await run("console", "--no-open");
        const printed = /(http:\/\/\S+\/#\/login\/\S+)/.exec(stdout)?.[1];
        if (printed === undefined) throw new Error(`probelet console printed no login URL: ${stdout}`);
        const loginUrl = options.viaRelay === true ? printed.replace(api, relayUrl) : printed;
        const context = await browser.newContext({ viewport: { width: options.width ?? 1440, height: options.height ?? 1000 }, colorScheme: "light" });
        context.on("request", (r) => {
          if (!r.url().startsWith(api) && !r.url().startsWith(relayUrl) && !r.url().startsWith("data:")) outside.push(r.url());
        });
        const page = await context.newPage();
        await page.goto(loginUrl);
        await page.waitForSelector('[data-testid="pod-table"]', { timeout: 15_000 });
        return { context, loginUrl };
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
