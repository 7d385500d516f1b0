import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readlink, rm, stat, statfs, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Pod, Volume } from "../api/types.js";
import { MemoryConfigObjects } from "./config-objects.js";
import { PodVolumes } from "./pod-volumes.js";
import { mountsBelow, SUBPATH_DIR } from "./subpath.js";
import { isTmpfsMount, mountsUnder, parseMountInfo } from "./tmpfs-mounts.js";

const node = { cpu: 2, memory: 2 ** 30, ephemeralStorage: 2 ** 30 };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pod-volumes-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function podWith(volumes: Volume[]): Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1", labels: { app: "a", tier: "b" } },
    spec: { containers: [{ name: "app", resources: { limits: { memory: "64Mi" } } }], volumes },
  };
}

async function setUp(root: string, volumes: Volume[], objects = new MemoryConfigObjects()) {
  return new PodVolumes(join(root, "volumes")).setUp({ pod: podWith(volumes), objects, addresses: { podIP: "10.0.0.1", hostIP: "10.0.0.2" }, node });
}

test("configMap volume: items with their own mode, the rest at defaultMode; the pod directory is 0700", async () => {
  await withDir(async (root) => {
    const objects = new MemoryConfigObjects();
    objects.putConfigMap({ metadata: { name: "cfg" }, data: { a: "1", b: "2" } });
    const result = await setUp(root, [{ name: "c", configMap: { name: "cfg", items: [{ key: "a", path: "dir/a.txt", mode: 0o600 }], defaultMode: 0o640 } }], objects);
    assert.ok(result.ok);
    const dir = result.paths.get("c")!;
    assert.equal(await readFile(join(dir, "dir/a.txt"), "utf8"), "1");
    assert.equal((await stat(join(dir, "dir/a.txt"))).mode & 0o777, 0o600);
    await assert.rejects(stat(join(dir, "b")));
    assert.equal((await stat(join(root, "volumes", "uid-1"))).mode & 0o777, 0o700);
  });
});

test("secret, downwardAPI and projected volumes write their files (labels as sorted k=\"v\" lines, resources by container)", async () => {
  await withDir(async (root) => {
    const objects = new MemoryConfigObjects();
    objects.putSecret({ metadata: { name: "s" }, data: { token: Buffer.from("t0k").toString("base64") } });
    objects.putConfigMap({ metadata: { name: "cfg" }, data: { a: "1" } });
    const result = await setUp(
      root,
      [
        { name: "sec", secret: { secretName: "s", defaultMode: 0o400 } },
        { name: "down", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }, { path: "mem", resourceFieldRef: { containerName: "app", resource: "limits.memory", divisor: "1Mi" } }] } },
        { name: "proj", projected: { defaultMode: 0o644, sources: [{ configMap: { name: "cfg" } }, { secret: { name: "s", items: [{ key: "token", path: "creds/token" }] } }, { downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } }] } },
      ],
      objects,
    );
    assert.ok(result.ok);
    const sec = result.paths.get("sec")!;
    assert.equal(await readFile(join(sec, "token"), "utf8"), "t0k");
    assert.equal((await stat(join(sec, "token"))).mode & 0o777, 0o400);
    const down = result.paths.get("down")!;
    assert.equal(await readFile(join(down, "labels"), "utf8"), 'app="a"\ntier="b"');
    assert.equal(await readFile(join(down, "mem"), "utf8"), "64");
    const proj = result.paths.get("proj")!;
    assert.deepEqual([await readFile(join(proj, "a"), "utf8"), await readFile(join(proj, "creds/token"), "utf8"), await readFile(join(proj, "name"), "utf8")], ["1", "t0k", "web"]);
  });
});

test("a missing required ConfigMap or Secret fails with the kubelet's MountVolume.SetUp message; optional ones give an empty volume", async () => {
  await withDir(async (root) => {
    const result = await setUp(root, [
      { name: "c", configMap: { name: "nope" } },
      { name: "s", secret: { secretName: "gone" } },
      { name: "p", projected: { sources: [{ configMap: { name: "nope" } }] } },
      { name: "o", configMap: { name: "nope", optional: true } },
    ]);
    assert.deepEqual(result.ok ? [] : result.failures, [
      { volume: "c", message: 'MountVolume.SetUp failed for volume "c" : configmap "nope" not found' },
      { volume: "s", message: 'MountVolume.SetUp failed for volume "s" : secret "gone" not found' },
      { volume: "p", message: 'MountVolume.SetUp failed for volume "p" : configmap "nope" not found' },
    ]);
  });
});

