// Real kubectl 1.20 and 1.32 changing pods on a real probelet agent (process runtime): create,
// apply (client-side and server-side), label, annotate, patch, delete (graceful, --grace-period,
// -l, -f, a static pod's mirror), wait, exec and cp.
// Both versions create and apply with their default validation (1.32 on the server through
// /openapi/v3, 1.20 against the schema-less /openapi/v2). One agent serves every case; each
// case uses its own pods. Skipped, with the reason, without the cached kubectl binaries.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { KUBECTL_VERSIONS, kubectlEnv, type KubectlVersion } from "./kubectl-env.js";
import { eventually, podYaml, startKubectlAgent, writeManifest, type KubectlAgent, type PodOptions } from "./kubectl-agent-harness.js";

const env = kubectlEnv();
const skip = env.skip;
let agent: KubectlAgent;

const tag = (version: KubectlVersion): string => version.replace(".", "");

before(async () => {
  if (env.paths !== undefined) agent = await startKubectlAgent(env.paths);
});
after(async () => {
  await agent?.stop();
});

/** manifest writes podYaml(name, …) and returns its path. */
function manifest(name: string, script: string, options: PodOptions = {}, file = `${name}.yaml`): Promise<string> {
  return writeManifest(agent, file, podYaml(name, script, options));
}

/** untilRunning waits until the pod's first container runs (restartCount as given). */
function untilRunning(version: KubectlVersion, name: string, restarts = 0): Promise<unknown> {
  return eventually(agent, version, ["get", "pod", name, "-o", "jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.running.startedAt}"], (out) =>
    new RegExp(`^${restarts} \\S+$`).test(out),
  );
}

/** gone asserts that the pod is not found any more. */
async function gone(version: KubectlVersion, name: string): Promise<void> {
  const run = await agent.kubectl(version, ["get", "pod", name]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, new RegExp(`pods "${name}" not found`));
}

