// Workers whose tcpSocket probe stands on the native engine (standing-workers.ts): the kubelet's
// per-probe rules must hold as if the worker probed every tick itself. Real loopback servers, the
// real clock and the real status manager.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Pod, PodStatus, Probe } from "../api/types.js";
import { waitFor } from "../../test/fixtures.js";
import { nativeSkipReason } from "../../test/probe-engines.js";
import { startTcpServer, type TcpTestServer } from "../../test/servers/tcp-server.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { nativeEngine, useProbeEngine } from "../probe/probe-engine.js";
import { systemClock } from "../util/clock.js";
import { StatusManager } from "../status/status-manager.js";
import { MemoryEventRecorder } from "./event-recorder.js";
import { ProbeManager, type ProbeManagerOptions } from "./manager.js";
import { Prober } from "./prober.js";
import type { ProbeType } from "./probe-type.js";
import type { ProbeRecord } from "./worker.js";

const UID = "standing-uid";
const runner: CommandRunner = { runInContainer: () => Promise.reject(new Error("no exec probes here")) };

function tcpPod(probeType: ProbeType, port: number): Pod {
  const probe: Probe = { tcpSocket: { host: "127.0.0.1", port }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1 };
  const field = probeType === "liveness" ? "livenessProbe" : probeType === "readiness" ? "readinessProbe" : "startupProbe";
  return { metadata: { name: "standing", namespace: "default", uid: UID }, spec: { restartPolicy: "Always", containers: [{ name: "c", [field]: probe }] } };
}

function status(running: boolean): PodStatus {
  const state = running ? { running: { startedAt: new Date(Date.now() - 60_000).toISOString() } } : { terminated: { exitCode: 1, reason: "Error" } };
  return { phase: "Running", podIP: "127.0.0.1", containerStatuses: [{ name: "c", containerID: "test://c1", state, ready: false, restartCount: 0, started: running }] };
}

interface Env {
  manager: ProbeManager;
  statuses: StatusManager;
  pod: Pod;
  records: ProbeRecord[];
  recorder: MemoryEventRecorder;
}

