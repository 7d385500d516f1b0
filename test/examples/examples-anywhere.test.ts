// The shipped examples run as a user runs them after `npm link`: from another directory, each
// with its absolute path. Every pod comes up as its comments say (the web, gRPC and sidecar pods
// Ready, the slow starter Ready after its warm-up, the crash loop restarting). The examples'
// fixed ports are moved to free ones, so parallel runs on one machine do not meet.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { Pod } from "../../src/api/types.js";
import { agentSandbox } from "../agent-process.js";
import { getJson } from "../cri/agent-cli.js";
import { exampleWithFreePorts } from "./example-files.js";

const ready = (pod: Pod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

test("the examples run from any directory: web, grpc and sidecar Ready, slow-start Ready after its warm-up, crashloop restarting", { timeout: 90_000 }, async (t) => {
  const { dir, start } = await agentSandbox(t, "probelet-examples-");
  const files: string[] = [];
  for (const [name, ports] of [["web.yaml", [8080]], ["grpc.yaml", [5000]], ["sidecar.yaml", [8082]], ["slow-start.yaml", [8081]], ["crashloop.yaml", []]] as const) {
    const path = join(dir, name);
    await writeFile(path, await exampleWithFreePorts(name, ports));
    files.push("-f", path);
  }
  const state = join(dir, "state");
  // The agent runs in a directory that holds no example and no app: nothing may depend on it.
  const agent = await start([...files, "--listen", "127.0.0.1:0", "--state-dir", state], dir);
  const pods = async (): Promise<Map<string, Pod>> =>
    new Map(((await getJson<{ items: Pod[] }>(`${agent.url}/api/v1/namespaces/default/pods`, state))?.items ?? []).map((p) => [p.metadata.name ?? "", p]));
  let seen = new Map<string, Pod>();
  const done = (): boolean =>
    ["web", "grpc", "with-sidecar", "slow-start"].every((n) => ready(seen.get(n))) && (seen.get("crashloop")?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1;
  for (let i = 0; i < 600 && !done(); i++) {
    seen = await pods();
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(done(), JSON.stringify([...seen.values()].map((p) => ({ name: p.metadata.name, status: p.status })), null, 1) + agent.stderr());
  for (const name of ["web", "grpc", "with-sidecar", "slow-start"]) {
    assert.equal(seen.get(name)?.status?.containerStatuses?.every((c) => c.restartCount === 0), true, `${name} never restarted`);
  }
});
