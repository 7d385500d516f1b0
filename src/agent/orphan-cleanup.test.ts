// What a pod the agent does not know left (its sandbox, dead containers, log directory) is cleaned
// up only once every pod source has listed its pods (kubelet SourcesReady gating
// HandlePodCleanups and the container GC's eviction of deleted pods).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { startLocalApiServer } from "../apiserver/local-api-server.js";
import { agentIdFor, LABEL_AGENT } from "../kuberuntime/agent-id.js";
import { LABEL_POD_UID } from "../kuberuntime/labels.js";
import { fakeStateDir } from "../../test/fakes/fake-agent.js";
import { FakeClock, tick, tickUntil } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { Agent } from "./agent.js";

test("a pod no source has yet keeps its sandbox, dead container and logs while a source is unseen; once seen, the agent removes the sandbox and the GC its logs", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const stateDir = fakeStateDir();
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock, nodeName: "node-a", random: () => 0, containerGcIntervalMs: 2000 });
  // What a previous agent of this state directory left of a pod the API server will list later.
  const uid = "0e4c0a52-7a54-4c4e-9d55-6f3c0a1f0b01";
  const labels = { [LABEL_POD_UID]: uid, [LABEL_AGENT]: agentIdFor(stateDir) };
  const logDirectory = join(stateDir, "pods", `default_late_${uid}`);
  await mkdir(join(logDirectory, "app"), { recursive: true });
  const sandboxConfig = { podUid: uid, name: "late", namespace: "default", attempt: 0, hostNetwork: false, logDirectory, labels, annotations: {} };
  const sandbox = await runtime.runPodSandbox(sandboxConfig);
  const container = await runtime.createContainer(sandbox, { name: "app", attempt: 0, image: "img", command: ["app"], args: [], envs: [], labels, annotations: {}, logPath: "app/0.log" }, sandboxConfig);
  await runtime.startContainer(container);
  runtime.exit(container, 1);
  try {
    agent.sourcesReady.add("api");
    agent.start();
    for (let i = 0; i < 5; i++) await tick(clock, 2000);
    assert.equal(runtime.sandboxes.has(sandbox), true, "the sandbox stays while the API server has not listed its pods");
    assert.equal(runtime.containers.has(container), true, "so does its dead container (GC keeps it as a known pod's)");
    assert.equal(existsSync(logDirectory), true, "and its log directory");
    agent.sourcesReady.seen("api");
    // The GC removes the directory with real file I/O: waited for in real time too (bounded).
    await tickUntil(clock, () => !runtime.sandboxes.has(sandbox) && !existsSync(logDirectory), { maxTicks: 3, ms: 2000 });
    assert.equal(runtime.sandboxes.has(sandbox), false, "the orphaned sandbox is removed once every source is ready");
    assert.equal(runtime.containers.has(container), false);
    assert.equal(existsSync(logDirectory), false, "the GC removes the log directory of the pod no source has");
  } finally {
    await agent.close(0);
  }
});
