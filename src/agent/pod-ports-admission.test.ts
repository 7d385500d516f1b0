// The agent's admission of pods that want the same port where pods share the host's network (the
// process runtime without pod networks): the second is rejected as the kubelet rejects it
// (NodePorts) and never runs; the first is untouched. A probe aimed at another pod's port is warned about.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Pod } from "../api/types.js";
import { tick } from "../../test/fakes/fake-clock.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { fakeStateDir } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

/** SharedNetworkRuntime is the fake runtime answering as the process runtime does without pod networks. */
class SharedNetworkRuntime extends FakeRuntime {
  constructor(clock: FakeClock, private readonly shared: boolean) {
    super(clock);
  }
  async podsShareHostNetwork(): Promise<boolean> {
    return this.shared;
  }
}

function pod(name: string, container: Partial<Container>): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: [name], ...container }] } };
}
const web = (name: string): Pod => pod(name, { ports: [{ name: "http", containerPort: 8080 }], readinessProbe: { httpGet: { path: "/ready", port: "http" } } });

function start(shared: boolean) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new SharedNetworkRuntime(clock, shared);
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir: fakeStateDir(), clock, nodeName: "node-a" });
  agent.start();
  return { clock, runtime, agent };
}

test("on a shared host network a second pod declaring the same containerPort is rejected (NodePorts) and never runs; the first runs on", async () => {
  const { clock, runtime, agent } = start(true);
  assert.ok(agent.admit(web("web"), "file:/srv/web.yaml").ok);
  assert.ok(agent.admit(web("web-copy"), "api").ok);
  await tick(clock);
  await tick(clock);
  const copy = agent.getPod("default", "web-copy").status!;
  assert.deepEqual({ phase: copy.phase, reason: copy.reason, message: copy.message }, {
    phase: "Failed", reason: "NodePorts", message: "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
  });
  const events = agent.listEvents("default", "web-copy").map((e) => `${e.type} ${e.reason} ${e.message}`);
  assert.deepEqual(events, ["Warning NodePorts Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"]);
  assert.ok(!runtime.calls.some((c) => c.includes("web-copy")), runtime.calls.join("\n"));
  assert.equal(agent.getPod("default", "web").status?.phase, "Running");
  // Deleting the rejected pod frees nothing the first one holds, and goes at once (terminal).
  agent.deletePod("default", "web-copy");
  await tick(clock);
  assert.deepEqual(agent.listPods().map((p) => p.metadata.name), ["web"]);
  await agent.close(0);
});

test("once the pod holding a port is gone, a new pod with that port is admitted", async () => {
  const { clock, agent } = start(true);
  assert.ok(agent.admit(web("web"), "api").ok);
  await tick(clock);
  await agent.deletePodAndWait("default", "web", 0);
  assert.ok(agent.admit(web("web-2"), "api").ok);
  await tick(clock);
  assert.equal(agent.getPod("default", "web-2").status?.phase, "Running");
  await agent.close(0);
});

test("with pod networks of their own two pods may declare the same containerPort", async () => {
  const { clock, agent } = start(false);
  assert.ok(agent.admit(web("web"), "api").ok);
  assert.ok(agent.admit(web("web-copy"), "api").ok);
  await tick(clock);
  assert.deepEqual(agent.listPods().map((p) => p.status?.phase), ["Running", "Running"]);
  await agent.close(0);
});

test("a probe aimed at a port another pod declares is warned about on the pod, which runs", async () => {
  const { clock, agent } = start(true);
  assert.ok(agent.admit(web("web"), "api").ok);
  assert.ok(agent.admit(pod("checker", { readinessProbe: { tcpSocket: { port: 8080 } } }), "api").ok);
  await tick(clock);
  const events = agent.listEvents("default", "checker").map((e) => `${e.type} ${e.reason} ${e.message}`);
  assert.ok(events.includes("Warning ProbePortInUse Readiness probe of container app dials port 8080, a port of pod default/web: it can succeed through that pod's server"), events.join("\n"));
  assert.equal(agent.getPod("default", "checker").status?.phase, "Running");
  await agent.close(0);
});
