// An exec probe that prints the values of its pod's Secret-sourced env (secretKeyRef, envFrom
// secretRef): the values never reach the Unhealthy event, the probe history (in memory and on
// disk) or the agent's log; short values and other containers' text are left alone.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { FakeClock, tick } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { createLogger } from "../util/logger.js";
import { MemoryConfigObjects } from "../volumes/config-objects.js";
import { REDACTED } from "../prober/output-redaction.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

const PASSWORD = "hunter2-very-secret";
const API_KEY = "ak_live_0123456789";

test("Secret values an exec probe prints are scrubbed from events, probe history (memory and files) and the agent's log", async (t) => {
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-redaction-"));
  t.after(() => rm(stateDir, { recursive: true, force: true }));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const objects = new MemoryConfigObjects();
  objects.putSecret({ metadata: { name: "db", namespace: "default" }, data: { password: Buffer.from(PASSWORD).toString("base64") } });
  objects.putSecret({ metadata: { name: "api", namespace: "default" }, data: { key: Buffer.from(API_KEY).toString("base64"), pin: Buffer.from("42").toString("base64") } });
  const log: string[] = [];
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock, nodeName: "node-a", configObjects: objects, logger: createLogger({ level: "debug", write: (line) => log.push(line), now: () => clock.now() }) });
  agent.start();
  t.after(() => agent.close(0));
  runtime.execOutput.set("app", `password=${PASSWORD} quoted="${API_KEY}" pin=42 plain-text`);
  runtime.execExit.set("app", 1);
  const pod: Pod = {
    metadata: { name: "web", namespace: "default" },
    spec: {
      containers: [
        {
          name: "app",
          image: "img",
          command: ["app"],
          env: [{ name: "PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } }],
          envFrom: [{ secretRef: { name: "api" } }],
          readinessProbe: { exec: { command: ["sh", "-c", "echo $(PASSWORD)"] }, periodSeconds: 1 },
        },
      ],
    },
  };
  agent.admit(pod, "api");
  for (let i = 0; i < 5; i++) await tick(clock, 1000);
  const events = agent.listEvents("default").filter((e) => e.reason === "Unhealthy").map((e) => e.message ?? "");
  assert.ok(events.length > 0);
  const expected = `Readiness probe failed: password=${REDACTED} quoted="${REDACTED}" pin=42 plain-text`;
  assert.ok(events.includes(expected), events.join("\n"));
  const history = agent.probeHistory("default", "web").map((e) => e.output ?? "");
  assert.ok(history.length > 0 && history.every((o) => !o.includes(PASSWORD) && !o.includes(API_KEY)), history.join("\n"));
  await agent.close(0);
  const files = await readdir(join(stateDir, "probe-history")).catch(() => [] as string[]);
  assert.ok(files.length > 0, "the history was written to disk");
  for (const f of files) {
    const text = await readFile(join(stateDir, "probe-history", f), "utf8");
    assert.ok(!text.includes(PASSWORD) && !text.includes(API_KEY), f);
  }
  assert.ok(log.some((l) => l.includes("Probe failed")), "the failure was logged");
  assert.ok(log.every((l) => !l.includes(PASSWORD) && !l.includes(API_KEY)));
});