test("an item naming a key the ConfigMap lacks fails as the configmap plugin says", async () => {
  await withDir(async (root) => {
    const objects = new MemoryConfigObjects();
    objects.putConfigMap({ metadata: { name: "cfg" }, data: { a: "1" } });
    const result = await setUp(root, [{ name: "c", configMap: { name: "cfg", items: [{ key: "zz", path: "z" }] } }], objects);
    assert.deepEqual(result.ok ? [] : result.failures.map((f) => f.message), ['MountVolume.SetUp failed for volume "c" : configmap references non-existent config key: zz']);
  });
});

test("hostPath types are checked as the kubelet checks them; *OrCreate types create what is missing", async () => {
  await withDir(async (root) => {
    const file = join(root, "file");
    await writeFile(file, "x");
    const fail = async (type: string, path: string): Promise<string> => {
      const result = await setUp(root, [{ name: "h", hostPath: { path, type } }]);
      return result.ok ? "ok" : result.failures[0]!.message;
    };
    assert.equal(await fail("Directory", file), `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${file} is not a directory`);
    assert.equal(await fail("File", root), `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${root} is not a file`);
    assert.equal(await fail("Socket", file), `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${file} is not a socket file`);
    assert.equal(await fail("Directory", join(root, "missing")), `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${join(root, "missing")} is not a directory`);
    assert.equal(await fail("DirectoryOrCreate", join(root, "made/deep")), "ok");
    assert.ok((await stat(join(root, "made/deep"))).isDirectory());
    assert.equal(await fail("FileOrCreate", join(root, "made/f")), "ok");
    assert.ok((await stat(join(root, "made/f"))).isFile());
    assert.equal(await fail("", join(root, "whatever")), "ok");
  });
});

const noRoot = process.getuid?.() === 0 ? false : "subPath binds need root (mount)";

test("containerMounts: a subPath is made inside its volume and bound at volume-subpaths/<volume>/<container>/<index>; projected volumes read-only; an escape refused; tearDown unmounts first", { skip: noRoot }, async () => {
  await withDir(async (root) => {
    const volumes = new PodVolumes(join(root, "volumes"));
    const result = await setUp(root, [{ name: "e", emptyDir: {} }, { name: "d", downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } }]);
    assert.ok(result.ok);
    const declared: Volume[] = [{ name: "e", emptyDir: {} }, { name: "d", downwardAPI: {} }];
    const e = result.paths.get("e")!;
    const target = join(root, "volumes", "uid-1", SUBPATH_DIR, "e", "app", "0");
    try {
      const mounts = await volumes.containerMounts("uid-1", { name: "app", volumeMounts: [{ name: "e", mountPath: "/cache", subPath: "sub/dir" }, { name: "d", mountPath: "/info" }] }, declared, result.paths);
      assert.deepEqual(mounts, [
        { hostPath: target, containerPath: "/cache", readonly: false },
        { hostPath: result.paths.get("d")!, containerPath: "/info", readonly: true },
      ]);
      assert.equal((await stat(join(e, "sub/dir"))).mode & 0o777, 0o777, "the emptyDir's mode");
      await writeFile(join(e, "sub/dir/f"), "x");
      assert.equal(await readFile(join(target, "f"), "utf8"), "x", "the bind shows the subPath");
      await mkdir(join(e, "x"));
      await symlink("/etc", join(e, "x/out"));
      await assert.rejects(volumes.containerMounts("uid-1", { name: "app", volumeMounts: [{ name: "e", mountPath: "/m", subPath: "x/out" }] }, declared, result.paths), /^MountError: failed to prepare subPath for volumeMount "e" of container "app"$/);
    } finally {
      await volumes.tearDown("uid-1");
    }
    assert.deepEqual(mountsBelow(root), []);
    await assert.rejects(stat(join(root, "volumes", "uid-1")));
  });
});

