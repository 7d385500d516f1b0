// How the console copes with 500 pods: a status server over an in-memory agent with PODS pods
// (default 500, each with two probes' history for its health strip), the console in headless
// Debian chromium (playwright-core). Prints the time from
// navigation to all rows shown, and from a burst of PODS MODIFIED events (every pod's restart
// count goes up) to the table showing the last one. Needs /usr/bin/chromium (scripts/browser.sh).
//
//   npm run build && node dist/bench/console-pods.js [PODS]
import { chromium } from "playwright-core";
import { FakeAgentApi } from "../test/fakes/fake-agent-api.js";
import { startStatusServer } from "../src/server/server.js";
import { consoleGateFactory } from "../src/console/console-gate.js";
import { ConsoleSessions } from "../src/console/console-sessions.js";
import { systemClock } from "../src/util/clock.js";

const PODS = Number(process.argv[2] ?? 500);
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const api = new FakeAgentApi();
const created = new Date().toISOString();
for (let i = 0; i < PODS; i++) {
  api.addPod({
    metadata: { name: `pod-${String(i).padStart(4, "0")}`, namespace: i % 2 === 0 ? "default" : "batch", labels: { app: `app-${i % 10}` }, creationTimestamp: created },
    spec: { nodeName: "node-1", containers: [{ name: "app" }, { name: "sidecar" }] },
    status: { phase: "Running", containerStatuses: [{ name: "app", ready: true, restartCount: 0, state: { running: {} } }, { name: "sidecar", ready: true, restartCount: 0, state: { running: {} } }] },
  } as never);
  // Each pod's health strip has two probes over the last 10 minutes, one failing now and then.
  for (let k = 0; k < 20; k++) {
    for (const probeType of ["liveness", "readiness"] as const) {
      const result = probeType === "readiness" && (i + k) % 7 === 0 ? "Failure" : "Success";
      const time = new Date(Date.parse(created) - (20 - k) * 30_000).toISOString();
      api.recordProbe(i % 2 === 0 ? "default" : "batch", `pod-${String(i).padStart(4, "0")}`, { time, container: "app", probeType, containerID: "process://1", result, output: result === "Failure" ? "HTTP probe failed with statuscode: 503" : "", latencyMs: 1, run: 1, threshold: 3 });
    }
  }
}
// Loopback without a token: the bench measures rendering, not login.
const server = await startStatusServer(api, { listen: "127.0.0.1:0", consoleGate: consoleGateFactory(new ConsoleSessions(systemClock)) });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: FLAGS });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const t0 = performance.now();
  await page.goto(`${server.url}/`);
  // Locators, not page functions: the console's CSP forbids the eval a string predicate needs.
  await page.locator("tbody tr").nth(PODS - 1).waitFor({ timeout: 30_000 });
  const listed = performance.now() - t0;
  const last = `pod-${String(PODS - 1).padStart(4, "0")}`;
  const t1 = performance.now();
  for (let i = 0; i < PODS; i++) {
    api.updatePod(i % 2 === 0 ? "default" : "batch", `pod-${String(i).padStart(4, "0")}`, (pod) => {
      for (const c of pod.status?.containerStatuses ?? []) c.restartCount = 1;
    });
  }
  await page.locator(`tr[data-pod="${last}"] td:nth-child(5)`).filter({ hasText: /^2$/ }).waitFor({ timeout: 30_000 });
  const updated = performance.now() - t1;
  console.log(`| ${PODS} pods | first full list ${listed.toFixed(0)} ms | ${PODS} changes shown ${updated.toFixed(0)} ms |`);
} finally {
  await browser.close();
  await server.close();
}
