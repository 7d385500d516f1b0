// An Agent wired to a FakeRuntime and a FakeClock, for the agent's unit tests: nothing real runs,
// time moves only when a test advances it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../src/api/types.js";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { FakeClock, flushMicrotasks } from "./fake-clock.js";
import { FakeRuntime } from "./fake-runtime.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";

/** AgentOnFakes is a started agent together with the fakes that drive it. */
export interface AgentOnFakes {
  clock: FakeClock;
  runtime: FakeRuntime;
  agent: Agent;
  /** stateDir is the agent's own state directory (see fakeStateDir). */
  stateDir: string;
}

const stateDirs: string[] = [];
process.once("exit", () => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * fakeStateDir is a fresh owner-only state directory for one agent on fakes, removed when the
 * test process exits. One per agent: agents that shared a directory (as root, a fixed path is
 * writable) raced each other's pod directories and files when test files ran concurrently.
 */
export function fakeStateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "probelet-fake-agent-"));
  stateDirs.push(dir);
  return dir;
}

/** startAgentOnFakes starts an agent on a fresh fake runtime and fake clock (2026-01-01 UTC); `random` sets its requeue jitter (none by default). */
export function startAgentOnFakes(options: Pick<AgentOptions, "random" | "fullResyncIntervalMs"> = {}): AgentOnFakes {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const stateDir = fakeStateDir();
  // No requeue jitter: a held-back pod is synced again when its back-off ends, so tests can time it.
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock, nodeName: "node-a", random: () => 0, ...options });
  agent.start();
  return { clock, runtime, agent, stateDir };
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
