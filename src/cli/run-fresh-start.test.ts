// Ctrl-C stops the agent's pods (their containers are killed), so the next `probelet run` on the
// same state directory starts them afresh: restart count 0, no last state, a new log. (kill -9 and
// --leave-running keep everything: run-process-restart.test.ts.)
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { agentSandbox, stopAgentProcess } from "../../test/agent-process.js";
import { getJson } from "../../test/cri/agent-cli.js";

const CRASHER = `apiVersion: v1
kind: Pod
metadata: {name: crasher}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "echo run; sleep 0.2; exit 1"]
`;

test("after Ctrl-C a fresh probelet run starts the pods afresh: restart count 0, no last state", { timeout: 90_000 }, async (t) => {
  const { dir, start } = await agentSandbox(t, "probelet-fresh-start-");
  const state = join(dir, "state");
  const manifest = join(dir, "crasher.yaml");
  await writeFile(manifest, CRASHER);
  const args = ["-f", manifest, "--listen", "127.0.0.1:0", "--state-dir", state];
  const container = async (url: string) => (await getJson<Pod>(`${url}/api/v1/namespaces/default/pods/crasher`, state))?.status?.containerStatuses?.[0];
  const first = await start(args);
  for (let i = 0; i < 200 && ((await container(first.url))?.restartCount ?? 0) < 1; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(((await container(first.url))?.restartCount ?? 0) >= 1, "restarted at least once");
  await stopAgentProcess(first.child);
  assert.equal(first.child.exitCode, 0, first.stderr());
  const second = await start(args);
  let seen;
  for (let i = 0; i < 100 && (seen = await container(second.url))?.state?.running === undefined && seen?.state?.terminated === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(seen?.restartCount, 0, JSON.stringify(seen));
  assert.equal(seen?.lastState?.terminated, undefined, JSON.stringify(seen));
});
