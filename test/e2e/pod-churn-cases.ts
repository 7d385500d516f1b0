// Pod churn (PRODUCT.md quality bar "no file descriptor or memory growth under churn"): rounds of
// pods with all three probe kinds are created, probed until Ready and deleted again; afterwards the
// agent's process holds no more descriptors than after a warm-up round, no probe metric series of
// a deleted pod is left, a container GC leaves the state directory as it was, and (checked by the
// harness) no container process or sandbox remains.
// With them, the container GC (kubelet kuberuntime_gc.go) on a real crash loop. Titled
// `[<runtime>] Pod churn …` and `[<runtime>] Container GC …` for every runtime factory.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { LABEL_POD_UID } from "../../src/kuberuntime/labels.js";
import type { Container, Pod } from "../../src/api/types.js";
import { startHttpServer, type TestServer } from "../servers/http-servers.js";
import { E2eEnv, isPodReady, NAMESPACE } from "./harness.js";
import { podWith } from "./pod-specs.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

const PODS_PER_ROUND = 10;
const ROUNDS = 3;
/** Descriptors that may legitimately come and go between two quiet moments (timers, a lazy pipe). */
const FD_SLACK = 3;
const READY_WAIT_MS = 30_000;
const GONE_WAIT_MS = 30_000;

/** openDescriptors counts this process's open file descriptors (Linux /proc). */
function openDescriptors(): number {
  return readdirSync("/proc/self/fd").length;
}

/** filesUnder counts the files below a directory (the agent's state: statuses, logs, records). */
function filesUnder(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  } catch {
    return 0;
  }
}

/** churnPod: a pause container with a startup exec, a readiness httpGet and a liveness tcpSocket probe. */
function churnPod(env: E2eEnv, target: TestServer): Pod {
  const every = { periodSeconds: 1, timeoutSeconds: 1 };
  const container: Container = {
    name: "app",
    ...env.kit.agnhost("pause"),
    startupProbe: { exec: { command: ["true"] }, ...every, failureThreshold: 30 },
    readinessProbe: { httpGet: { host: "127.0.0.1", port: target.port, path: "/ready" }, ...every },
    livenessProbe: { tcpSocket: { host: "127.0.0.1", port: target.port }, ...every },
  };
  return podWith(env.kit, "container", "churn", container);
}

/** oneRound creates `count` pods, waits until all are Ready, deletes them and waits until all are gone. */
async function oneRound(env: E2eEnv, target: TestServer, count: number): Promise<void> {
  const names = Array.from({ length: count }, () => env.create(churnPod(env, target)).metadata.name!);
  await Promise.all(names.map((name) => env.waitFor(name, "the pod to be Ready", READY_WAIT_MS, (p) => (isPodReady(p) ? true : undefined))));
  for (const name of names) env.agent.deletePod(NAMESPACE, name);
  await Promise.all(names.map((name) => env.waitFor(name, "the pod to be gone", GONE_WAIT_MS, (p) => (p === undefined ? true : undefined))));
}

/** seriesOfPods lists the prober_probe_total lines that name one of the given pods. */
async function seriesOfPods(env: E2eEnv, prefix: string): Promise<string[]> {
  return (await env.agent.probeMetrics()).split("\n").filter((line) => line.startsWith("prober_probe_total{") && line.includes(`pod="${prefix}`));
}

/** readAll collects a log stream into one string. */
async function readAll(lines: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const chunk of lines) text += chunk;
  return text;
}

