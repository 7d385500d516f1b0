// The CLI on a static pod (one the agent runs from its own manifest), against a real agent's
// API: `delete` returns at once with one line naming the pod's file and how to remove it, the
// pod stays listed with its containers; `apply` of the pod's own file is unchanged, and an apply
// that would change it is refused, naming the file.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { captureContext, serveAgentApi } from "../../test/cli-harness.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { tick } from "../../test/fakes/fake-clock.js";
import { applyManifest } from "../agent/manifest-source.js";
import { runApplyCommand } from "./apply-command.js";
import { runDeleteCommand } from "./delete-command.js";

const WEB = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: busybox
    command: ["app"]
`;

/** staticWeb runs an agent (fake runtime) with web.yaml as a -f manifest and serves its API. */
async function staticWeb(t: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), "probelet-static-cli-"));
  const file = join(dir, "web.yaml");
  await writeFile(file, WEB);
  const { clock, runtime, agent } = startAgentOnFakes();
  assert.deepEqual(applyManifest(agent, WEB, "web.yaml", `file:${file}`, false).errors, []);
  await tick(clock);
  const server = await serveAgentApi(t, agent);
  t.after(async () => {
    await agent.close(0);
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, file, runtime, agent, server };
}

for (const flags of [[], ["--force", "--grace-period=0"]]) {
  test(`delete pod${flags.length > 0 ? ` ${flags.join(" ")}` : ""} of a static pod returns at once, says in one line where it comes from, and the pod stays listed with its container`, async (t) => {
    const { file, runtime, agent, server } = await staticWeb(t);
    const before = agent.getPod("default", "web");
    const { ctx, out, err } = captureContext();
    const started = performance.now();
    assert.equal(await runDeleteCommand(["pod", "web", ...flags, "--server", server.url], ctx), 0, err());
    assert.ok(performance.now() - started < 5000, "the wait ends with the new mirror");
    assert.equal(out(), flags.length > 0 ? 'pod "web" force deleted\n' : 'pod "web" deleted\n');
    assert.match(err(), new RegExp(`Warning: pod "web" runs from ${file} as a static pod and keeps running; to remove it, run the agent without that file\\n$`));
    const after = agent.getPod("default", "web");
    assert.notEqual(after.metadata.uid, before.metadata.uid);
    assert.equal(after.status?.phase, "Running");
    assert.equal(after.status?.containerStatuses?.[0]?.containerID, before.status?.containerStatuses?.[0]?.containerID);
    assert.ok(!runtime.calls.some((c) => c.startsWith("stop")), runtime.calls.join("\n"));
  });
}

test("apply -f of the file a static pod runs from is unchanged; a changed manifest is refused, naming the file", async (t) => {
  const { dir, file, runtime, agent, server } = await staticWeb(t);
  const same = captureContext();
  assert.equal(await runApplyCommand(["-f", file, "--server", server.url], same.ctx), 0, same.err());
  assert.equal(same.out(), "pod/web unchanged\n");
  const changed = join(dir, "web-changed.yaml");
  await writeFile(changed, WEB.replace('["app"]', '["other"]'));
  const refused = captureContext();
  assert.equal(await runApplyCommand(["-f", changed, "--server", server.url], refused.ctx), 1);
  assert.equal(refused.err(), `error: pod "web" runs from ${file} as a static pod and cannot be replaced through the API; edit that file and start the agent again\n`);
  assert.equal(refused.out(), "");
  assert.equal(agent.getPod("default", "web").metadata.deletionTimestamp, undefined);
  assert.ok(!runtime.calls.some((c) => c.startsWith("stop")), runtime.calls.join("\n"));
});
