import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, "..", "..", "..", "scripts", "e2e-images.sh");
const K8S_TOOLS = join(import.meta.dirname, "..", "..", "..", "scripts", "k8s-tools.sh");

async function built(): Promise<string | false> {
  if (process.getuid?.() !== 0) return "the image cache under /var/cache/probelet is root's";
  try {
    await run(K8S_TOOLS, ["path", "agnhost"]);
    await run(K8S_TOOLS, ["path", "pause"]);
    await run("sh", ["-c", "test -x /bin/bash-static && test -x /bin/busybox && command -v go"]);
    return false;
  } catch {
    return "agnhost and pause are not built (scripts/k8s-tools.sh build e2e), or bash-static, busybox-static or go is missing";
  }
}

test("the registry list maps every registry of the e2e framework to a localhost/ name, and the images carry those names", async () => {
  const { stdout: list } = await run(SCRIPT, ["list"]);
  const names = list.trim().split("\n");
  assert.deepEqual(names, [
    "localhost/e2e-test-images/agnhost:2.66.1",
    "localhost/e2e-test-images/agnhost:2.55",
    "localhost/e2e-test-images/busybox:1.37.0-2",
    "localhost/e2e-test-images/nginx:1.27.0-2",
    "localhost/k8s/pause:3.10.2",
  ]);
  const cache = await mkdtemp(join(tmpdir(), "e2e-images-"));
  try {
    const { stdout: path } = await run(SCRIPT, ["repo-list"], { env: { ...process.env, PROBELET_CACHE_DIR: cache } });
    const entries = (await readFile(path.trim(), "utf8")).trim().split("\n").map((l) => l.split(": "));
    // The nine registries of test/utils/image/manifest.go RegistryList.
    assert.equal(entries.length, 9);
    for (const [key, value] of entries) assert.match(value ?? "", /^localhost\//, `${key ?? ""} is mapped to a localhost/ name`);
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
});

test("build writes an OCI layout whose index names exactly the listed images, once", async (t) => {
  const skip = await built();
  if (skip) return t.skip(skip);
  // The images go beside the binaries, in the cache (a build with the same inputs is a no-op).
  const env = { ...process.env, GOTOOLCHAIN: "local" };
  await run(SCRIPT, ["build"], { env, maxBuffer: 4 * 1024 * 1024 });
  const { stdout: path } = await run(SCRIPT, ["repo-list"]);
  const { stdout: index } = await run("tar", ["-xOf", join(dirname(path.trim()), "images.tar"), "index.json"]);
  const named = (JSON.parse(index) as { manifests: { annotations: Record<string, string> }[] }).manifests.map((m) => m.annotations["io.containerd.image.name"]);
  const { stdout: list } = await run(SCRIPT, ["list"]);
  assert.deepEqual(named.sort(), list.trim().split("\n").sort());
  const { stderr } = await run(SCRIPT, ["build"], { env });
  assert.match(stderr, /images up to date/);
});