for (const version of KUBECTL_VERSIONS) {
  const v = tag(version);

  test(`kubectl ${version} create -f creates the pod, which the agent runs; a second create is AlreadyExists`, { skip }, async () => {
    const file = await manifest(`create-${v}`, "sleep 300");
    const run = await agent.kubectl(version, ["create", "-f", file]);
    assert.deepEqual([run.code, run.stdout], [0, `pod/create-${v} created\n`], run.stderr);
    await untilRunning(version, `create-${v}`);
    const again = await agent.kubectl(version, ["create", "-f", file]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`pods "create-${v}" already exists`));
  });

  test(`kubectl ${version} create -f of a pod with an unknown field: ${version === "1.32" ? "refused by the server (Strict)" : "created with the server's warning (no fieldValidation: Warn)"}`, { skip }, async () => {
    const name = `unknown-${v}`;
    const text = podYaml(name, "sleep 300").replace("    image: busybox:1\n", "    image: busybox:1\n    foo: 1\n");
    const run = await agent.kubectl(version, ["create", "-f", await writeManifest(agent, `${name}.yaml`, text)]);
    if (version === "1.32") {
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`error when creating ".*${name}\\.yaml": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec\\.containers\\[0\\]\\.foo"`));
      await gone(version, name);
    } else {
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, `pod/${name} created\n`, 'Warning: unknown field "spec.containers[0].foo"\n']);
      await untilRunning(version, name);
    }
  });

  test(`kubectl ${version} apply -f: creates, a changed image restarts the container (logs -p shows the old one), a changed command is Forbidden`, { skip }, async () => {
    const name = `apply-${v}`;
    const first = await agent.kubectl(version, ["apply", "-f", await manifest(name, "echo first run; sleep 300")]);
    assert.deepEqual([first.code, first.stdout], [0, `pod/${name} created\n`], first.stderr);
    await untilRunning(version, name);
    await eventually(agent, version, ["logs", name], (out) => out === "first run\n");
    const changed = await agent.kubectl(version, ["apply", "-f", await manifest(name, "echo first run; sleep 300", { image: "busybox:2" })]);
    assert.deepEqual([changed.code, changed.stdout], [0, `pod/${name} configured\n`], changed.stderr);
    await untilRunning(version, name, 1);
    const image = await agent.kubectl(version, ["get", "pod", name, "-o", "jsonpath={.spec.containers[0].image}"]);
    assert.equal(image.stdout, "busybox:2");
    assert.equal((await agent.kubectl(version, ["logs", name, "-p"])).stdout, "first run\n");
    const forbidden = await agent.kubectl(version, ["apply", "-f", await manifest(name, "sleep 301", { image: "busybox:2" })]);
    assert.equal(forbidden.code, 1);
    assert.match(forbidden.stderr, new RegExp(`The Pod "${name}" is invalid: spec: Forbidden: pod updates may not change fields other than \`spec.containers\\[\\*\\].image\``));
    await untilRunning(version, name, 1);
  });

  test(`kubectl ${version} apply --server-side creates and updates; another manager's change of the image is a conflict`, { skip }, async () => {
    const name = `ssa-${v}`;
    const created = await agent.kubectl(version, ["apply", "--server-side", "-f", await manifest(name, "sleep 300")]);
    assert.deepEqual([created.code, created.stdout], [0, `pod/${name} serverside-applied\n`], created.stderr);
    await untilRunning(version, name);
    const updated = await agent.kubectl(version, ["apply", "--server-side", "-f", await manifest(name, "sleep 300", { image: "busybox:3" })]);
    assert.deepEqual([updated.code, updated.stdout], [0, `pod/${name} serverside-applied\n`], updated.stderr);
    await untilRunning(version, name, 1);
    const other = await manifest(name, "sleep 300", { image: "busybox:4" }, `${name}-other.yaml`);
    const conflict = await agent.kubectl(version, ["apply", "--server-side", "--field-manager=other", "-f", other]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.containers\[name="app"\]\.image/);
    const forced = await agent.kubectl(version, ["apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", other]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal((await agent.kubectl(version, ["get", "pod", name, "-o", "jsonpath={.spec.containers[0].image}"])).stdout, "busybox:4");
  });

  test(`kubectl ${version} wait --for=condition=Ready returns once the readiness probe passes`, { skip }, async () => {
    const name = `wait-${v}`;
    const ready = `${agent.dir}/${name}.ready`;
    assert.equal((await agent.kubectl(version, ["create", "-f", await manifest(name, "sleep 300", { readinessFile: ready })])).code, 0);
    await untilRunning(version, name);
    const notYet = await agent.kubectl(version, ["wait", "--for=condition=Ready", `pod/${name}`, "--timeout=1s"]);
    assert.equal(notYet.code, 1);
    assert.match(notYet.stderr, /timed out waiting for the condition/);
    const waiting = agent.kubectl(version, ["wait", "--for=condition=Ready", `pod/${name}`, "--timeout=20s"]);
    await writeManifest(agent, `${name}.ready`, "");
    const run = await waiting;
    assert.deepEqual([run.code, run.stdout], [0, `pod/${name} condition met\n`], run.stderr);
  });

  test(`kubectl ${version} delete waits for a graceful stop: the pod's TERM handler runs before the pod is gone`, { skip }, async () => {
    const name = `graceful-${v}`;
    const file = await manifest(name, "trap 'sleep 1.5; exit 0' TERM; while true; do sleep 0.1; done", { graceSeconds: 10 });
    assert.equal((await agent.kubectl(version, ["create", "-f", file])).code, 0);
    await untilRunning(version, name);
    const run = await agent.kubectl(version, ["delete", "pod", name]);
    assert.deepEqual([run.code, run.stdout], [0, `pod "${name}" deleted\n`], run.stderr);
    assert.ok(run.ms >= 1400, `kubectl returned after ${Math.round(run.ms)} ms, before the pod's 1.5 s TERM handler ended`);
    await gone(version, name);
  });

  test(`kubectl ${version} delete --grace-period=1 kills a pod that ignores TERM after 1 s, not its 30 s`, { skip }, async () => {
    const name = `grace1-${v}`;
    const file = await manifest(name, "trap '' TERM; while true; do sleep 0.1; done", { graceSeconds: 30 });
    assert.equal((await agent.kubectl(version, ["create", "-f", file])).code, 0);
    await untilRunning(version, name);
    const run = await agent.kubectl(version, ["delete", "pod", name, "--grace-period=1"]);
    assert.deepEqual([run.code, run.stdout], [0, `pod "${name}" deleted\n`], run.stderr);
    assert.ok(run.ms >= 900 && run.ms < 10_000, `kubectl took ${Math.round(run.ms)} ms`);
    await gone(version, name);
  });

  test(`kubectl ${version} delete pods -l deletes only the labelled pods`, { skip }, async () => {
    for (const [name, group] of [[`del-a-${v}`, "doomed"], [`del-b-${v}`, "doomed"], [`del-c-${v}`, "kept"]] as const) {
      assert.equal((await agent.kubectl(version, ["create", "-f", await manifest(name, "sleep 300", { labels: { group: `${group}-${v}` } })])).code, 0);
    }
    await untilRunning(version, `del-c-${v}`);
    const run = await agent.kubectl(version, ["delete", "pods", "-l", `group=doomed-${v}`]);
    assert.deepEqual([run.code, run.stdout], [0, `pod "del-a-${v}" deleted\npod "del-b-${v}" deleted\n`], run.stderr);
    const left = await agent.kubectl(version, ["get", "pods", "-l", `group in (doomed-${v},kept-${v})`, "-o", "name"]);
    assert.equal(left.stdout, `pod/del-c-${v}\n`);
  });

  for (const force of [false, true]) {
    test(`kubectl ${version} delete${force ? " --force --grace-period=0" : ""} of a static pod returns at once with a warning naming its file; the pod stays listed, its container untouched`, { skip }, async () => {
      const name = `static-${force ? "force-" : ""}${v}`;
      const file = join(agent.dir, "manifests", `${name}.yaml`);
      await writeFile(file, podYaml(name, "sleep 300", { graceSeconds: 30 }));
      await untilRunning(version, name);
      const ids = ["get", "pod", name, "-o", "jsonpath={.metadata.uid} {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}"];
      const [uid, containerId] = (await agent.kubectl(version, ids)).stdout.split(" ");
      const run = await agent.kubectl(version, ["delete", "pod", name, ...(force ? ["--force", "--grace-period=0"] : [])]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `pod "${name}" ${force ? "force deleted" : "deleted"}\n`);
      assert.ok(run.stderr.includes(`Warning: pod "${name}" runs from ${file} as a static pod and keeps running; to remove it, delete that file or the pod in it\n`), run.stderr);
      assert.ok(run.ms < 10_000, `kubectl took ${Math.round(run.ms)} ms`);
      const after = await eventually(agent, version, ids, (out) => !out.startsWith(`${uid} `));
      assert.equal(after.stdout.split(" ").slice(1).join(" "), `${containerId} 0`, "the same container, not restarted");
    });
  }

  test(`kubectl ${version} label, annotate and patch change a running pod's metadata; delete -f deletes the file's pod`, { skip }, async () => {
    const name = `meta-${v}`;
    const file = await manifest(name, "sleep 300");
    assert.equal((await agent.kubectl(version, ["create", "-f", file])).code, 0);
    await untilRunning(version, name);
    assert.equal((await agent.kubectl(version, ["label", "pod", name, "tier=web"])).stdout, `pod/${name} labeled\n`);
    assert.equal((await agent.kubectl(version, ["annotate", "pod", name, "owner=ops"])).stdout, `pod/${name} annotated\n`);
    const patched = await agent.kubectl(version, ["patch", "pod", name, "-p", '{"metadata":{"labels":{"tier":"db"}}}']);
    assert.deepEqual([patched.code, patched.stdout], [0, `pod/${name} patched\n`], patched.stderr);
    const meta = await agent.kubectl(version, ["get", "pod", name, "-o", "jsonpath={.metadata.labels.tier} {.metadata.annotations.owner} {.status.containerStatuses[0].restartCount}"]);
    assert.equal(meta.stdout, "db ops 0");
    const deleted = await agent.kubectl(version, ["delete", "-f", file, "--grace-period=1"]);
    assert.deepEqual([deleted.code, deleted.stdout], [0, `pod "${name}" deleted\n`], deleted.stderr);
    await gone(version, name);
  });
}

