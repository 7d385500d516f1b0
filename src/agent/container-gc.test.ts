// Container garbage collection (kubelet kuberuntime_gc.go, default policy: one dead container kept
// per container of a live pod, nothing kept of a gone pod), on a fake runtime with real log files.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { silentLogger } from "../util/logger.js";
import { collectContainerGarbage, type GcReport } from "./container-gc.js";
import { LABEL_AGENT } from "./agent-id.js";
import { LABEL_POD_UID } from "./pod-sync.js";

/** AGENT is the collecting agent's owner label value. */
const AGENT = "agent-under-test";

/** Instance is one container attempt to set up: its state after setup. */
type Instance = "running" | "exited" | "created";

/** PodSetup is a pod in the runtime before a collection: its sandbox state and containers by name. */
interface PodSetup {
  uid: string;
  known: boolean;
  /** The owner label of its sandbox and containers; default AGENT. */
  agent?: string;
  sandbox?: "ready" | "notready";
  /** Older sandboxes (not ready, empty) left from earlier attempts. */
  staleSandboxes?: number;
  containers: Record<string, Instance[]>;
}

interface World {
  runtime: FakeRuntime;
  logRoot: string;
  /** Container IDs by "<uid>/<name>#<attempt>". */
  ids: Map<string, string>;
}

async function build(logRoot: string, pods: PodSetup[], unlabelled = 0): Promise<World> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const ids = new Map<string, string>();
  for (const pod of pods) {
    const labels = { [LABEL_POD_UID]: pod.uid, [LABEL_AGENT]: pod.agent ?? AGENT };
    const logDirectory = join(logRoot, `ns_${pod.uid}-name_${pod.uid}`);
    const config = { podUid: pod.uid, name: `${pod.uid}-name`, namespace: "ns", hostNetwork: false, logDirectory, labels, annotations: {} };
    for (let attempt = 0; attempt < (pod.staleSandboxes ?? 0); attempt++) {
      const stale = await runtime.runPodSandbox({ ...config, attempt });
      runtime.sandboxes.get(stale)!.state = "notready";
      await clock.advance(1);
    }
    const sandbox = await runtime.runPodSandbox({ ...config, attempt: pod.staleSandboxes ?? 0 });
    for (const [name, instances] of Object.entries(pod.containers)) {
      for (const [attempt, state] of instances.entries()) {
        const logPath = `${name}/${attempt}.log`;
        const id = await runtime.createContainer(sandbox, { name, attempt, image: "", command: [], args: [], envs: [], labels, annotations: {}, logPath }, { ...config, attempt: 0 });
        await mkdir(join(logDirectory, name), { recursive: true });
        await writeFile(join(logDirectory, logPath), "log\n");
        // Rotated files of the log (container_log_manager.go names): they go with it.
        await writeFile(join(logDirectory, `${logPath}.20260101-000000.gz`), "");
        await writeFile(join(logDirectory, `${logPath}.20260101-000100`), "log\n");
        if (state !== "created") await runtime.startContainer(id);
        if (state === "exited") runtime.exit(id, 1);
        ids.set(`${pod.uid}/${name}#${attempt}`, id);
        await clock.advance(1);
      }
    }
    if (pod.sandbox === "notready") runtime.sandboxes.get(sandbox)!.state = "notready";
  }
  for (let i = 0; i < unlabelled; i++) {
    const sandbox = await runtime.runPodSandbox({ podUid: "", name: "foreign", namespace: "ns", attempt: 0, hostNetwork: false, logDirectory: "", labels: {}, annotations: {} });
    const id = await runtime.createContainer(sandbox, { name: "foreign", attempt: 0, image: "", command: [], args: [], envs: [], labels: {}, annotations: {}, logPath: "" }, { podUid: "", name: "foreign", namespace: "ns", attempt: 0, hostNetwork: false, logDirectory: "", labels: {}, annotations: {} });
    await runtime.startContainer(id);
    runtime.exit(id, 0);
    ids.set(`foreign#${i}`, id);
  }
  return { runtime, logRoot, ids };
}

