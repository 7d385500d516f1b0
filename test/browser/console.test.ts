// The web console in a real browser (Debian's chromium driven by playwright-core): a real
// `probelet run` agent, logged in through `probelet console`, shows a pod that fails liveness
// with its failures, the kill and the restart on the timeline; the pod list follows the watch
// without a reload; requests without the owner's credentials, a spent login code, and the
// session cookie another port's server receives from the browser all get 401; Secrets are not
// readable with the session; "Log out" ends it.
// Skipped when /usr/bin/chromium is missing (scripts/browser.sh installs it).
import assert from "node:assert/strict";
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { chromium, type Browser } from "playwright-core";
import { freePort, sleep } from "../e2e/host.js";

const CHROMIUM = "/usr/bin/chromium";
const cli = join(import.meta.dirname, "../../src/cli/main.js");
/** The flags this closed network needs (docs/console.md): no background requests, no QUIC, no GPU. */
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

async function waitUntil<T>(what: string, tries: number, check: () => Promise<T | undefined>): Promise<T> {
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
  const killed = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!killed) {
    child.kill("SIGKILL");
    await exited;
  }
}

test(
  "console: a pod failing liveness shows failures, kill and restart on the timeline; the list follows the watch; no credentials, a spent code or the cookie another port receives get in; Secrets stay closed; logout ends the session",
  { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: run scripts/browser.sh as root`, timeout: 120_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "probelet-console-"));
    const stateDir = join(dir, "state");
    const heartbeat = join(dir, "heartbeat");
    const manifest = join(dir, "pod.yaml");
    await writeFile(
      manifest,
      [
        "apiVersion: v1\nkind: Pod\nmetadata: { name: flaky, labels: { app: flaky } }\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n    - name: app\n      image: busybox",
        `      command: ["sh", "-c", "touch ${heartbeat}; echo started; sleep 4; rm -f ${heartbeat}; echo heartbeat stopped; exec sleep 600"]`,
        `      livenessProbe: { exec: { command: ["sh", "-c", "if [ -e ${heartbeat} ]; then echo alive; else echo no heartbeat file; exit 1; fi"] }, periodSeconds: 1, failureThreshold: 3, timeoutSeconds: 1 }`,
        `      readinessProbe: { exec: { command: ["true"] }, periodSeconds: 1 }`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    const api = `http://127.0.0.1:${port}`;
    const agent = spawn(process.execPath, [cli, "run", "-f", manifest, "--listen", `127.0.0.1:${port}`, "--state-dir", stateDir, "-q"], { stdio: ["ignore", "ignore", "pipe"] });
    let agentLog = "";
    agent.stderr?.on("data", (d: Buffer) => (agentLog += d.toString()));
    const opened: { browser?: Browser } = {};
    t.after(async () => {
      await opened.browser?.close();
      await stop(agent);
      await rm(dir, { recursive: true, force: true });
    });
    await waitUntil("the agent's healthz", 100, async () => ((await fetch(`${api}/healthz`)).ok ? true : undefined));
    const token = (await readFile(join(stateDir, "agent-token"), "utf8")).trim();
    const bearer = { Authorization: `Bearer ${token}` };

    // Nobody else gets in: no session and no token → 401 for the API and a login code.
    assert.equal((await fetch(`${api}/api/v1/pods`)).status, 401);
    assert.equal((await fetch(`${api}/console/login-codes`, { method: "POST" })).status, 401);

    const { stdout } = await promisify(execFile)(process.execPath, [cli, "console", "--no-open", "--state-dir", stateDir]);
    const login = /(http:\/\/\S+\/#\/login\/\S+)/.exec(stdout)?.[1];
    assert.ok(login, `probelet console printed no login URL: ${stdout}`);
    assert.ok(!login.includes(token), "the login URL must not carry the API token");

    // launch() gives the browser a fresh, empty user-data-dir of its own (and removes it on close).
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    opened.browser = browser;
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, colorScheme: "light" });
    const page = await context.newPage();
    const outside: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(api) && !r.url().startsWith("data:")) outside.push(r.url());
    });
    await page.goto(login);
    await page.waitForSelector('tr[data-pod="flaky"]', { timeout: 15_000 });
    assert.match(await page.getAttribute('[data-testid="watch-status"]', "class") ?? "", /watch-live/);
    assert.equal(new URL(page.url()).hash, "#/pods", "the code left the address bar");

    // A spent login code opens nothing, in any browser; the page says how to get in.
    const second = await browser.newContext();
    const again = await second.newPage();
    await again.goto(login);
    await again.waitForSelector('[data-testid="signed-out"] .error', { timeout: 10_000 });
    assert.match((await again.textContent('[data-testid="signed-out"]')) ?? "", /login code is unknown, used or expired[\s\S]*probelet console/);
    assert.equal((await again.request.get(`${api}/api/v1/pods`)).status(), 401);
    await second.close();

    // Another port of 127.0.0.1 gets the session cookie from this browser (cookies are not
    // scoped by port), but not the key: replayed, the cookie opens nothing.
    const cookies: string[] = [];
    const elsewhere = createServer((req, res) => {
      cookies.push(req.headers.cookie ?? "");
      res.end("elsewhere");
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => elsewhere.close(() => resolve())));
    const otherPage = await context.newPage();
    await otherPage.goto(`http://127.0.0.1:${(elsewhere.address() as { port: number }).port}/`);
    await otherPage.close();
    const stolen = cookies.find((c) => c.includes(`probelet_session_${port}=`));
    assert.ok(stolen, `the other port received no session cookie: ${JSON.stringify(cookies)}`);
    assert.equal((await fetch(`${api}/api/v1/pods`, { headers: { Cookie: stolen } })).status, 401);
    assert.equal((await fetch(`${api}/console/explain/default/flaky`, { headers: { Cookie: stolen } })).status, 401);
    // The page itself reads pods with its key, and no Secret.
    const seen = await page.evaluate(`(async () => {
      const key = sessionStorage.getItem("probelet-session-key") ?? "";
      const read = (path) => fetch(path, { headers: { "X-Probelet-Session-Key": key } }).then((r) => r.status);
      return { pods: await read("/api/v1/pods"), secrets: await read("/api/v1/namespaces/default/secrets") };
    })()`);
    assert.deepEqual(seen, { pods: 200, secrets: 403 });

    // The list follows the watch: a pod created through the API appears without a reload.
    const created = await fetch(`${api}/api/v1/namespaces/default/pods`, {
      method: "POST",
      headers: { ...bearer, "Content-Type": "application/json" },
      body: JSON.stringify({ metadata: { name: "late" }, spec: { containers: [{ name: "app", image: "busybox", command: ["sleep", "600"] }] } }),
    });
    assert.equal(created.status, 201);
    await page.waitForSelector('tr[data-pod="late"]', { timeout: 10_000 });

    // The liveness failures, the kill and the restart, on the timeline.
    await waitUntil("a liveness restart of flaky", 150, async () => {
      const pod = (await (await fetch(`${api}/api/v1/namespaces/default/pods/flaky`, { headers: bearer })).json()) as { status?: { containerStatuses?: { restartCount?: number }[] } };
      return (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? true : undefined;
    });
    await page.click('tr[data-pod="flaky"] a');
    await page.waitForSelector('[data-testid="timeline"] rect[data-type="liveness"][data-result="Failure"]', { timeout: 15_000 });
    // Lines have no area: playwright calls them hidden, so they are waited for as attached.
    await page.waitForSelector('[data-testid="timeline"] .tl-kill', { timeout: 15_000, state: "attached" });
    await page.waitForSelector('[data-testid="timeline"] .tl-restart', { timeout: 15_000, state: "attached" });
    await page.waitForSelector('[data-testid="timeline"] .tl-crossing', { timeout: 5_000 });
    // Zoom (drag across the chart) from just before the first probe to now.
    const chart = await page.locator('[data-testid="timeline"]').boundingBox();
    const firstMark = await page.locator('[data-testid="timeline"] rect[data-type="liveness"]').first().boundingBox();
    assert.ok(chart && firstMark);
    await page.mouse.move(Math.max(chart.x + chart.width * 0.09, firstMark.x - 3), chart.y + 30);
    await page.mouse.down();
    await page.mouse.move(chart.x + chart.width - 4, chart.y + 30, { steps: 5 });
    await page.mouse.up();
    await page.waitForSelector("text=Reset zoom");
    await page.hover('[data-testid="timeline"] rect[data-type="liveness"][data-result="Failure"]');
    const detail = await page.textContent('[data-testid="timeline-detail"]');
    assert.match(detail ?? "", /liveness: failure \d of 3/);
    assert.match(detail ?? "", /no heartbeat file/);
    await waitUntil("the explanation", 50, async () => ((await page.textContent('[data-testid="explain"]')) ?? "").includes("Restarts") || undefined);
    const screenshot = process.env["PROBELET_CONSOLE_SCREENSHOT"] ?? join(dir, "console-timeline.png");
    await page.locator(".pod-grid").screenshot({ path: screenshot });
    assert.deepEqual(outside, [], "the console made requests outside the agent");
    const code = login.slice(login.indexOf("#/login/") + "#/login/".length);
    assert.doesNotMatch(agentLog, new RegExp(code), "the login code must never be logged");

    // Log out: the session ends at the agent; its cookie and key open nothing any more.
    const key = await page.evaluate<string | null>(`sessionStorage.getItem("probelet-session-key")`);
    const cookie = (await context.cookies(api)).find((c) => c.name === `probelet_session_${port}`);
    assert.ok(key !== null && cookie !== undefined);
    await page.click("button.logout");
    await page.waitForSelector('[data-testid="signed-out"]', { timeout: 10_000 });
    assert.equal((await fetch(`${api}/api/v1/pods`, { headers: { Cookie: `${cookie.name}=${cookie.value}`, "X-Probelet-Session-Key": key } })).status, 401);
  },
);
