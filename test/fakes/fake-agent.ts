// An Agent wired to a FakeRuntime and a FakeClock, for the agent's unit tests: nothing real runs,
// time moves only when a test advances it.
import assert from "node:assert/strict";
import type { Pod } from "../../src/api/types.js";
import { Agent } from "../../src/agent/agent.js";
import { FakeClock, flushMicrotasks } from "./fake-clock.js";
import { FakeRuntime } from "./fake-runtime.js";

/** AgentOnFakes is a started agent together with the fakes that drive it. */
export interface AgentOnFakes {
  clock: FakeClock;
  runtime: FakeRuntime;
  agent: Agent;
}

/** startAgentOnFakes starts an agent on a fresh fake runtime and fake clock (2026-01-01 UTC). */
export function startAgentOnFakes(): AgentOnFakes {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const agent = new Agent({ runtime, stateDir: "/nonexistent/probelet-test", clock, nodeName: "node-a" });
  agent.start();
  return { clock, runtime, agent };
}

/** admitRunning admits a pod and lets its first sync start the containers; returns its UID. */
export async function admitRunning(agent: Agent, clock: FakeClock, pod: Pod): Promise<string> {
  const admitted = agent.admit(pod, "api");
  assert.ok(admitted.ok, "the pod was not admitted");
  await flushMicrotasks(50);
  await clock.advance(1000);
  await flushMicrotasks(50);
  return admitted.pod.metadata.uid!;
}
