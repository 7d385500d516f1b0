// `npm run differential`: every scenario of scenarios.ts runs at the same time on the real kubelet
// v1.37 and on a probelet node of one control plane (pods pinned with spec.nodeName, one namespace
// per node), a recorder watches each pod and its events through the API server, and the two
// recordings are compared (timeline-compare.ts). Prints "same" or the differences per scenario.
// `--self-check` runs the kubelet on both nodes: it must print "same" everywhere, which is how
// the tolerances are set. See docs/conformance.md ("Differential suite").
//
//   npm run differential [-- --self-check] [-- --scenario a,b] [-- --list] [-- --keep] [-- --out FILE]
//
// Root only. The control plane of PROBELET_CP_DIR (default /tmp/probelet-cp-differential) is used
// when it runs, else started (and stopped at the end); the nodes' run directories are
// /tmp/probelet-{anchor,cri}-differential*. Everything the run starts is stopped at the end, also
// on failure or Ctrl-C, unless --keep.
import { get } from "node:http";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { RestClient } from "../../src/client/rest-client.js";
import { loadKubeconfig } from "../../src/cluster/kubeconfig.js";
import { systemClock } from "../../src/util/clock.js";
import { anchorUnavailable } from "../cluster/kubelet-anchor.js";
import { probeletNodeName, startKubeletNode, startProbeletNode, useControlPlane, type PairedNode } from "../cluster/paired-nodes.js";
import type { JsonObject } from "./normalize.js";
import { NamespaceRecorder } from "./recorder.js";
import { AGENT_DOWN, AGENT_KILL_AFTER, AGENT_KILL_AT, SCENARIOS, type Scenario } from "./scenarios.js";
import { compareRecordings, DEFAULT_TOLERANCES, differenceKind, type Recording } from "./timeline-compare.js";

/** STAGGER_MS spaces the scenarios' creations, so sandboxes are not all made in the same second. */
const STAGGER_MS = 1000;
/**
 * MAX_CONCURRENT scenarios run at once (twice as many pods: one per node). With all 30 at once on
 * 2 shared cores the load average reached 66 and two kubelets differed by seconds on when they
 * first wrote a status; 6 keeps both nodes' timelines comparable.
 */
const MAX_CONCURRENT = 6;
/** An http-get action waits this long past its time for the pod's IP. */
const ACTION_IP_WAIT_MS = 20_000;
const PROBELET_NODE = "probelet-diff";

interface Options {
  selfCheck: boolean;
  scenarios: Scenario[];
  keep: boolean;
  out: string;
}