describe("collectContainerGarbage", () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "probelet-gc-"));
  });
  after(() => rm(root, { recursive: true, force: true }));

  const cases: Array<{
    name: string;
    pods: PodSetup[];
    unlabelled?: number;
    /** Containers left afterwards, as "<uid>/<name>#<attempt>" (plus "foreign#i"). */
    left: string[];
    report: GcReport;
    /** Pods whose log directory is gone afterwards. */
    logDirsGone?: string[];
  }> = [
    {
      name: "a crash-looping container keeps its running instance and the newest dead one",
      pods: [{ uid: "a", known: true, containers: { app: ["exited", "exited", "exited", "exited", "running"] } }],
      left: ["a/app#3", "a/app#4"],
      report: { containers: 3, sandboxes: 0, logDirectories: 0 },
    },
    {
      name: "a container waiting out its back-off keeps only its newest (exited) instance",
      pods: [{ uid: "a", known: true, containers: { app: ["exited", "exited", "exited"] } }],
      left: ["a/app#2"],
      report: { containers: 2, sandboxes: 0, logDirectories: 0 },
    },
    {
      name: "each container of a pod is its own unit; created counts as dead, running never does",
      pods: [{ uid: "a", known: true, containers: { app: ["exited", "exited", "running"], side: ["exited", "created"], ok: ["running"] } }],
      left: ["a/app#1", "a/app#2", "a/side#1", "a/ok#0"],
      report: { containers: 2, sandboxes: 0, logDirectories: 0 },
    },
    {
      name: "a gone pod loses every dead container, its idle sandbox and its log directory",
      pods: [
        { uid: "gone", known: false, sandbox: "notready", containers: { app: ["exited", "exited"] } },
        { uid: "live", known: true, containers: { app: ["exited", "running"] } },
      ],
      left: ["live/app#0", "live/app#1"],
      report: { containers: 2, sandboxes: 1, logDirectories: 1 },
      logDirsGone: ["gone"],
    },
    {
      name: "a gone pod's running container and the sandbox holding it stay (its log directory does not)",
      pods: [{ uid: "gone", known: false, sandbox: "notready", containers: { app: ["exited", "running"] } }],
      left: ["gone/app#1"],
      report: { containers: 1, sandboxes: 0, logDirectories: 1 },
      logDirsGone: ["gone"],
    },
    {
      name: "a live pod keeps its newest sandbox; older idle ones go",
      pods: [{ uid: "a", known: true, staleSandboxes: 2, sandbox: "notready", containers: {} }],
      left: [],
      report: { containers: 0, sandboxes: 2, logDirectories: 0 },
    },
    {
      // (A log directory under this agent's own log root still goes, as for any pod it does not have.)
      name: "another agent's dead containers and idle sandboxes in a shared runtime are left alone",
      pods: [{ uid: "theirs", known: false, agent: "another-agent", sandbox: "notready", staleSandboxes: 1, containers: { app: ["exited", "exited", "exited"] } }],
      left: ["theirs/app#0", "theirs/app#1", "theirs/app#2"],
      report: { containers: 0, sandboxes: 0, logDirectories: 1 },
      logDirsGone: ["theirs"],
    },
    {
      name: "containers without the agent's pod UID label are not the agent's to remove",
      pods: [],
      unlabelled: 2,
      left: ["foreign#0", "foreign#1"],
      report: { containers: 0, sandboxes: 0, logDirectories: 0 },
    },
  ];

  for (const [i, c] of cases.entries()) {
    test(c.name, async () => {
      const logRoot = join(root, `case${i}`);
      const world = await build(logRoot, c.pods, c.unlabelled);
      const before = new Map([...world.ids].map(([key, id]) => [key, world.runtime.containers.get(id)!.logPath]));
      const known = new Set(c.pods.filter((p) => p.known).map((p) => p.uid));
      const report = await collectContainerGarbage({ runtime: world.runtime, logRoot, agentId: AGENT, isPodKnown: (uid) => known.has(uid), logger: silentLogger });
      assert.deepEqual(report, c.report);
      const left = [...world.ids].filter(([, id]) => world.runtime.containers.has(id)).map(([key]) => key);
      assert.deepEqual(left.sort(), [...c.left].sort());
      // A removed container's log file went with it; a kept one's is still there (unless its pod's directory went).
      for (const [key, logPath] of before) {
        if (key.startsWith("foreign")) continue;
        const dirGone = (c.logDirsGone ?? []).some((uid) => key.startsWith(`${uid}/`));
        assert.equal(existsSync(logPath), c.left.includes(key) && !dirGone, `log of ${key}`);
        assert.equal(existsSync(`${logPath}.20260101-000000.gz`), c.left.includes(key) && !dirGone, `rotated logs of ${key}`);
        assert.equal(existsSync(`${logPath}.20260101-000100`), c.left.includes(key) && !dirGone, `rotated logs of ${key}`);
      }
      for (const uid of c.logDirsGone ?? []) assert.equal(existsSync(join(logRoot, `ns_${uid}-name_${uid}`)), false, `log directory of ${uid}`);
      for (const p of c.pods.filter((p) => p.known && Object.keys(p.containers).length > 0)) assert.ok(existsSync(join(logRoot, `ns_${p.uid}-name_${p.uid}`)), `log directory of live pod ${p.uid}`);
    });
  }

  test("a missing log root is no error", async () => {
    const world = await build(join(root, "never-created"), []);
    assert.deepEqual(await collectContainerGarbage({ runtime: world.runtime, logRoot: world.logRoot, agentId: AGENT, isPodKnown: () => false, logger: silentLogger }), { containers: 0, sandboxes: 0, logDirectories: 0 });
  });
});

test("the agent collects once a minute: a crash loop keeps one dead container, restart count and last state intact", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  await admitRunning(agent, clock, { metadata: { name: "loop", namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: ["app"] }] } });
  // Crash the container every time it runs, for 50 fake seconds: back-off 10 s, 20 s, … gives a few restarts.
  for (let s = 0; s < 50; s++) {
    const current = runtime.current("app");
    if (current?.state === "running") runtime.exit(current.id, 1);
    await clock.advance(1000);
    await flushMicrotasks(20);
  }
  const instances = () => [...runtime.containers.values()].filter((c) => c.name === "app").map((c) => c.attempt);
  assert.ok(instances().length >= 3, `expected a few restarts before the first collection, got attempts ${instances().join(",")}`);
  const newest = Math.max(...instances());
  for (let s = 0; s < 15; s++) {
    await clock.advance(1000);
    await flushMicrotasks(20);
  }
  // One minute after start a collection began; it does real file I/O, so wait for it in real time (bounded).
  for (let i = 0; i < 100 && instances().length > 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  // Everything but the newest dead instance (and a running one) is gone.
  const after = instances().sort((a, b) => a - b);
  assert.ok(after.length <= 2 && after.includes(newest), `attempts left after the collection: ${after.join(",")} (newest was ${newest})`);
  const status = agent.getPod("default", "loop").status?.containerStatuses?.[0];
  assert.equal(status?.restartCount, Math.max(...after));
  assert.ok(status?.lastState?.terminated, JSON.stringify(status));
  await agent.close(0);
});
