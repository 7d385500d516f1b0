// The process runtime ignores images: the agent says so once per pod, as a Normal event (every
// container must name an image, so there is nothing to warn about), not at every start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProcessRuntime } from "../runtime/process/process-runtime.js";
import { fakeStateDir } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

test("the process runtime's ImageIgnored is one Normal event per pod naming its images, also after a restart", async (t) => {
  const runtime = new ProcessRuntime();
  const agent = new Agent({ api: startLocalApiServer(), runtime, stateDir: fakeStateDir(), nodeName: "node-a", backoff: { initialMs: 100, maxMs: 100 } });
  t.after(async () => {
    await agent.close(0);
    await runtime.close();
  });
  agent.start();
  const admitted = agent.admit({
    metadata: { name: "two", namespace: "default" },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "a", image: "node:20", command: ["sleep", "30"] }, { name: "b", image: "busybox:1.36", command: ["sh", "-c", "sleep 0.2; exit 1"] }] },
  }, "api");
  assert.ok(admitted.ok);
  for (let i = 0; i < 100 && (agent.getPod("default", "two").status?.containerStatuses?.find((c) => c.name === "b")?.restartCount ?? 0) < 1; i++) await new Promise((r) => setTimeout(r, 100));
  const events = agent.listEvents("default", "two");
  assert.ok(events.some((e) => e.reason === "Started" && e.involvedObject.fieldPath === "spec.containers{b}" && e.count !== undefined && e.count >= 2), "b restarted");
  assert.deepEqual(events.filter((e) => e.reason === "ImageIgnored").map((e) => `${e.type} ${e.involvedObject.fieldPath ?? "(pod)"} ${e.count} ${e.message}`), [
    "Normal (pod) 1 The process runtime runs this pod's commands on this machine; its images are not used: node:20, busybox:1.36",
  ]);
});