test("removeOrphans removes the volume directories of pods the agent no longer has, and only those", async () => {
  await withDir(async (root) => {
    const volumes = new PodVolumes(join(root, "volumes"));
    await mkdir(join(root, "volumes", "gone", "volumes"), { recursive: true });
    await mkdir(join(root, "volumes", "kept", "volumes"), { recursive: true });
    assert.equal(await volumes.removeOrphans((uid) => uid === "kept"), 1);
    await assert.rejects(stat(join(root, "volumes", "gone")));
    assert.ok((await stat(join(root, "volumes", "kept"))).isDirectory());
    assert.equal(await new PodVolumes(join(root, "absent")).removeOrphans(() => false), 0);
  });
});

/** kubeApiAccess is the volume the ServiceAccount admission plugin adds to every pod. */
const kubeApiAccess: Volume = {
  name: "kube-api-access-x7k2p",
  projected: {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  },
};

test("projected kube-api-access volume: the bound token, kube-root-ca.crt and the namespace at 0644; a new token is swapped in atomically", async () => {
  await withDir(async (root) => {
    const objects = new MemoryConfigObjects();
    objects.putConfigMap({ metadata: { name: "kube-root-ca.crt" }, data: { "ca.crt": "-----BEGIN CERTIFICATE-----\n" } });
    let issued = 0;
    const asked: unknown[] = [];
    const tokens = {
      token: async (...args: unknown[]): Promise<string> => {
        asked.push(args);
        return `jwt-${++issued}`;
      },
      forgetPod: () => undefined,
    };
    const volumes = new PodVolumes(join(root, "volumes"));
    const pod = { ...podWith([kubeApiAccess]), spec: { ...podWith([]).spec, serviceAccountName: "builder", volumes: [kubeApiAccess] } };
    const ctx = { pod, objects, addresses: { podIP: "10.0.0.1", hostIP: "10.0.0.2" }, node, tokens };
    const first = await volumes.setUp(ctx);
    assert.ok(first.ok);
    const dir = first.paths.get(kubeApiAccess.name)!;
    assert.deepEqual(asked, [["default", "builder", { name: "web", uid: "uid-1" }, undefined, 3607]]);
    assert.equal(await readFile(join(dir, "token"), "utf8"), "jwt-1");
    assert.equal(await readFile(join(dir, "ca.crt"), "utf8"), "-----BEGIN CERTIFICATE-----\n");
    assert.equal(await readFile(join(dir, "namespace"), "utf8"), "default");
    for (const f of ["token", "ca.crt", "namespace"]) assert.equal((await stat(join(dir, f))).mode & 0o777, 0o644, f);
    const before = await readlink(join(dir, "..data"));
    assert.ok((await volumes.setUp(ctx)).ok);
    assert.equal(await readFile(join(dir, "token"), "utf8"), "jwt-2");
    assert.notEqual(await readlink(join(dir, "..data")), before, "the new token went into a new timestamped directory");
    // With an fsGroup the projected plugin writes the token 0600, then SetVolumeOwnership adds
    // group read (a read-only volume): 0640.
    const grouped = { ...ctx, pod: { ...pod, spec: { ...pod.spec, securityContext: { fsGroup: process.getgid!() } } } };
    assert.ok((await volumes.setUp(grouped)).ok);
    assert.equal((await stat(join(dir, "token"))).mode & 0o777, 0o640);
  });
});

test("projected volume: every failed source is reported together, and a token projection fails without a token source (standalone)", async () => {
  await withDir(async (root) => {
    const result = await setUp(root, [kubeApiAccess]);
    assert.deepEqual(result.ok ? [] : result.failures.map((f) => f.message), [
      `MountVolume.SetUp failed for volume "${kubeApiAccess.name}" : [cannot use TokenManager when kubelet is in standalone mode, configmap "kube-root-ca.crt" not found]`,
    ]);
  });
});

test("emptyDir: the directory is 0777 whatever the agent's umask (the kubelet chmods it)", async () => {
  await withDir(async (root) => {
    const old = process.umask(0o077);
    try {
      const result = await setUp(root, [{ name: "e", emptyDir: {} }]);
      assert.ok(result.ok);
      assert.equal((await stat(result.paths.get("e")!)).mode & 0o7777, 0o777);
    } finally {
      process.umask(old);
    }
  });
});

