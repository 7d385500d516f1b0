// A container's securityContext on the fake runtime: the effective context (container over pod)
// reaches the runtime, runAsNonRoot is checked against the image's user with the kubelet's
// CreateContainerConfigError texts, and a field the runtime cannot honour holds the container
// back with that reason and a Failed event instead of running it without.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, Pod } from "../api/types.js";
import { FakeClock, tick } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { fakeStateDir } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

function start(): { clock: FakeClock; runtime: FakeRuntime; agent: Agent } {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir: fakeStateDir(), clock, nodeName: "node-a", random: () => 0 }); // no requeue jitter: the retry comes at 10 s
  agent.start();
  return { clock, runtime, agent };
}

function pod(name: string, container: Partial<Container>, podSecurity?: Record<string, unknown>): Pod {
  return { metadata: { name, namespace: "default" }, spec: { ...(podSecurity ? { securityContext: podSecurity } : {}), containers: [{ name: "app", image: "img", command: ["app"], ...container }] } };
}

const waiting = (agent: Agent, name: string) => agent.getPod("default", name).status?.containerStatuses?.[0]?.state?.waiting;
const events = (agent: Agent): string[] => agent.listEvents("default").map((e) => `${e.type} ${e.reason} ${e.message}`);

test("the effective securityContext reaches the runtime: container fields over the pod's, fsGroup and supplementalGroups, no_new_privs from allowPrivilegeEscalation false", async () => {
  const { clock, runtime, agent } = start();
  const container = { securityContext: { runAsUser: 65534, capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] }, allowPrivilegeEscalation: false } };
  agent.admit(pod("merged", container, { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000, 5000] }), "api");
  await tick(clock);
  assert.deepEqual(runtime.configs.get("app")?.security, { runAsUser: 65534, runAsGroup: 3000, supplementalGroups: [2000, 4000, 5000], capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] }, noNewPrivs: true });
  await agent.close();
});

test("runAsNonRoot with an image that runs as root: CreateContainerConfigError 'container has runAsNonRoot and image will run as root', a Failed event, nothing created", async () => {
  const { clock, runtime, agent } = start();
  const admitted = agent.admit(pod("rootimage", {}, { runAsNonRoot: true }), "api");
  assert.ok(admitted.ok);
  await tick(clock);
  const text = `container has runAsNonRoot and image will run as root (pod: "rootimage_default(${admitted.pod.metadata.uid ?? ""})", container: app)`;
  assert.deepEqual(waiting(agent, "rootimage"), { reason: "CreateContainerConfigError", message: text });
  assert.ok(events(agent).includes(`Warning Failed Error: ${text}`), events(agent).join("\n"));
  assert.equal(runtime.configs.size, 0);
  await agent.close();
});

test("runAsNonRoot: the kubelet's texts for runAsUser 0 and a non-numeric image user; a non-root image user or runAsUser passes", async () => {
  const { clock, runtime, agent } = start();
  const a = agent.admit(pod("uid0", { securityContext: { runAsNonRoot: true, runAsUser: 0 } }), "api");
  runtime.imageRunsAs = { username: "app" };
  const b = agent.admit(pod("named", { securityContext: { runAsNonRoot: true } }), "api");
  agent.admit(pod("explicit", { securityContext: { runAsNonRoot: true, runAsUser: 1000 } }), "api");
  assert.ok(a.ok && b.ok);
  await tick(clock);
  assert.equal(waiting(agent, "uid0")?.message, `container's runAsUser breaks non-root policy (pod: "uid0_default(${a.pod.metadata.uid ?? ""})", container: app)`);
  assert.equal(waiting(agent, "named")?.message, `container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root (pod: "named_default(${b.pod.metadata.uid ?? ""})", container: app)`);
  assert.ok(agent.getPod("default", "explicit").status?.containerStatuses?.[0]?.state?.running);
  runtime.imageRunsAs = { uid: 1001 };
  agent.admit(pod("nonroot-image", { name: "other", securityContext: { runAsNonRoot: true } }), "api");
  await tick(clock);
  assert.ok(agent.getPod("default", "nonroot-image").status?.containerStatuses?.[0]?.state?.running);
  await agent.close();
});

test("a securityContext field the runtime cannot honour holds the container back with the runtime's reason and an event, and the pod starts once it can", async () => {
  const { clock, runtime, agent } = start();
  const reason = "securityContext.runAsUser on the process runtime needs the agent to run as root (to run the container as uid 65534); it runs as uid 1000";
  runtime.securityUnsupported = reason;
  agent.admit(pod("refused", { securityContext: { runAsUser: 65534 } }), "api");
  await tick(clock);
  assert.deepEqual(waiting(agent, "refused"), { reason: "CreateContainerConfigError", message: reason });
  assert.ok(events(agent).includes(`Warning Failed Error: ${reason}`), events(agent).join("\n"));
  assert.equal(runtime.configs.size, 0, "never run without the field");
  runtime.securityUnsupported = undefined;
  await tick(clock, 10_000);
  await tick(clock);
  assert.ok(agent.getPod("default", "refused").status?.containerStatuses?.[0]?.state?.running);
  await agent.close();
});