/** start runs one worker of `probeType` against the server, its first probe at once. */
function start(probeType: ProbeType, port: number, extra: Partial<ProbeManagerOptions> = {}): Env {
  const pod = tcpPod(probeType, port);
  const statuses = new StatusManager({ clock: systemClock, podLookup: { getPodByUid: () => pod } });
  statuses.setPodStatus(pod, status(true));
  const records: ProbeRecord[] = [];
  const recorder = new MemoryEventRecorder();
  const manager = new ProbeManager({ statusProvider: statuses, runner, recorder, random: () => 0, onProbe: (_w, r) => records.push(r), ...extra });
  manager.addPod(pod);
  return { manager, statuses, pod, records, recorder };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const nativeMissing = nativeSkipReason();

describe("standing probes", { skip: nativeMissing }, () => {
  let server: TcpTestServer;
  before(async () => {
    useProbeEngine("native");
    server = await startTcpServer();
  });
  after(() => server.close());

  test("a tcpSocket worker in a steady Success stands, and each probe still reaches onProbe on the period's grid", async (t) => {
    const env = start("readiness", server.port);
    t.after(() => env.manager.close());
    await waitFor("the worker to stand", () => env.manager.standingCount() === 1, 3000);
    await waitFor("four probes", () => env.records.length >= 4, 6000);
    assert.equal(env.manager.readinessManager.get("test://c1"), "Success");
    for (let i = 1; i < 4; i++) {
      const gap = env.records[i]!.startedAt - env.records[i - 1]!.startedAt;
      // About one period apart: a probe that started late (a loaded machine) makes the next gap
      // shorter, since the grid does not move.
      assert.ok(gap >= 900 && gap < 1150, `probes ${i - 1} and ${i} started ${gap.toFixed(1)} ms apart`);
      const r = env.records[i]!;
      assert.deepEqual([r.result, r.outcome, r.resultRun, r.threshold], ["Success", { result: "success", output: "" }, i + 1, 1]);
      assert.ok(r.durationMs >= 0 && r.durationMs < 1000);
      // The wall time is when the probe finished, not when its batch arrived.
      const wallOffset = Date.now() - performance.now();
      assert.ok(Math.abs(r.time - (r.startedAt + r.durationMs) - wallOffset) < 50, "the record's wall time is the probe's end");
    }
    // On the grid: three periods from the first probe to the fourth, no drift accumulated.
    const span = env.records[3]!.startedAt - env.records[0]!.startedAt;
    assert.ok(span >= 2900 && span < 3150, `probes 0 and 3 started ${span.toFixed(1)} ms apart`);
  });

  test("a change of the pod's status takes the ticker back: a stopped container gets Failure at the next tick, undialled", async (t) => {
    const env = start("readiness", server.port);
    t.after(() => env.manager.close());
    await waitFor("the worker to stand", () => env.manager.standingCount() === 1, 3000);
    const changedAt = performance.now();
    env.statuses.setPodStatus(env.pod, status(false));
    await waitFor("the ticker to come back", () => env.manager.standingCount() === 0, 2000);
    await waitFor("the readiness Failure", () => env.manager.readinessManager.get("test://c1") === "Failure", 3000);
    assert.ok(performance.now() - changedAt < 1500, "within a period");
    const dials = server.accepted;
    await sleep(1200);
    assert.equal(server.accepted, dials, "a container that is not running is not probed");
    assert.equal(env.manager.standingCount(), 0);
  });

  test("a failure ends the standing probe at once: the liveness Failure and its event carry Go's dial text", async (t) => {
    const own = await startTcpServer();
    const env = start("liveness", own.port);
    t.after(() => env.manager.close());
    await waitFor("the worker to stand", () => env.manager.standingCount() === 1, 3000);
    await own.close();
    await waitFor("the liveness Failure", () => env.manager.livenessManager.get("test://c1") === "Failure", 3000);
    assert.equal(env.manager.standingCount(), 0);
    const text = `dial tcp 127.0.0.1:${own.port}: connect: connection refused`;
    assert.deepEqual(env.recorder.strings(), [`Warning Unhealthy Liveness probe failed: ${text}`]);
    assert.deepEqual([env.records.at(-1)!.result, env.records.at(-1)!.outcome?.output], ["Failure", text]);
  });

  test("a manual trigger of a standing worker probes at once, then it stands again", async (t) => {
    const env = start("readiness", server.port);
    t.after(() => env.manager.close());
    await waitFor("the worker to stand", () => env.manager.standingCount() === 1, 3000);
    await waitFor("a standing probe", () => env.records.length >= 2, 3000);
    const worker = env.manager.getWorker(UID, "c", "readiness")!;
    const triggeredAt = performance.now();
    assert.equal(worker.manualTrigger(), true);
    const before = env.records.length;
    await waitFor("the triggered probe", () => env.records.length > before, 2000);
    const triggered = env.records[before]!;
    assert.ok(triggered.startedAt - triggeredAt < 300, `the triggered probe started ${(triggered.startedAt - triggeredAt).toFixed(0)} ms after the trigger`);
    await waitFor("the worker to stand again", () => env.manager.standingCount() === 1, 3000);
  });

  test("close() ends standing workers and resolves; the engine keeps no standing probe", async () => {
    const env = start("readiness", server.port);
    await waitFor("the worker to stand", () => env.manager.standingCount() === 1, 3000);
    await env.manager.close();
    assert.equal(env.manager.workerCount(), 0);
    assert.equal(env.manager.standingCount(), 0);
    assert.equal(nativeEngine()!.standingCount(), 0);
  });

  test("close() finishes in a process where nothing else keeps the event loop alive", async () => {
    // The child stops its server's listening handle before closing: only the end of the standing
    // probe, which the engine delivers, can carry close() to its end.
    const dist = (name: string): string => JSON.stringify(new URL(name, import.meta.url).href);
    const script = `
      import { createServer } from "node:net";
      import { ProbeManager } from ${dist("./manager.js")};
      import { StatusManager } from ${dist("../status/status-manager.js")};
      import { systemClock } from ${dist("../util/clock.js")};
      const server = createServer((c) => c.end());
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      const pod = { metadata: { name: "p", namespace: "default", uid: "u" }, spec: { restartPolicy: "Always", containers: [{ name: "c",
        readinessProbe: { tcpSocket: { host: "127.0.0.1", port: server.address().port }, periodSeconds: 1, timeoutSeconds: 1 } }] } };
      const statuses = new StatusManager({ clock: systemClock, podLookup: { getPodByUid: () => pod } });
      statuses.setPodStatus(pod, { phase: "Running", podIP: "127.0.0.1", containerStatuses: [{ name: "c", containerID: "test://c", ready: false, restartCount: 0, started: true, state: { running: { startedAt: new Date().toISOString() } } }] });
      const manager = new ProbeManager({ statusProvider: statuses, runner: {}, random: () => 0 });
      manager.addPod(pod);
      for (let i = 0; i < 300 && manager.standingCount() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      server.close();
      server.unref();
      const stood = manager.standingCount();
      await manager.close();
      process.stdout.write("closed " + stood + " " + manager.standingCount());`;
    const { execFile } = await import("node:child_process");
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 20_000 }, (err, stdout) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }));
      child.stdin?.end();
    });
    assert.deepEqual(out, { code: 0, stdout: "closed 1 0" });
  });

  test("no worker stands when told not to, with a status provider it cannot watch, or with a prober it was given", async (t) => {
    const unwatched = { getPodStatus: (): PodStatus => status(true) };
    const envs = [
      start("readiness", server.port, { standingProbes: false }),
      start("readiness", server.port, { statusProvider: unwatched }),
      start("readiness", server.port, { prober: new Prober({ runner, recorder: new MemoryEventRecorder() }) }),
    ];
    t.after(() => Promise.all(envs.map((e) => e.manager.close())));
    await waitFor("two probes each", () => envs.every((e) => e.records.length >= 2), 4000);
    assert.deepEqual(envs.map((e) => e.manager.standingCount()), [0, 0, 0]);
  });
});