/** registerPodChurnCase declares the churn tests for one runtime (call inside a describe). */
export function registerPodChurnCase(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] Container GC: a crash-looping container is collected down to its newest dead instance, with its log`, { timeout: 120_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory, { backoff: { initialMs: 200, maxMs: 400 } });
    const container: Container = { name: "crasher", ...env.kit.bash("echo crasher-output; exit 3") };
    const name = env.create(podWith(env.kit, "container", "crashloop", container)).metadata.name!;
    const restarts = (p: Pod | undefined): number => p?.status?.containerStatuses?.[0]?.restartCount ?? 0;
    await env.waitFor(name, "4 restarts", 60_000, (p) => (restarts(p) >= 4 ? true : undefined));
    const uid = env.get(name)!.metadata.uid!;
    const instances = async () => (await env.runtime.listContainers()).filter((c) => c.labels[LABEL_POD_UID] === uid);
    const before = await instances();
    assert.ok(before.length >= 4, `the runtime holds ${before.length} instances before the collection`);

    const collected = await env.agent.collectGarbage();
    const after = await instances();
    t.diagnostic(`instances: ${before.length} before, ${after.length} after (${JSON.stringify(collected)})`);
    // Kept: the newest dead instance, and at most a newer one that is running or starting.
    assert.ok(after.length >= 1 && after.length <= 2, `instances left: ${after.map((c) => `#${c.attempt} ${c.state}`).join(", ")}`);
    const newest = Math.max(...before.map((c) => c.attempt));
    assert.ok(after.some((c) => c.attempt >= newest - 1));
    for (const c of before) assert.equal(existsSync(c.logPath), after.some((a) => a.id === c.id), `log file of attempt ${c.attempt}`);
    // `logs --previous` reads lastState's container. The status may still name one the collection
    // just removed (it lags the runtime by up to a relist, as the kubelet's does); the next sync
    // moves it to the newest dead instance, which was kept.
    let previous = "";
    for (let i = 0; i < 50 && previous === ""; i++) {
      previous = await readAll(env.agent.readLogs({ namespace: NAMESPACE, name, previous: true })).catch(() => "");
      if (previous === "") await sleep(100);
    }
    assert.match(previous, /crasher-output/);
    const count = restarts(env.get(name));
    await env.waitFor(name, "another restart", 30_000, (p) => (restarts(p) > count ? true : undefined));
  });

  const skip = factory.available() ?? (process.platform === "linux" ? undefined : "counting descriptors needs Linux /proc");
  const title = `[${factory.name}] Pod churn: ${ROUNDS} rounds of ${PODS_PER_ROUND} probed pods leave no descriptors, metric series, files or processes behind`;
  test(title, { timeout: 240_000, ...(skip !== undefined ? { skip } : {}) }, async (t) => {
    const target = await startHttpServer((_req, res) => res.end("ok"));
    t.after(() => target.close());
    const env = await E2eEnv.start(t, factory);

    // Warm-up: the first pods start what lives as long as the agent (exec helper, runtime client).
    await oneRound(env, target, 2);
    await sleep(500);
    const stateDir = join(env.dir, "state");
    // What the kubelet's container GC removes a minute later at most: the gone pods' log directories.
    await env.agent.collectGarbage();
    const baseline = openDescriptors();
    const filesBaseline = filesUnder(stateDir);

    const perRound: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await oneRound(env, target, PODS_PER_ROUND);
      perRound.push(openDescriptors());
    }
    // Probe sockets the targets closed last may still be closing on our side.
    let after = openDescriptors();
    for (let i = 0; i < 20 && after > baseline + FD_SLACK; i++) {
      await sleep(100);
      after = openDescriptors();
    }
    t.diagnostic(`open descriptors: ${baseline} after the warm-up, ${perRound.join(" → ")} after each round, ${after} at the end`);
    assert.ok(after <= baseline + FD_SLACK, `descriptors grew from ${baseline} to ${after} over ${ROUNDS * PODS_PER_ROUND} pods (after each round: ${perRound.join(", ")})`);
    const filesBefore = filesUnder(stateDir);
    const collected = await env.agent.collectGarbage();
    const filesAfter = filesUnder(stateDir);
    t.diagnostic(`files in the state directory: ${filesBaseline} after the warm-up, ${filesBefore} after the rounds, ${filesAfter} after a container GC (${JSON.stringify(collected)})`);
    assert.equal(filesAfter, filesBaseline, `files left in the state directory: ${readdirSync(stateDir, { recursive: true }).join(" ")}`);
    assert.deepEqual(await seriesOfPods(env, "churn-"), [], "probe metric series of deleted pods are left");
    assert.equal(env.agent.listPods(NAMESPACE).length, 0, "pods are left in the agent");
  });
}