test("kubectl 1.32 exec prints the command's stdout and exits with its exit code", { skip }, async () => {
  assert.equal((await agent.kubectl("1.32", ["create", "-f", await manifest("exec-132", "sleep 300")])).code, 0);
  await untilRunning("1.32", "exec-132");
  const ok = await agent.kubectl("1.32", ["exec", "exec-132", "--", "echo", "hi"]);
  assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, "hi\n", ""]);
  const failed = await agent.kubectl("1.32", ["exec", "exec-132", "--", "sh", "-c", "echo out; exit 3"]);
  assert.deepEqual([failed.code, failed.stdout, failed.stderr], [3, "out\n", "command terminated with exit code 3\n"]);
  const piped = await agent.kubectl("1.32", ["exec", "-i", "exec-132", "--", "cat"], { input: "first\nsecond\n" });
  assert.deepEqual([piped.code, piped.stdout], [0, "first\nsecond\n"], piped.stderr);
});

test("kubectl 1.32 cp copies a file out of a pod through exec and tar (the process runtime's files are the host's)", { skip }, async () => {
  assert.equal((await agent.kubectl("1.32", ["create", "-f", await manifest("cp-132", "sleep 300")])).code, 0);
  await untilRunning("1.32", "cp-132");
  const source = await writeManifest(agent, "cp-source.txt", "copied through tar\n");
  const target = `${agent.dir}/cp-target.txt`;
  const run = await agent.kubectl("1.32", ["cp", `cp-132:${source}`, target]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await readFile(target, "utf8"), "copied through tar\n");
});

test("kubectl 1.20 exec (SPDY only) is refused at once with the message naming the WebSocket protocols", { skip }, async () => {
  assert.equal((await agent.kubectl("1.20", ["create", "-f", await manifest("exec-120", "sleep 300")])).code, 0);
  await untilRunning("1.20", "exec-120");
  const run = await agent.kubectl("1.20", ["exec", "exec-120", "--", "echo", "hi"], { timeoutMs: 10_000 });
  assert.equal(run.code, 1, "kubectl ended by itself, it did not hang");
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /SPDY\/3\.1 is not served; exec speaks WebSocket only \(v5\.channel\.k8s\.io or v4\.channel\.k8s\.io, kubectl 1\.30 or later\)/);
});