function parseOptions(): Options | "list" {
  const { values } = parseArgs({
    options: {
      "self-check": { type: "boolean", default: false },
      scenario: { type: "string" },
      list: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      out: { type: "string" },
    },
  });
  if (values.list) return "list";
  const wanted = values.scenario?.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = wanted?.filter((w) => !SCENARIOS.some((s) => s.name === w)) ?? [];
  if (unknown.length > 0) throw new Error(`--scenario: Unsupported value: "${unknown[0]}": supported values: ${SCENARIOS.map((s) => `"${s.name}"`).join(", ")}`);
  return {
    selfCheck: values["self-check"] ?? false,
    scenarios: wanted === undefined ? [...SCENARIOS] : SCENARIOS.filter((s) => wanted.includes(s.name)),
    keep: values.keep ?? false,
    out: values.out ?? `/tmp/probelet-differential-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
  };
}

/** Cleanup is what the run must undo, newest first. */
const cleanups: (() => Promise<void>)[] = [];

function log(message: string): void {
  process.stderr.write(`differential: ${message}\n`);
}

/** podObject is a scenario's pod for one node. */
function podObject(scenario: Scenario, namespace: string, node: string): JsonObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: scenario.name, namespace, labels: { "probelet.dev/differential": scenario.name } }, spec: { ...scenario.spec, nodeName: node } };
}

/** httpGet fetches a URL from the host, bounded to 3 s; failures are logged, not thrown. */
function httpGet(url: string): Promise<void> {
  return new Promise((resolve) => {
    const req = get(url, { timeout: 3000 }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (err) => {
      log(`GET ${url}: ${err.message}`);
      resolve();
    });
  });
}

interface Side {
  node: PairedNode;
  namespace: string;
  recorder: NamespaceRecorder;
}

/** runScenario creates the scenario's pod on both sides at once, does its actions, and waits out its window; returns its t0. */
async function runScenario(client: RestClient, scenario: Scenario, sides: readonly Side[]): Promise<number> {
  const t0 = performance.now();
  await Promise.all(sides.map((s) => client.request("POST", `/api/v1/namespaces/${s.namespace}/pods`, { body: podObject(scenario, s.namespace, s.node.nodeName) })));
  const actions = (scenario.actions ?? []).map(async (a) => {
    await delay(Math.max(0, t0 + a.at * 1000 - performance.now()));
    await Promise.all(sides.map(async (s) => {
      if (a.action === "delete") {
        await client.request("DELETE", `/api/v1/namespaces/${s.namespace}/pods/${scenario.name}`).catch((err: unknown) => log(`delete ${scenario.name}: ${String(err)}`));
      } else {
        const deadline = performance.now() + ACTION_IP_WAIT_MS;
        let ip: unknown;
        while ((typeof ip !== "string" || ip === "") && performance.now() < deadline) {
          ip = (s.recorder.lastPod(scenario.name)?.["status"] as JsonObject | undefined)?.["podIP"];
          if (typeof ip !== "string" || ip === "") await delay(200);
        }
        if (typeof ip === "string" && ip !== "") await httpGet(`http://${ip}:${a.port}${a.path}`);
        else log(`${scenario.name} on ${s.node.label}: no pod IP for ${a.path} within ${ACTION_IP_WAIT_MS / 1000} s of ${a.at} s`);
      }
    }));
  });
  await Promise.all(actions);
  await delay(Math.max(0, t0 + scenario.windowSeconds * 1000 - performance.now()));
  return t0;
}

/**
 * runPhase runs scenarios at most `concurrency` at a time, each start STAGGER_MS after the one
 * before, the longest first; `during` runs beside them from the phase's start. Returns each
 * scenario's t0.
 */
async function runPhase(client: RestClient, scenarios: readonly Scenario[], sides: readonly Side[], concurrency: number, during?: (phaseStart: number) => Promise<void>): Promise<Map<string, number>> {
  const phaseStart = performance.now();
  const starts = new Map<string, number>();
  const queue = [...scenarios].sort((x, y) => y.windowSeconds - x.windowSeconds);
  let lastStart = -Infinity;
  const lane = async (): Promise<void> => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
      const wait = lastStart + STAGGER_MS - performance.now();
      lastStart = Math.max(performance.now(), lastStart + STAGGER_MS);
      if (wait > 0) await delay(wait);
      starts.set(scenario.name, await runScenario(client, scenario, sides));
    }
  };
  await Promise.all([...Array.from({ length: Math.min(concurrency, scenarios.length) }, lane), during?.(phaseStart)]);
  return starts;
}

/** everyContainerStarted: each container of the pod has run at least once (running, or terminated now or last). */
function everyContainerStarted(pod: JsonObject | undefined): boolean {
  const status = pod?.["status"] as { containerStatuses?: { state?: JsonObject; lastState?: JsonObject }[] } | undefined;
  const list = status?.containerStatuses ?? [];
  return list.length > 0 && list.every((c) => c.state?.["running"] !== undefined || c.state?.["terminated"] !== undefined || c.lastState?.["terminated"] !== undefined);
}

/** waitStarted waits until every container of the scenarios' pods has started on every side; false after timeoutMs. */
async function waitStarted(scenarios: readonly Scenario[], sides: readonly Side[], timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (scenarios.every((sc) => sides.every((s) => everyContainerStarted(s.recorder.lastPod(sc.name))))) return true;
    await delay(250);
  }
  return false;
}

