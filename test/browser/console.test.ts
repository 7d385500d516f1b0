// The web console in a real browser (Debian's chromium driven by playwright-core) against a real
// `probelet run` agent (console-agent.ts): the owner logs in and nobody else does (not with the
// session cookie another port's server receives from the browser; no Secrets; nothing after
// logout); the list shows which pods flap and why; a pod page opens on what happened; the
// owner's actions; and what keeps it usable: navigation, errors in words, a missing pod, a lost
// agent, 390 and 1440 px windows.
// Skipped when /usr/bin/chromium is missing (scripts/browser.sh installs it).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { CHROMIUM, startConsoleAgent, waitUntil, type ConsoleAgent } from "./console-agent.js";

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: run scripts/browser.sh as root`;
const options = { skip, timeout: 120_000 };
let h: ConsoleAgent;

before(async () => {
  if (skip === false) h = await startConsoleAgent();
});
after(async () => {
  await h?.close();
});

interface PodStatusView {
  metadata: { creationTimestamp: string };
  status?: { containerStatuses?: { restartCount?: number }[] };
}

async function podOf(name: string): Promise<PodStatusView> {
  return (await (await fetch(`${h.api}/api/v1/namespaces/default/pods/${name}`, { headers: h.bearer })).json()) as PodStatusView;
}

async function restartsOf(name: string): Promise<number> {
  return (await podOf(name)).status?.containerStatuses?.[0]?.restartCount ?? 0;
}

async function newPage(width = 1440, height = 1000): Promise<Page> {
  const { context } = await h.login({ width, height });
  return context.pages()[0]!;
}

/** boxes are the on-screen boxes of a locator's elements. */
async function boxes(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }[]> {
  const out = [];
  for (const element of await locator.all()) {
    const box = await element.boundingBox();
    if (box !== null) out.push(box);
  }
  return out;
}

/** assertApart checks that no two labels on one line overlap. */
function assertApart(list: { x: number; y: number; width: number }[], what: string): void {
  const sorted = [...list].sort((a, b) => a.y - b.y || a.x - b.x);
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    if (Math.abs(a.y - b.y) < 1) assert.ok(b.x >= a.x + a.width - 0.5, `${what} overlap: ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
  }
}

/** pageWidth is how wide the page's content is, against the window. */
async function pageWidth(page: Page): Promise<{ content: number; window: number }> {
  // The page's globals, as the browser has them (this file is typed for Node).
  return page.evaluate(() => {
    const w = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
    return { content: w.document.documentElement.scrollWidth, window: w.innerWidth };
  });
}

const rowNames = async (page: Page): Promise<string[]> => page.locator("tbody tr[data-pod]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-pod") ?? ""));

