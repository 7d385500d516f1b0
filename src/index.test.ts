import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, HostCommandRunner, MemoryEventRecorder, ProbeHistory, ProbeManager, ProcessRuntime, startLocalApiServer, type Pod, type PodStatus } from "./index.js";

test("library: ProbeManager drives readiness from a real HTTP server; subscribers see the probes' verdicts", async (t) => {
  let healthy = true;
  const server = createServer((_req, res) => {
    res.statusCode = healthy ? 200 : 503;
    res.end(healthy ? "ok" : "no");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;

  const pod: Pod = {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: { containers: [{ name: "app", readinessProbe: { httpGet: { path: "/", port }, periodSeconds: 1, failureThreshold: 1, successThreshold: 1, timeoutSeconds: 1 } }] },
  };
  const status: PodStatus = {
    phase: "Running",
    podIP: "127.0.0.1",
    containerStatuses: [{ name: "app", containerID: "host://1", ready: false, restartCount: 0, started: true, state: { running: { startedAt: new Date().toISOString() } } }],
  };
  const runner = new HostCommandRunner();
  t.after(() => runner.close());
  const recorder = new MemoryEventRecorder();
  const history = new ProbeHistory();
  const manager = new ProbeManager({ statusProvider: { getPodStatus: () => status }, runner, recorder, onProbe: (worker, record) => history.record(worker, record) });
  const seen: string[] = [];
  const changed = new Promise<void>((resolve) =>
    manager.readinessManager.subscribe((u) => {
      seen.push(u.result);
      if (seen.join() === "Success,Failure") resolve();
      if (u.result === "Success") healthy = false;
    }),
  );
  manager.addPod(pod);
  await changed;
  await manager.close();
  assert.deepEqual(seen, ["Success", "Failure"]);
  assert.ok(recorder.strings().includes("Warning Unhealthy Readiness probe failed: HTTP probe failed with statuscode: 503"));
  assert.equal(manager.workerCount(), 0);
  const last = history.list("uid-1").at(-1);
  assert.equal(last?.result, "Failure");
  assert.equal(last?.output, "HTTP probe failed with statuscode: 503");
});

test("library: an embedder builds an Agent from the package's exports alone (startLocalApiServer, ProcessRuntime) and its pod turns Ready", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-library-"));
  const runtime = new ProcessRuntime();
  const api = startLocalApiServer();
  const agent = new Agent({ api, runtime, stateDir: dir, nodeName: "library-node", resyncIntervalMs: 200 });
  t.after(async () => {
    await agent.close(0);
    await runtime.close();
    api.stop();
    await rm(dir, { recursive: true, force: true });
  });
  agent.start();
  const admitted = agent.admit(
    { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "busybox", command: ["sleep", "60"], readinessProbe: { exec: { command: ["true"] }, periodSeconds: 1 } }] } },
    "api",
  );
  assert.equal(admitted.ok, true);
  let ready: string | undefined;
  for (let i = 0; i < 100 && ready !== "True"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    ready = agent.getPod("default", "web").status?.conditions?.find((c) => c.type === "Ready")?.status;
  }
  assert.equal(ready, "True", "the pod turns Ready within 10 s");
});
