import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../api/types.js";
import { emptyDirMemorySize, podMemoryLimit } from "./empty-dir.js";
import { mountsUnder, parseMountInfo, tmpfsNoswapSupported } from "./tmpfs-mounts.js";

const Mi = 1024 * 1024;

function pod(containers: Pod["spec"]["containers"], initContainers: Pod["spec"]["containers"] = []): Pod {
  return { metadata: { name: "p", uid: "u" }, spec: { containers, initContainers } };
}

test("the pod's memory limit needs every container's; regular containers and sidecars add up, an init container alone may be larger", () => {
  const lim = (memory: string) => ({ limits: { memory } });
  assert.equal(podMemoryLimit(pod([{ name: "a", resources: lim("64Mi") }, { name: "b", resources: lim("32Mi") }])), 96 * Mi);
  assert.equal(podMemoryLimit(pod([{ name: "a", resources: lim("64Mi") }, { name: "b" }])), undefined);
  assert.equal(podMemoryLimit(pod([{ name: "a", resources: lim("64Mi") }], [{ name: "init", resources: lim("200Mi") }])), 200 * Mi);
  assert.equal(podMemoryLimit(pod([{ name: "a", resources: lim("64Mi") }], [{ name: "side", restartPolicy: "Always", resources: lim("16Mi") }])), 80 * Mi);
});

test("a memory emptyDir's size is the smallest of node allocatable, the pod's limit and sizeLimit (calculateEmptyDirMemorySize)", () => {
  const node = 1024 * Mi;
  const p = pod([{ name: "a", resources: { limits: { memory: "128Mi" } } }]);
  assert.equal(emptyDirMemorySize(p, { name: "m", emptyDir: { medium: "Memory" } }, node), 128 * Mi);
  assert.equal(emptyDirMemorySize(p, { name: "m", emptyDir: { medium: "Memory", sizeLimit: "8Mi" } }, node), 8 * Mi);
  assert.equal(emptyDirMemorySize(p, { name: "m", emptyDir: { medium: "Memory", sizeLimit: "2Gi" } }, node), 128 * Mi);
  assert.equal(emptyDirMemorySize(pod([{ name: "a" }]), { name: "m", emptyDir: { medium: "Memory" } }, node), node);
});

test("the mount table: paths decoded, the mounts under a directory deepest first, nothing beside it", () => {
  const table = parseMountInfo(
    [
      "22 1 0:21 / / rw - ext4 /dev/vda rw",
      "40 22 0:40 / /var/lib/p/uid/volumes/kubernetes.io~empty-dir/m rw - tmpfs tmpfs rw,size=8192k",
      "41 40 0:41 / /var/lib/p/uid/volumes/kubernetes.io~empty-dir/m/in\\040it rw - tmpfs tmpfs rw",
      "42 22 0:42 / /var/lib/p/uid2/volumes/x rw - tmpfs tmpfs rw",
    ].join("\n"),
  );
  assert.deepEqual(table[2], { path: "/var/lib/p/uid/volumes/kubernetes.io~empty-dir/m/in it", fstype: "tmpfs" });
  assert.deepEqual(mountsUnder(table, "/var/lib/p/uid"), ["/var/lib/p/uid/volumes/kubernetes.io~empty-dir/m/in it", "/var/lib/p/uid/volumes/kubernetes.io~empty-dir/m"]);
  assert.deepEqual(mountsUnder(table, "/var/lib/p/ui"), []);
});

test("tmpfs noswap only from Linux 6.4 on", async () => {
  assert.equal(await tmpfsNoswapSupported("6.3.9"), false);
  assert.equal(await tmpfsNoswapSupported("5.15.0-91-generic"), false);
  assert.equal(await tmpfsNoswapSupported("bogus"), false);
});