test("console: the owner logs in through probelet console; no credentials, a spent code or the cookie another port receives get in; Secrets stay closed; the list follows the watch; logout ends the session", options, async (t) => {
  // Nobody else gets in: no session and no token → 401 for the API and a login code.
  assert.equal((await fetch(`${h.api}/api/v1/pods`)).status, 401);
  assert.equal((await fetch(`${h.api}/console/login-codes`, { method: "POST" })).status, 401);
  const { context, loginUrl } = await h.login();
  const page = context.pages()[0]!;
  assert.ok(!loginUrl.includes(h.bearer.Authorization!.slice(7)), "the login URL must not carry the API token");
  await page.waitForSelector('tr[data-pod="flaky"]');
  assert.match((await page.getAttribute('[data-testid="watch-status"]', "class")) ?? "", /watch-live/);
  assert.equal(new URL(page.url()).hash, "#/pods", "the code left the address bar");
  // A spent login code opens nothing, in any browser; the page says how to get in.
  const second = await h.browser.newContext();
  const again = await second.newPage();
  await again.goto(loginUrl);
  await again.waitForSelector('[data-testid="signed-out"] .error', { timeout: 10_000 });
  assert.match((await again.textContent('[data-testid="signed-out"]')) ?? "", /login code is unknown, used or expired[\s\S]*probelet console/);
  assert.equal((await again.request.get(`${h.api}/api/v1/pods`)).status(), 401);
  await second.close();
  // Another port of 127.0.0.1 gets the session cookie from this browser (cookies are not
  // scoped by port), but not the key: replayed, the cookie opens nothing, reads or actions.
  const cookies: string[] = [];
  const elsewhere = createServer((req, res) => {
    cookies.push(req.headers.cookie ?? "");
    res.end("elsewhere");
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => elsewhere.close(() => resolve())));
  const otherPage = await context.newPage();
  const elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}`;
  await otherPage.goto(`${elsewhereOrigin}/`);
  await otherPage.close();
  const stolen = cookies.find((c) => c.includes(`probelet_session_${h.port}=`));
  assert.ok(stolen, `the other port received no session cookie: ${JSON.stringify(cookies)}`);
  assert.equal((await fetch(`${h.api}/api/v1/pods`, { headers: { Cookie: stolen } })).status, 401);
  assert.equal((await fetch(`${h.api}/console/explain/default/flaky`, { headers: { Cookie: stolen } })).status, 401);
  assert.equal((await fetch(`${h.api}/api/v1/namespaces/default/pods/flaky/probes/trigger?container=app&probeType=readiness`, { method: "POST", headers: { Cookie: stolen, Origin: h.api } })).status, 401);
  // The page itself reads pods with its key, and no Secret; its key does not open other writes,
  // nor the console's actions from another origin.
  const seen = await page.evaluate(`(async () => {
    const key = sessionStorage.getItem("probelet-session-key") ?? "";
    const read = (path) => fetch(path, { headers: { "X-Probelet-Session-Key": key } }).then((r) => r.status);
    const create = await fetch("/api/v1/namespaces/default/pods", { method: "POST", headers: { "X-Probelet-Session-Key": key, "Content-Type": "application/json" }, body: "{}" }).then((r) => r.status);
    return { pods: await read("/api/v1/pods"), secrets: await read("/api/v1/namespaces/default/secrets"), create, key };
  })()`) as { pods: number; secrets: number; create: number; key: string };
  assert.deepEqual({ pods: seen.pods, secrets: seen.secrets, create: seen.create }, { pods: 200, secrets: 403, create: 401 });
  const cookie = (await context.cookies(h.api)).find((c) => c.name === `probelet_session_${h.port}`);
  assert.ok(cookie !== undefined);
  const session = { Cookie: `${cookie.name}=${cookie.value}`, "X-Probelet-Session-Key": seen.key };
  assert.equal((await fetch(`${h.api}/api/v1/namespaces/default/pods/flaky`, { method: "DELETE", headers: { ...session, Origin: elsewhereOrigin } })).status, 401, "an action from another origin");
  assert.equal((await fetch(`${h.api}/api/v1/namespaces/default/pods/flaky`, { method: "DELETE", headers: session })).status, 401, "an action without an Origin");
  // The list follows the watch: a pod created through the API appears without a reload.
  const created = await fetch(`${h.api}/api/v1/namespaces/default/pods`, {
    method: "POST",
    headers: { ...h.bearer, "Content-Type": "application/json" },
    body: JSON.stringify({ metadata: { name: "late" }, spec: { containers: [{ name: "app", image: "busybox", command: ["sleep", "600"] }] } }),
  });
  assert.equal(created.status, 201);
  await page.waitForSelector('tr[data-pod="late"]', { timeout: 10_000 });
  const code = loginUrl.slice(loginUrl.indexOf("#/login/") + "#/login/".length);
  assert.doesNotMatch(h.agentLog(), new RegExp(code), "the login code must never be logged");
  // Log out: the session ends at the agent; its cookie and key open nothing any more.
  await page.click("button.logout");
  await page.waitForSelector('[data-testid="signed-out"]', { timeout: 10_000 });
  assert.equal((await fetch(`${h.api}/api/v1/pods`, { headers: session })).status, 401);
  await context.close();
  // The visit to the other port was the test's own, not the console's: no request outside the agent.
  h.outside.splice(0, h.outside.length, ...h.outside.filter((url) => !url.startsWith(elsewhereOrigin)));
});

test("the list: READY counts the sidecar as kubectl does, each pod's strip says who flaps and why, sorted by most failures lately; name search; no match said in words", options, async () => {
  const page = await newPage();
  const cell = (pod: string, column: number): Locator => page.locator(`tr[data-pod="${pod}"] > td:nth-child(${column})`);
  // READY: the sidecar counts, as in `probelet get` (kubectl's printPod).
  await waitUntil("with-sidecar 2/2", 100, async () => ((await cell("with-sidecar", 3).textContent()) === "2/2" ? true : undefined));
  const get = await h.cli("get", "pods", "with-sidecar");
  assert.match(get, /with-sidecar\s+2\/2\s+Running/);
  // Who flaps, and why, without opening a pod.
  const why = (pod: string): Locator => page.locator(`tr[data-pod="${pod}"] [data-testid="health"] .why`);
  await waitUntil("flaky's reason", 150, async () => (/app liveness failed ×\d+: no heartbeat file/.test((await why("flaky").textContent({ timeout: 200 })) ?? "") ? true : undefined));
  await waitUntil("crashloop's reason", 150, async () => (/app ended ×\d+: exit 1 \(Error\)/.test((await why("crashloop").textContent({ timeout: 200 })) ?? "") ? true : undefined));
  assert.equal(await why("with-sidecar").count(), 0, "a healthy pod has nothing to explain");
  assert.ok((await page.locator('tr[data-pod="flaky"] [data-testid="health"] rect.r-failure').count()) > 0, "flaky's strip shows failures");
  // Most failures lately first, the healthy pod after them.
  await page.click('th button:has-text("Last 10 min")');
  const order = await rowNames(page);
  assert.deepEqual(new Set(order.slice(0, 2)), new Set(["flaky", "crashloop"]), order.join(", "));
  // IP, node and ready-since columns.
  assert.match((await cell("with-sidecar", 8).textContent()) ?? "", /^\d+\.\d+\.\d+\.\d+$/);
  assert.notEqual(((await cell("with-sidecar", 9).textContent()) ?? "").trim(), "");
  assert.match((await cell("with-sidecar", 7).textContent()) ?? "", /^\d+(s|m)/);
  assert.match((await cell("flaky", 7).textContent()) ?? "", /^(not ready )?\d+/);
  // Name search beside the label selector; a filter that matches nothing says so.
  await page.fill("#name-filter", "side");
  assert.deepEqual(await rowNames(page), ["with-sidecar"]);
  await page.fill("#name-filter", "no-such-pod");
  assert.match((await page.textContent('[data-testid="empty"]')) ?? "", /No pod matches these filters \(\d+ hidden\)/);
  await page.click('button:has-text("Clear filters")');
  assert.ok((await rowNames(page)).length >= 3);
  await page.context().close();
});

test("a pod page opens on what happened: flaky's failures without a drag, a crash loop without probes with its restarts and exits, init and sidecar containers; ticks on round times, labels inside and apart", options, async () => {
  await waitUntil("a liveness restart of flaky", 150, async () => ((await restartsOf("flaky")) >= 1 ? true : undefined));
  await waitUntil("two restarts of crashloop", 300, async () => ((await restartsOf("crashloop")) >= 2 ? true : undefined));
  const page = await newPage();
  await page.goto(`${h.api}/#/pods/default/flaky`);
  const chart = page.locator('[data-testid="timeline"]');
  await page.waitForSelector('[data-testid="timeline"] rect[data-type="liveness"][data-result="Failure"]', { timeout: 15_000 });
  await page.waitForSelector('[data-testid="timeline"] .tl-crossing', { timeout: 5_000 });
  // Opened on the pod's life (or its last failure episode, if shorter), not on 15 minutes.
  assert.match((await page.textContent('[data-testid="zoom"]')) ?? "", /Showing (the pod's life|the last failure episode)/);
  const age = Date.now() - Date.parse((await podOf("flaky")).metadata.creationTimestamp);
  const shown = Number(await chart.getAttribute("data-to")) - Number(await chart.getAttribute("data-from"));
  assert.ok(shown <= Math.max(age * 1.3, 70_000), `the chart shows ${shown} ms of a pod ${age} ms old`);
  const box = (await chart.boundingBox())!;
  const firstFailure = (await page.locator('[data-testid="timeline"] rect[data-result="Failure"]').first().boundingBox())!;
  assert.ok(firstFailure.x < box.x + box.width * 0.8, `the failures are spread over the chart, not squeezed at its right edge: ${firstFailure.x} in ${JSON.stringify(box)}, ${shown} ms shown of a pod ${age} ms old`);
  // Ticks on round times, every label inside the chart and apart from the others.
  const ticks = (await page.locator(".tl-tick").allTextContents()).map((t) => {
    const m = /(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(t);
    assert.ok(m, `a tick label reads as a time: ${t}`);
    return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  });
  assert.ok(ticks.length >= 3, `${ticks.length} ticks`);
  const step = ticks[1]! - ticks[0]!;
  for (let i = 1; i < ticks.length; i++) assert.equal(ticks[i]! - ticks[i - 1]!, step, "ticks are evenly spaced");
  for (const t of ticks) assert.equal(t % step, 0, `tick ${t} is on a round time (every ${step} s)`);
  for (const label of [...(await boxes(page.locator(".tl-tick"))), ...(await boxes(page.locator(".tl-restart-label")))]) {
    assert.ok(label.x >= box.x - 0.5 && label.x + label.width <= box.x + box.width + 0.5, `a label is cut off at the chart's edge: ${JSON.stringify(label)}`);
  }
  assertApart(await boxes(page.locator(".tl-tick")), "tick labels");
  assertApart(await boxes(page.locator(".tl-restart-label")), "restart labels");
  // The detail of a failure: its output and where it stands against the threshold.
  // The page may still move under the pointer as its panels fill in (a hover then lands on the
  // lane below): hover again until the detail is the failure's, a few times at most.
  const detail = await waitUntil("a failure's detail on hover", 10, async () => {
    await page.hover('[data-testid="timeline"] rect[data-type="liveness"][data-result="Failure"]', { timeout: 2000 });
    const text = (await page.textContent('[data-testid="timeline-detail"]')) ?? "";
    return /liveness: failure \d of 3/.test(text) ? text : undefined;
  });
  assert.match(detail, /no heartbeat file/);
  assert.match(detail, /^\d{2}:\d{2}:\d{2} /, "times read as the local 24-hour clock");
  // The range buttons and drag-zoom are kept.
  await page.mouse.move(box.x + box.width * 0.3, box.y + 30);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.7, box.y + 30, { steps: 5 });
  await page.mouse.up();
  await page.waitForSelector('[data-testid="zoom"]:has-text("Zoomed")');
  await page.click('button:has-text("15 min")');
  assert.equal(await page.getAttribute('button:has-text("15 min")', "aria-pressed"), "true");
  // Probe history in runs: the failures behind a restart stay in view beside it.
  assert.match((await page.locator('[data-probe="app/liveness"] [data-testid="runs"]').textContent()) ?? "", /container restarted[\s\S]*failure ×3 \(3 of 3\)/);

  // A crash loop without probes: every restart and every exit, not a dot.
  await page.goto(`${h.api}/#/pods/default/crashloop`);
  await page.waitForSelector('[data-testid="timeline"] .tl-exit.failed >> nth=1', { timeout: 15_000 });
  // Lines have no area: playwright calls them hidden, so they are waited for as attached.
  await page.waitForSelector('[data-testid="timeline"] .tl-restart >> nth=1', { timeout: 15_000, state: "attached" });
  // Held back by its back-off, the container shows its last exit until the pod's next sync (the
  // kubelet's reasonCache), then CrashLoopBackOff: either way its failure is in the table.
  assert.match((await page.textContent('[data-container="app"]')) ?? "", /Waiting: CrashLoopBackOff|Terminated: Error exit 1/);
  assert.match((await page.textContent('[data-testid="probes"]')) ?? "", /No probes/);

  // Init containers and sidecars, in the timeline and the Containers table.
  await page.goto(`${h.api}/#/pods/default/with-sidecar`);
  await page.waitForSelector('[data-container="log-shipper"]');
  const kinds = await page.locator('[data-testid="containers"] tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].slice(0, 2).map((td) => td.textContent).join(" ")));
  assert.deepEqual(kinds, ["migrate init", "log-shipper sidecar", "main container"]);
  const timelineText = (await page.textContent('[data-testid="timeline"]')) ?? "";
  for (const word of ["migrate", "init", "log-shipper", "sidecar", "main", "readiness", "startup"]) assert.ok(timelineText.includes(word), `the timeline names ${word}`);
  const since = page.locator('[data-container="main"] time').first();
  assert.match((await since.textContent()) ?? "", /^\d{2}:\d{2}:\d{2}$/);
  assert.match((await since.getAttribute("title")) ?? "", /ago · \d{4}-\d{2}-\d{2}T/, "the tooltip has the other forms of the time");
  await page.context().close();
});

test("the owner's actions: logs from the list, probe now with the result in place, delete after a confirmation (a static pod's says only its mirror goes)", options, async () => {
  const page = await newPage();
  await page.click('tr[data-pod="flaky"] button:has-text("Logs")');
  await page.waitForSelector('tr[data-detail="flaky"] [data-testid="logs"]:has-text("started")', { timeout: 10_000 });
  await page.click('tr[data-pod="flaky"] button:has-text("Logs")');
  // Probe now from the list: every probe of the pod, each result in place.
  await page.click('tr[data-pod="with-sidecar"] button:has-text("Probe")');
  const results = page.locator('tr[data-detail="with-sidecar"] [data-testid="probe-result"]');
  await waitUntil("three probe results", 100, async () => ((await results.locator(".probe-result").count()) === 3 ? true : undefined));
  const lines = await results.locator(".probe-result").allTextContents();
  assert.match(lines[0] ?? "", /^log-shipper startup: cannot probe now: container "log-shipper" has started: its startup probe no longer runs$/);
  assert.match(lines[1] ?? "", /^log-shipper readiness: success( \(\d+ in a row\))? in \d+\.\d ms$/);
  assert.match(lines[2] ?? "", /^main readiness: success( \(\d+ in a row\))? in \d+\.\d ms$/);
  // Probe now on the pod page, the result beside its button, in words.
  await page.goto(`${h.api}/#/pods/default/flaky`);
  await page.click('[data-probe="app/liveness"] button:has-text("Probe now")');
  const result = page.locator('[data-probe="app/liveness"] [data-testid="probe-result"]');
  await result.waitFor({ timeout: 20_000 });
  assert.match((await result.textContent()) ?? "", /^(failure|success)( \d of 3| \(\d+ in a row\))? in [\d.]+ ms · (alive|no heartbeat file)$|^cannot probe now: /);
  // Delete, after a confirmation: the row goes.
  await page.goto(`${h.api}/#/pods`);
  // A manifest's pod is a static pod: its confirmation says only the mirror would go; Cancel keeps it.
  await page.click('tr[data-pod="flaky"] button:has-text("Delete")');
  assert.match((await page.textContent('tr[data-detail="flaky"]')) ?? "", /static pod \(from a manifest\): the agent makes its mirror again at once/);
  await page.click('tr[data-detail="flaky"] button:has-text("Cancel")');
  await page.waitForSelector('tr[data-detail="flaky"]', { state: "detached" });
  await page.click('tr[data-pod="late"] button:has-text("Delete")');
  assert.doesNotMatch((await page.textContent('tr[data-detail="late"]')) ?? "", /static pod/);
  await page.click('tr[data-detail="late"] button.danger:has-text("Delete")');
  await page.waitForSelector('tr[data-pod="late"]', { state: "detached", timeout: 30_000 });
  assert.equal((await fetch(`${h.api}/api/v1/namespaces/default/pods/late`, { headers: h.bearer })).status, 404);
  await page.context().close();
});

/** PROBELET_CONSOLE_SCREENSHOTS names a directory for the README's screenshots (docs). */
const shots = process.env["PROBELET_CONSOLE_SCREENSHOTS"];

test("robust: another pod by the address bar starts afresh; errors read as one line; a missing pod says so; a lost agent shows a banner and the console comes back with it; 390 and 1440 px without horizontal scroll", { ...options, timeout: shots === undefined ? 120_000 : 400_000 }, async () => {
  const page = await newPage();
  // Per-pod state (the log's container) resets when the address changes to another pod.
  await page.goto(`${h.api}/#/pods/default/with-sidecar`);
  await page.selectOption('.logs-panel select', "log-shipper");
  await page.waitForSelector('[data-testid="logs"]:has-text("shipping")');
  await page.goto(`${h.api}/#/pods/default/flaky`);
  await page.waitForSelector('[data-testid="logs"]:has-text("started")');
  assert.equal(await page.inputValue(".logs-panel select"), "app");
  assert.equal(await page.locator('[data-testid="log-error"]').count(), 0);
  // An API error is one readable line, never the Status's JSON.
  await page.goto(`${h.api}/#/pods/default/with-sidecar`);
  await page.check('.logs-panel input[type="checkbox"] >> nth=0');
  const error = (await page.locator('[data-testid="log-error"]').textContent({ timeout: 10_000 })) ?? "";
  assert.match(error, /previous terminated container "main" in pod "with-sidecar" not found/);
  assert.doesNotMatch(error, /[{}]|"kind"/);
  // A pod that does not exist says so, at once.
  await page.goto(`${h.api}/#/pods/default/no-such-pod`);
  assert.match((await page.locator('[data-testid="pod-missing"]').textContent({ timeout: 10_000 })) ?? "", /There is no pod "no-such-pod" in namespace "default"/);

  // 1440 and 390 px: never wider than the window; at 390 the chart scrolls on its own.
  // Screenshots wait until the pods have a few minutes of history to show.
  if (shots !== undefined) await waitUntil("three minutes of history", 1500, async () => (Date.now() - Date.parse((await podOf("flaky")).metadata.creationTimestamp) > 180_000 ? true : undefined));
  for (const [width, height] of [[1440, 1000], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const route of ["#/pods", "#/pods/default/flaky", "#/pods/default/crashloop", "#/pods/default/with-sidecar", "#/events"]) {
      await page.goto(`${h.api}/${route}`);
      await page.waitForSelector(route === "#/pods" ? '[data-testid="health"] svg' : route === "#/events" ? "table" : '[data-testid="timeline"]');
      await page.waitForTimeout(300);
      const { content, window } = await pageWidth(page);
      assert.ok(content <= window, `${route} at ${width} px is ${content} px wide`);
      if (width === 1440) {
        // Wide enough for every table whole: none scrolls inside the page either.
        const tables = await page.locator(".table-scroll").evaluateAll((list) => list.map((e) => [e.scrollWidth, e.clientWidth]));
        for (const [scroll, client] of tables) assert.ok(scroll! <= client! + 1, `${route} at 1440 px has a table ${scroll} px wide in ${client} px`);
      }
      // The long `Waiting: CrashLoopBackOff` message (shown once a sync falls in the back-off; until
      // then the last exit, which is short) wraps instead of widening the page.
      const crashLoopWide = route === "#/pods/default/crashloop" && width === 1440;
      if (crashLoopWide && /Waiting: CrashLoopBackOff/.test((await page.textContent('[data-container="app"]')) ?? "")) {
        const state = (await page.locator('[data-container="app"] td.message').first().boundingBox())!;
        assert.ok(state.height > 30, "the crash loop's Waiting: message wraps");
      }
      if (route === "#/pods/default/flaky" && width === 390) {
        const scroll = await page.locator(".timeline-scroll").evaluate((e) => [e.scrollWidth, e.clientWidth]);
        assert.ok(scroll[0]! > scroll[1]!, "the chart keeps its size and scrolls");
      }
      if (shots !== undefined && route === "#/pods" && width === 1440) await page.locator("main").screenshot({ path: join(shots, "console-pods.png") });
      if (shots !== undefined && route === "#/pods/default/flaky" && width === 1440) await page.screenshot({ path: join(shots, "console-timeline.png") });
      if (shots !== undefined && route === "#/pods/default/flaky" && width === 390) await page.screenshot({ path: join(shots, "console-phone.png") });
    }
  }
  await page.context().close();

  // The agent goes away (here the tunnel to it drops): a banner; it comes back: the console is live again.
  const { context } = await h.login({ viaRelay: true });
  const relayed = context.pages()[0]!;
  await relayed.waitForSelector('tr[data-pod="flaky"]');
  await h.relay.down();
  await relayed.waitForSelector('[data-testid="offline"]', { timeout: 15_000 });
  await h.relay.up();
  await relayed.waitForSelector('[data-testid="offline"]', { state: "detached", timeout: 20_000 });
  await relayed.waitForSelector('tr[data-pod="flaky"]');
  assert.match((await relayed.getAttribute('[data-testid="watch-status"]', "class")) ?? "", /watch-live/);
  await context.close();
  assert.deepEqual(h.outside, [], "the console made requests outside the agent");
});
