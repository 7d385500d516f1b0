// ConfigMaps, Secrets and volumes on the fake runtime: the kubelet's CreateContainerConfigError
// and FailedMount, a retry once the object appears, volumes that follow updates, and the
// runtime that cannot mount.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Pod } from "../api/types.js";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { MemoryConfigObjects } from "../volumes/config-objects.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

interface Setup {
  clock: FakeClock;
  runtime: FakeRuntime;
  objects: MemoryConfigObjects;
  agent: Agent;
  stateDir: string;
}

async function withAgent(fn: (s: Setup) => Promise<void>): Promise<void> {
  const stateDir = await mkdtemp(join(tmpdir(), "config-sources-"));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const objects = new MemoryConfigObjects();
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock, nodeName: "node-a", configObjects: objects });
  agent.start();
  try {
    await fn({ clock, runtime, objects, agent, stateDir });
  } finally {
    await agent.close(0);
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** until advances the fake clock in small steps, letting real file I/O finish, until `cond` holds (at most 300 rounds). */
async function until(clock: FakeClock, what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await cond()) return;
    await flushMicrotasks(20);
    await clock.advance(100);
    await sleep(5);
  }
  assert.fail(`timed out waiting for ${what}`);
}

function pod(spec: Partial<Pod["spec"]>): Pod {
  return { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: ["app"] }], ...spec } };
}

const waiting = (agent: Agent) => agent.getPod("default", "web").status?.containerStatuses?.[0]?.state?.waiting;
const events = (agent: Agent) => agent.listEvents("default").map((e) => `${e.type} ${e.reason} ${e.message}`);

test("a missing ConfigMap holds the container in CreateContainerConfigError; it starts with the value once the ConfigMap appears", async () => {
  await withAgent(async ({ clock, runtime, objects, agent }) => {
    agent.admit(pod({ containers: [{ name: "app", image: "img", command: ["app"], env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "cfg", key: "mode" } } }] }] }), "api");
    await until(clock, "the config error", () => waiting(agent)?.reason === "CreateContainerConfigError");
    assert.deepEqual(waiting(agent), { reason: "CreateContainerConfigError", message: 'configmap "cfg" not found' });
    assert.ok(events(agent).includes('Warning Failed Error: configmap "cfg" not found'), events(agent).join("\n"));
    assert.equal(runtime.configs.size, 0, "no container was created");
    objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { mode: "fast" } });
    await until(clock, "the container to start", () => runtime.configs.has("app"));
    assert.deepEqual(runtime.configs.get("app")!.envs, [{ key: "MODE", value: "fast" }]);
  });
});

test("a configMap volume without its ConfigMap gets the kubelet's FailedMount and the container waits ContainerCreating", async () => {
  await withAgent(async ({ clock, runtime, agent }) => {
    agent.admit(pod({ volumes: [{ name: "cfg-vol", configMap: { name: "cfg" } }], containers: [{ name: "app", image: "img", command: ["app"], volumeMounts: [{ name: "cfg-vol", mountPath: "/etc/cfg" }] }] }), "api");
    await until(clock, "the FailedMount event", () => events(agent).some((e) => e.includes("FailedMount")));
    assert.ok(events(agent).includes('Warning FailedMount MountVolume.SetUp failed for volume "cfg-vol" : configmap "cfg" not found'), events(agent).join("\n"));
    assert.equal(waiting(agent)?.reason, "ContainerCreating");
    assert.equal(runtime.configs.size, 0);
  });
});

test("a configMap volume is mounted read-only from the pod's volume directory and follows ConfigMap updates", async () => {
  await withAgent(async ({ clock, runtime, objects, agent, stateDir }) => {
    objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { "app.conf": "v1" } });
    agent.admit(pod({ volumes: [{ name: "cfg-vol", configMap: { name: "cfg" } }], containers: [{ name: "app", image: "img", command: ["app"], volumeMounts: [{ name: "cfg-vol", mountPath: "/etc/cfg" }] }] }), "api");
    await until(clock, "the container", () => runtime.configs.has("app"));
    const uid = agent.getPod("default", "web").metadata.uid!;
    const hostPath = join(stateDir, "volumes", uid, "volumes", "kubernetes.io~configmap", "cfg-vol");
    // kubelet makeMounts order: the volume mounts, the managed /etc/hosts (the pod has an IP),
    // then the termination message file.
    const mounts = runtime.configs.get("app")!.mounts ?? [];
    assert.deepEqual(mounts[0], { hostPath, containerPath: "/etc/cfg", readonly: true });
    assert.deepEqual(mounts.slice(1).map((m) => m.containerPath), ["/etc/hosts", "/dev/termination-log"]);
    assert.equal(mounts[1]!.hostPath, join(stateDir, "volumes", uid, "etc-hosts"));
    assert.match(await readFile(mounts[1]!.hostPath, "utf8"), /^# Kubernetes-managed hosts file\.\n127\.0\.0\.1\tlocalhost\n/);
    assert.equal(await readFile(join(hostPath, "app.conf"), "utf8"), "v1");
    objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { "app.conf": "v2" } });
    await until(clock, "the update in the volume", async () => (await readFile(join(hostPath, "app.conf"), "utf8").catch(() => "")) === "v2");
    agent.deletePod("default", "web", 0);
    await until(clock, "the volume directory to go", async () => (await stat(join(stateDir, "volumes", uid)).catch(() => undefined)) === undefined);
  });
});