test("fsGroup: volumes get the group, group read/write (read only for configMap), directories setgid", async () => {
  await withDir(async (root) => {
    const gid = process.getgid!();
    const objects = new MemoryConfigObjects();
    objects.putConfigMap({ metadata: { name: "cfg" }, data: { a: "1" } });
    const pod = podWith([{ name: "e", emptyDir: {} }, { name: "c", configMap: { name: "cfg", defaultMode: 0o400 } }]);
    pod.spec.securityContext = { fsGroup: gid };
    const volumes = new PodVolumes(join(root, "volumes"));
    const result = await volumes.setUp({ pod, objects, addresses: { podIP: "", hostIP: "" }, node });
    assert.ok(result.ok);
    const e = await stat(result.paths.get("e")!);
    assert.equal(e.mode & 0o7777, 0o2777);
    assert.equal(e.gid, gid);
    const file = await stat(join(result.paths.get("c")!, "a"));
    assert.equal(file.mode & 0o777, 0o440, "0400 plus group read");
    assert.equal(file.gid, gid);
    const data = await stat(join(result.paths.get("c")!, "..data"));
    assert.equal(data.gid, gid);
  });
});

test("emptyDir medium Memory: a tmpfs sized by sizeLimit (root), unmounted when the pod's volumes are torn down", { skip: process.getuid?.() !== 0 ? "mounting a tmpfs needs root" : false }, async () => {
  await withDir(async (root) => {
    const volumes = new PodVolumes(join(root, "volumes"));
    const pod = podWith([{ name: "m", emptyDir: { medium: "Memory", sizeLimit: "8Mi" } }]);
    const result = await volumes.setUp({ pod, objects: new MemoryConfigObjects(), addresses: { podIP: "", hostIP: "" }, node });
    assert.ok(result.ok);
    const dir = result.paths.get("m")!;
    try {
      assert.ok(await isTmpfsMount(dir), "a tmpfs is mounted on the volume");
      assert.equal((await statfs(dir)).blocks * (await statfs(dir)).bsize, 8 * 1024 * 1024);
      assert.equal((await stat(dir)).mode & 0o7777, 0o1777, "the tmpfs root keeps its 1777, as the kubelet's chmod came before the mount");
      // A second sync finds the mount and does not stack another.
      assert.ok((await volumes.setUp({ pod, objects: new MemoryConfigObjects(), addresses: { podIP: "", hostIP: "" }, node })).ok);
      assert.equal(mountsUnder(parseMountInfo(await readFile("/proc/self/mountinfo", "utf8")), dir).length, 1);
    } finally {
      await volumes.tearDown("uid-1");
    }
    assert.equal(await isTmpfsMount(dir), false);
    await assert.rejects(stat(join(root, "volumes", "uid-1")), { code: "ENOENT" });
  });
});

test("a missing subPath is made with its volume's mode, setgid included, whatever the umask (makeMounts with SafeMakeDir)", { skip: noRoot }, async () => {
  await withDir(async (root) => {
    const old = process.umask(0o077);
    try {
      const pod = podWith([{ name: "e", emptyDir: {} }]);
      pod.spec.securityContext = { fsGroup: process.getgid!() };
      const volumes = new PodVolumes(join(root, "volumes"));
      const result = await volumes.setUp({ pod, objects: new MemoryConfigObjects(), addresses: { podIP: "", hostIP: "" }, node });
      assert.ok(result.ok);
      try {
        const [mount] = await volumes.containerMounts("uid-1", { name: "app", image: "img", volumeMounts: [{ name: "e", mountPath: "/t", subPath: "a/b" }] }, pod.spec.volumes!, result.paths);
        assert.equal((await stat(mount!.hostPath)).mode & 0o7777, 0o2777);
        assert.equal((await stat(join(result.paths.get("e")!, "a"))).mode & 0o7777, 0o2777);
      } finally {
        await volumes.tearDown("uid-1");
      }
    } finally {
      process.umask(old);
    }
  });
});