async function namespaceReady(client: RestClient, namespace: string): Promise<void> {
  await client.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
  cleanups.push(async () => {
    // Pods of a node that is gone would wait for it: remove them at once, then the namespace.
    await client.request("DELETE", `/api/v1/namespaces/${namespace}/pods`, { body: { gracePeriodSeconds: 0 } }).catch(() => undefined);
    await client.request("DELETE", `/api/v1/namespaces/${namespace}`).catch(() => undefined);
  });
  // ServiceAccount admission refuses pods until the namespace's default ServiceAccount exists.
  for (let i = 0; i < 100; i++) {
    const got = await client.request("GET", `/api/v1/namespaces/${namespace}/serviceaccounts/default`).then(() => true, () => false);
    if (got) return;
    await delay(200);
  }
  throw new Error(`no default ServiceAccount in ${namespace} after 20 s`);
}

async function main(): Promise<number> {
  const options = parseOptions();
  if (options === "list") {
    for (const s of SCENARIOS) process.stdout.write(`${s.name.padEnd(26)} ${String(s.windowSeconds).padStart(3)} s  ${s.phase === "agent-restart" ? "[agent restart] " : ""}${s.covers}\n`);
    return 0;
  }
  const unavailable = anchorUnavailable();
  if (unavailable) {
    log(`cannot run: ${unavailable}`);
    return 2;
  }
  const t0 = Date.now();
  const plane = useControlPlane("/tmp/probelet-cp-differential", [PROBELET_NODE]);
  cleanups.push(async () => plane.stop());
  const cp = plane.env;
  log(`${plane.started ? "started a" : "using the"} control plane in ${cp.dir}`);
  const anchorDir = (suffix: string): string => `/tmp/probelet-anchor-differential${suffix}`;
  const a = await startKubeletNode("kubelet", cp, { cpDir: cp.dir, dir: anchorDir(""), node: "kubelet-diff", subnet: "10.244.90.0/24" });
  cleanups.push(() => a.stop());
  let b: PairedNode;
  if (options.selfCheck) {
    b = await startKubeletNode("kubelet-b", cp, { cpDir: cp.dir, dir: anchorDir("-b"), node: "kubelet-diff-b", subnet: "10.244.91.0/24" });
  } else {
    b = await startProbeletNode("probelet", cp, { criDir: "/tmp/probelet-cri-differential", node: probeletNodeName(cp, PROBELET_NODE), subnet: "10.244.91.0/24" });
  }
  cleanups.push(() => b.stop());
  log(`nodes ${a.nodeName} (${a.label}) and ${b.nodeName} (${b.label}) Ready after ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const client = new RestClient({ credentials: await loadKubeconfig(cp.adminKubeconfig), clock: systemClock, userAgent: "probelet-differential" });
  cleanups.push(async () => client.close());
  const run = randomBytes(3).toString("hex");
  const sides: Side[] = [];
  for (const [node, letter] of [[a, "a"], [b, "b"]] as const) {
    const namespace = `diff-${run}-${letter}`;
    await namespaceReady(client, namespace);
    const recorder = new NamespaceRecorder(client, { namespace, node: node.nodeName, uids: new Set() });
    await recorder.start();
    cleanups.push(() => recorder.stop());
    sides.push({ node, namespace, recorder });
  }

  const load = loadavg()[0]!.toFixed(1);
  const podsPhase = options.scenarios.filter((s) => s.phase === "pods");
  const restartPhase = options.scenarios.filter((s) => s.phase === "agent-restart");
  log(`running ${podsPhase.length} scenarios together (load average ${load})`);
  const starts = await runPhase(client, podsPhase, sides, MAX_CONCURRENT);
  if (restartPhase.length > 0) {
    log(`running ${restartPhase.length} scenarios with an agent restart (kill -9 ${AGENT_KILL_AFTER} s after their containers started, start again ${AGENT_DOWN} s later)`);
    // All at once: every pod must be running when the agents are killed.
    const restartStarts = await runPhase(client, restartPhase, sides, restartPhase.length, async (phaseStart) => {
      await delay(AGENT_KILL_AT * 1000);
      const started = await waitStarted(restartPhase, sides, 90_000);
      if (!started) log("not every container of the agent-restart pods started within 90 s: killing the agents anyway");
      await delay(AGENT_KILL_AFTER * 1000);
      log(`kill -9 of both agents at ${((performance.now() - phaseStart) / 1000).toFixed(1)} s into the phase`);
      await Promise.all(sides.map((s) => s.node.kill9()));
      await delay(AGENT_DOWN * 1000);
      await Promise.all(sides.map((s) => s.node.restart()));
    });
    for (const [k, v] of restartStarts) starts.set(k, v);
  }
  const loadAfter = loadavg()[0]!.toFixed(1);

  const names = [a.label, b.label] as const;
  const report: { scenario: string; differences: string[]; recordings: Recording[] }[] = [];
  let different = 0;
  process.stdout.write(`differential: ${a.label} (${a.nodeName}) vs ${b.label} (${b.nodeName}), CRI runtime, load average ${load} → ${loadAfter}\n`);
  for (const scenario of options.scenarios) {
    const start = starts.get(scenario.name)!;
    const recordings = sides.map((s) => s.recorder.recording(scenario.name, start, scenario.windowSeconds * 1000));
    const differences = compareRecordings(names, recordings[0]!, recordings[1]!, { ...DEFAULT_TOLERANCES, sequence: scenario.loose === undefined });
    report.push({ scenario: scenario.name, differences, recordings });
    if (differences.length === 0) {
      process.stdout.write(`${scenario.name}: same\n`);
    } else {
      different++;
      process.stdout.write(`${scenario.name}: ${differences.length} difference${differences.length === 1 ? "" : "s"}\n${differences.map((d) => `  - ${d}\n`).join("")}`);
    }
  }
  const kinds = new Map<string, Set<string>>();
  for (const r of report) for (const d of r.differences) kinds.set(differenceKind(d), (kinds.get(differenceKind(d)) ?? new Set()).add(r.scenario));
  const shared = [...kinds].filter(([, scenarios]) => scenarios.size > 1).sort((x, y) => y[1].size - x[1].size);
  if (shared.length > 0) {
    process.stdout.write("differences seen in more than one scenario:\n");
    for (const [kind, scenarios] of shared) process.stdout.write(`  ${String(scenarios.size).padStart(2)} × ${kind.length > 300 ? `${kind.slice(0, 300)}…` : kind}\n`);
  }
  for (const s of sides) for (const e of s.recorder.errors) process.stdout.write(`recorder (${s.node.label}): ${e}\n`);
  process.stdout.write(`${options.scenarios.length - different} of ${options.scenarios.length} scenarios the same (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  writeFileSync(options.out, JSON.stringify({ nodes: names, load: [load, loadAfter], tolerances: DEFAULT_TOLERANCES, report }, null, 1), { mode: 0o600 });
  log(`recordings in ${options.out}`);
  if (options.keep) {
    log("--keep: leaving the nodes and the control plane running");
    cleanups.length = 0;
  }
  return different === 0 ? 0 : 1;
}

async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const step = cleanups.pop()!;
    await step().catch((err: unknown) => log(`cleanup: ${err instanceof Error ? err.message : String(err)}`));
  }
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping what the run started`);
    void cleanup().then(() => process.exit(130));
  });
}

main().then(
  async (code) => {
    await cleanup();
    process.exitCode = code;
  },
  async (err: unknown) => {
    log(err instanceof Error ? err.message : String(err));
    await cleanup();
    process.exitCode = 2;
  },
);
