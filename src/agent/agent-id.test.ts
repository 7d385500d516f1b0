// Ownership in a shared runtime: an agent cleans up only the sandboxes and containers it created.
import assert from "node:assert/strict";
import { test } from "node:test";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { agentIdFor, LABEL_AGENT, ownedBy } from "./agent-id.js";
import { LABEL_POD_UID } from "./pod-sync.js";

test("agentIdFor is stable for one state directory and differs between two", () => {
  assert.equal(agentIdFor("/var/lib/probelet"), agentIdFor("/var/lib/probelet/"));
  assert.equal(agentIdFor("/var/lib/probelet"), agentIdFor("/var/lib/../lib/probelet"));
  assert.notEqual(agentIdFor("/var/lib/probelet"), agentIdFor("/var/lib/probelet-2"));
  assert.match(agentIdFor("/x"), /^[0-9a-f]{16}$/);
  assert.equal(ownedBy({ [LABEL_AGENT]: "a" }, "a"), true);
  assert.equal(ownedBy({ [LABEL_AGENT]: "b" }, "a"), false);
  assert.equal(ownedBy({}, "a"), false);
});

test("cleanupOrphans removes this agent's orphaned sandboxes only; another agent's and unlabelled ones stay", async () => {
  const { runtime, agent, stateDir } = startAgentOnFakes();
  const sandbox = (uid: string, labels: Record<string, string>) =>
    runtime.runPodSandbox({ podUid: uid, name: uid, namespace: "default", attempt: 0, hostNetwork: false, logDirectory: "", labels: { [LABEL_POD_UID]: uid, ...labels }, annotations: {} });
  const mine = await sandbox("mine", { [LABEL_AGENT]: agentIdFor(stateDir) });
  const theirs = await sandbox("theirs", { [LABEL_AGENT]: agentIdFor("/elsewhere") });
  const legacy = await sandbox("legacy", {});
  await agent.cleanupOrphans();
  await flushMicrotasks(20);
  assert.equal(runtime.sandboxes.has(mine), false, "this agent's orphan is removed");
  assert.equal(runtime.sandboxes.get(theirs)?.state, "ready", "another agent's sandbox is untouched");
  assert.equal(runtime.sandboxes.get(legacy)?.state, "ready", "an unlabelled sandbox is untouched");
  await agent.close(0);
});

test("the sandboxes an agent creates carry its owner label, and so do their containers", async () => {
  const { clock, runtime, agent, stateDir } = startAgentOnFakes();
  await admitRunning(agent, clock, { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: ["app"] }] } });
  const id = agentIdFor(stateDir);
  assert.ok([...runtime.sandboxes.values()].every((s) => ownedBy(s.labels, id)));
  assert.ok([...runtime.containers.values()].length > 0 && [...runtime.containers.values()].every((c) => ownedBy(c.labels, id)));
  await agent.close(0);
});