test("a runtime that cannot mount holds a container with volume mounts in CreateContainerConfigError with its reason and a warning", async () => {
  await withAgent(async ({ clock, runtime, agent }) => {
    runtime.mountsUnsupported = "volume mounts on the process runtime need root (a private mount namespace per container); the agent runs as uid 1000";
    agent.admit(pod({ volumes: [{ name: "scratch", emptyDir: {} }], containers: [{ name: "app", image: "img", command: ["app"], volumeMounts: [{ name: "scratch", mountPath: "/scratch" }] }] }), "api");
    await until(clock, "the config error", () => waiting(agent)?.reason === "CreateContainerConfigError");
    assert.equal(waiting(agent)?.message, runtime.mountsUnsupported);
    assert.ok(events(agent).includes(`Warning Failed Error: ${runtime.mountsUnsupported}`));
    assert.equal(runtime.configs.size, 0, "never runs with its mounts missing");
  });
});

test("envFrom with invalid keys raises InvalidEnvironmentVariableNames on the pod and starts with the valid keys", async () => {
  await withAgent(async ({ clock, runtime, objects, agent }) => {
    objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { good: "1", "2bad": "x" } });
    agent.admit(pod({ containers: [{ name: "app", image: "img", command: ["app"], envFrom: [{ configMapRef: { name: "cfg" } }] }] }), "api");
    await until(clock, "the container", () => runtime.configs.has("app"));
    assert.deepEqual(runtime.configs.get("app")!.envs, [{ key: "good", value: "1" }]);
    assert.ok(events(agent).includes("Warning InvalidEnvironmentVariableNames Keys [2bad] from the EnvFrom configMap default/cfg were skipped since they are considered invalid environment variable names."));
  });
});

test("a mounted configMap volume keeps its last content when its ConfigMap is deleted: FailedMount, and the container still restarts", async () => {
  await withAgent(async ({ clock, runtime, objects, agent, stateDir }) => {
    objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { "app.conf": "v1" } });
    agent.admit(pod({ volumes: [{ name: "cfg-vol", configMap: { name: "cfg" } }], containers: [{ name: "app", image: "img", command: ["app"], volumeMounts: [{ name: "cfg-vol", mountPath: "/etc/cfg" }] }] }), "api");
    await until(clock, "the container", () => runtime.current("app") !== undefined);
    objects.delete("ConfigMap", "default", "cfg");
    await until(clock, "the FailedMount event", () => events(agent).some((e) => e.includes("FailedMount")));
    const uid = agent.getPod("default", "web").metadata.uid!;
    assert.equal(await readFile(join(stateDir, "volumes", uid, "volumes", "kubernetes.io~configmap", "cfg-vol", "app.conf"), "utf8"), "v1");
    runtime.exit(runtime.current("app")!.id, 1);
    await until(clock, "the restart", () => runtime.current("app")?.attempt === 1);
  });
});

test("by default the agent reads ConfigMaps from its object store: one created there starts the waiting container", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "config-sources-store-"));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock, nodeName: "node-a" });
  agent.start();
  try {
    agent.admit(pod({ containers: [{ name: "app", image: "img", command: ["app"], env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "cfg", key: "mode" } } }] }] }), "api");
    await until(clock, "the config error", () => waiting(agent)?.reason === "CreateContainerConfigError");
    agent.store.create("configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default" }, data: { mode: "stored" } });
    await until(clock, "the container to start", () => runtime.configs.has("app"));
    assert.deepEqual(runtime.configs.get("app")!.envs, [{ key: "MODE", value: "stored" }]);
  } finally {
    await agent.close(0);
    await rm(stateDir, { recursive: true, force: true });
  }
});
