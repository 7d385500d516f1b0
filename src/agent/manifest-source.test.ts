// The manifest directory with hostile files: an oversized or over-deep manifest is reported with
// its file name and reason, and the pods already running from it are kept. ConfigMaps and
// Secrets of a file are loaded before its pods; other kinds are skipped with a warning.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FakeClock, tick } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import type { Pod } from "../api/types.js";
import { silentLogger } from "../util/logger.js";
import type { KubeObject } from "../apiserver/storage/object-store.js";
import type { AdmitResult } from "./agent.js";
import { ManifestDirectory, type PodAdmitter, type SourceReport } from "./manifest-source.js";

const POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: busybox}]\n";

class RecordingAdmitter implements PodAdmitter {
  readonly admitted: string[] = [];
  readonly removed: string[] = [];
  admit(pod: Pod): AdmitResult {
    this.admitted.push(pod.metadata.name ?? "");
    return { ok: true, pod: { ...pod, metadata: { ...pod.metadata, uid: `uid-${pod.metadata.name ?? ""}` } } };
  }
  removeSource(source: string, keep?: ReadonlySet<string>): void {
    this.removed.push(`${source} keep=${[...(keep ?? [])].join(",")}`);
  }
  putConfigObjects(_source: string, objects: readonly KubeObject[]): string[] {
    this.admitted.push(`put ${objects.map((o) => `${o.kind ?? ""}/${o.metadata.name ?? ""}`).join(",")}`);
    return [];
  }
}

/** watchedDirectory is a temporary manifest directory watched for a RecordingAdmitter, both gone when the test ends. */
async function watchedDirectory(t: TestContext): Promise<{ dir: string; admitter: RecordingAdmitter; reports: SourceReport[]; manifests: ManifestDirectory }> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-manifests-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const admitter = new RecordingAdmitter();
  const reports: SourceReport[] = [];
  const manifests = new ManifestDirectory(dir, admitter, new FakeClock(), silentLogger, (r) => reports.push(r));
  t.after(() => manifests.close());
  return { dir, admitter, reports, manifests };
}

test("bounded input: an oversized or too-deep manifest file is reported by name and its running pods are kept", async (t) => {
  const { dir, admitter, reports, manifests } = await watchedDirectory(t);
  const path = join(dir, "web.yaml");
  await writeFile(path, POD);
  await manifests.scan();
  assert.deepEqual(admitter.admitted, ["put ", "web"]);
  const removedBefore = admitter.removed.length;

  await writeFile(path, `${POD}# ${"x".repeat(3 * 1024 * 1024)}\n`);
  await manifests.scan();
  await manifests.scan();
  assert.deepEqual(reports.slice(1).map((r) => r.errors), [["web.yaml: too large: limit is 3145728 bytes"]], "reported once, not at every rescan");

  await writeFile(path, `${"[".repeat(10_000)}${"]".repeat(10_000)}\n`);
  await manifests.scan();
  assert.deepEqual(reports.at(-1)?.errors, ["web.yaml:1: exceeded max depth of 100"]);
  await writeFile(join(dir, "deep.json"), "[".repeat(10_000));
  await manifests.scan();
  assert.deepEqual(reports.at(-1)?.errors, ["deep.json:1:101: exceeded max depth of 100"]);
  assert.equal(admitter.removed.length, removedBefore, "no pod was removed");
  assert.deepEqual(admitter.admitted, ["put ", "web"]);
});

const CONFIG_AND_POD = `apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {greeting: hello}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: s3cr3t-value}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-deploy}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: bad}
data: {"no spaces": x}
---
${POD}`;

test("a manifest's ConfigMaps and Secrets are loaded before its pods; a Deployment is skipped with a warning naming it; a bad ConfigMap is refused and the rest applies", async (t) => {
  const { dir, admitter, reports, manifests } = await watchedDirectory(t);
  await writeFile(join(dir, "app.yaml"), CONFIG_AND_POD);
  await manifests.scan();
  assert.deepEqual(admitter.admitted, ["put ConfigMap/cfg,Secret/creds", "web"]);
  assert.deepEqual(reports[0]?.warnings, ['app.yaml: skipping Deployment "web-deploy" (apps/v1): probelet runs Pods and loads ConfigMaps and Secrets from manifests; other kinds need a cluster']);
  assert.deepEqual(reports[0]?.errors, [
    'app.yaml: ConfigMap "bad" is invalid:',
    "  * data[no spaces]: Invalid value: \"no spaces\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ]);
  assert.doesNotMatch(JSON.stringify(reports), /s3cr3t-value/);

  await rm(join(dir, "app.yaml"));
  await manifests.scan();
  assert.deepEqual(admitter.admitted.at(-1), "put ", "a vanished file's objects go with it");
});

test("a watched manifest that does not apply becomes a Warning event on the node, and what runs from it keeps running", async (t) => {
  const { clock, agent } = startAgentOnFakes();
  t.after(() => agent.close(0));
  const dir = await mkdtemp(join(tmpdir(), "probelet-manifests-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const manifests = new ManifestDirectory(dir, agent, clock, silentLogger);
  t.after(() => manifests.close());
  const path = join(dir, "web.yaml");
  await writeFile(path, POD);
  await manifests.scan();
  await tick(clock);
  const before = agent.getPod("default", "web").metadata.uid;
  await writeFile(path, POD.replace("image: busybox", "image: busybox, bogus: 1"));
  await manifests.scan();
  await tick(clock);
  const events = agent.listEvents("default").filter((e) => e.reason === "ManifestRejected");
  assert.equal(events.length, 1, JSON.stringify(agent.listEvents("default")));
  assert.deepEqual([events[0]!.type, events[0]!.involvedObject.kind, events[0]!.involvedObject.name], ["Warning", "Node", "node-a"]);
  assert.equal(events[0]!.message, `Manifest ${path} not applied (what runs from it keeps running): strict decoding error: unknown field "spec.containers[0].bogus"`);
  assert.equal(agent.getPod("default", "web").metadata.uid, before, "the running pod is kept");
});
