import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContainerConfig, PodSandboxConfig } from "../runtime.js";
import {
  containerConfig,
  containerFilter,
  containerInfo,
  containerState,
  nsToMs,
  podCgroupParent,
  sandboxConfig,
  sandboxFilter,
  sandboxStatus,
} from "./convert.js";
import type { CriContainerStatus } from "./cri-types.js";

const pod: PodSandboxConfig = {
  podUid: "0f1e2d3c-aaaa-bbbb-cccc-000000000001",
  name: "web",
  namespace: "prod",
  attempt: 2,
  hostNetwork: true,
  logDirectory: "/var/log/pods/prod_web_uid",
  labels: { "io.kubernetes.pod.uid": "0f1e2d3c-aaaa-bbbb-cccc-000000000001" },
  annotations: { note: "x" },
};

const container: ContainerConfig = {
  name: "app",
  attempt: 3,
  image: "localhost/probelet/busybox:1",
  command: ["sh", "-c"],
  args: ["echo hi"],
  workingDir: "/tmp",
  envs: [{ key: "A", value: "1" }],
  labels: { l: "1" },
  annotations: { a: "2" },
  logPath: "app/3.log",
};

test("nsToMs keeps int64 nanoseconds exact beyond 2^53 (no float on the way)", () => {
  const cases: [string | number | bigint, number][] = [
    ["0", 0],
    ["", 0],
    ["1763779096012736489", 1763779096012],
    ["1763779096012999999", 1763779096012],
    ["9223372036854775807", 9223372036854],
    [1_500_000, 1],
    [12_345_678_901_234_567n, 12_345_678_901],
  ];
  for (const [input, expected] of cases) assert.equal(nsToMs(input), expected, String(input));
});

test("containerConfig turns each volume mount into a CRI Mount: host path, container path, readonly", () => {
  const mounts = [
    { hostPath: "/state/volumes/u/volumes/kubernetes.io~configmap/cfg", containerPath: "/etc/cfg", readonly: true },
    { hostPath: "/srv/data", containerPath: "/data", readonly: false },
  ];
  assert.deepEqual(containerConfig({ ...container, mounts }, pod).mounts, [
    { container_path: "/etc/cfg", host_path: "/state/volumes/u/volumes/kubernetes.io~configmap/cfg", readonly: true },
    { container_path: "/data", host_path: "/srv/data", readonly: false },
  ]);
});

test("sandboxConfig: hostNetwork → network NODE, own pid, pod ipc; cgroup <prefix>/pod<uid>; no hostname", () => {
  assert.deepEqual(sandboxConfig(pod, "/probelet-abc"), {
    metadata: { name: "web", uid: pod.podUid, namespace: "prod", attempt: 2 },
    hostname: "",
    log_directory: "/var/log/pods/prod_web_uid",
    labels: { "io.kubernetes.pod.uid": pod.podUid },
    annotations: { note: "x" },
    linux: {
      cgroup_parent: `/probelet-abc/pod${pod.podUid}`,
      security_context: { namespace_options: { network: "NODE", pid: "CONTAINER", ipc: "POD" } },
    },
  });
});

test("sandboxConfig: pod network → network POD and the pod name as hostname (63 characters at most)", () => {
  const long = { ...pod, hostNetwork: false, name: `${"a".repeat(62)}-bbb` };
  const config = sandboxConfig(long, "probelet");
  assert.equal(config.hostname, "a".repeat(62));
  assert.deepEqual(config.linux.security_context.namespace_options, { network: "POD", pid: "CONTAINER", ipc: "POD" });
  assert.equal(config.linux.cgroup_parent, `/probelet/pod${pod.podUid}`);
});

test("sandboxConfig: the agent's host name for the pod, and its sysctls in linux.sysctls (none: no field)", () => {
  const config = sandboxConfig({ ...pod, hostNetwork: false, hostname: "web-0", sysctls: { "kernel.shm_rmid_forced": "1" } }, "probelet");
  assert.equal(config.hostname, "web-0");
  assert.deepEqual(config.linux.sysctls, { "kernel.shm_rmid_forced": "1" });
  assert.equal(sandboxConfig({ ...pod, hostname: "web-0" }, "probelet").hostname, "", "a host-network pod keeps the node's name");
  assert.equal(sandboxConfig({ ...pod, sysctls: {} }, "probelet").linux.sysctls, undefined);
  assert.equal(sandboxConfig({ ...pod, privileged: true }, "probelet").linux.security_context.privileged, true);
});

test("containerConfig: readOnlyRootFilesystem travels as readonly_rootfs, the groups as supplemental_groups, only when set", () => {
  assert.equal(containerConfig({ ...container, security: { readonlyRootfs: true } }, pod).linux.security_context.readonly_rootfs, true);
  assert.equal(containerConfig(container, pod).linux.security_context.readonly_rootfs, undefined);
  assert.deepEqual(containerConfig({ ...container, security: { supplementalGroups: [2000, 5] } }, pod).linux.security_context.supplemental_groups, ["2000", "5"]);
  assert.equal(containerConfig(container, pod).linux.security_context.supplemental_groups, undefined);
  assert.equal(containerConfig({ ...container, security: { privileged: true } }, pod).linux.security_context.privileged, true);
  assert.equal(containerConfig(container, pod).linux.security_context.privileged, undefined);
});

test("podCgroupParent keeps the UID but never a path separator", () => {
  assert.equal(podCgroupParent("/x/", "a/b c"), "/x/poda_b_c");
  assert.equal(podCgroupParent("/probelet", "1234-abcd"), "/probelet/pod1234-abcd");
});

test("containerConfig copies the config, sets the namespaces from the pod and the memory limit", () => {
  const config = containerConfig(container, pod);
  assert.deepEqual(config, {
    metadata: { name: "app", attempt: 3 },
    image: { image: "localhost/probelet/busybox:1", user_specified_image: "localhost/probelet/busybox:1" },
    command: ["sh", "-c"],
    args: ["echo hi"],
    working_dir: "/tmp",
    envs: [{ key: "A", value: Buffer.from("1") }],
    labels: { l: "1" },
    annotations: { a: "2" },
    log_path: "app/3.log",
    linux: { security_context: { namespace_options: { network: "NODE", pid: "CONTAINER", ipc: "POD" } } },
  });
  config.command.push("x");
  assert.deepEqual(container.command, ["sh", "-c"]);
  const { workingDir: _w, ...noDir } = container;
  assert.equal(containerConfig(noDir, { ...pod, hostNetwork: false }).working_dir, "");
  assert.equal(containerConfig(noDir, { ...pod, hostNetwork: false }).linux.security_context.namespace_options.network, "POD");
  // resources.limits.memory travels as int64 memory_limit_in_bytes; no limit sends no resources.
  assert.deepEqual(containerConfig({ ...container, memoryLimitBytes: 67108864 }, pod).linux.resources, { memory_limit_in_bytes: "67108864" });
  assert.equal(containerConfig(container, pod).linux.resources, undefined);
});

test("containerConfig creates the container of the image's ref EnsureImageExists resolved, and names the spec's image as user_specified_image (kubelet generateContainerConfig)", () => {
  const config = containerConfig({ ...container, imageRef: "sha256:65ccb2c9ae8587a4c5bb917ae6614eb06a876fb33a1865a26b58334179f0232f" }, pod);
  assert.deepEqual(config.image, { image: "sha256:65ccb2c9ae8587a4c5bb917ae6614eb06a876fb33a1865a26b58334179f0232f", user_specified_image: "localhost/probelet/busybox:1" });
});

test("containerConfig passes the termination message mount and runAsUser (CRI mounts, run_as_user), and neither when unset", () => {
  const mount = { containerPath: "/dev/termination-log", hostPath: "/state/pods/ns_p_u/app/0.termination-log", readonly: false };
  const withBoth = containerConfig({ ...container, mounts: [mount], security: { runAsUser: 10000 } }, pod);
  assert.deepEqual(withBoth.mounts, [{ container_path: "/dev/termination-log", host_path: "/state/pods/ns_p_u/app/0.termination-log", readonly: false }]);
  assert.deepEqual(withBoth.linux.security_context.run_as_user, { value: "10000" });
  const plain = containerConfig(container, pod);
  assert.equal(plain.mounts, undefined);
  assert.equal(plain.linux.security_context.run_as_user, undefined);
  assert.deepEqual(containerConfig({ ...container, security: { runAsUser: 0 } }, pod).linux.security_context.run_as_user, { value: "0" }, "root is a user too");
});

test("containerConfig passes the rest of the security context as CRI's LinuxContainerSecurityContext fields", () => {
  const security = { runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [2000, 4000], capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] }, noNewPrivs: true, privileged: false };
  assert.deepEqual(containerConfig({ ...container, security }, pod).linux.security_context, {
    namespace_options: containerConfig(container, pod).linux.security_context.namespace_options,
    run_as_user: { value: "1000" },
    run_as_group: { value: "3000" },
    supplemental_groups: ["2000", "4000"],
    capabilities: { add_capabilities: ["NET_ADMIN"], drop_capabilities: ["ALL"] },
    no_new_privs: true,
  });
});

test("containerInfo maps CRI's status: states, ns → ms, image_ref (the pod status's imageID), reason, message, log path", () => {
  const status: CriContainerStatus = {
    id: "c1",
    metadata: { name: "app", attempt: 1 },
    state: "CONTAINER_EXITED",
    created_at: "1763779096012736489",
    started_at: "1763779096100000001",
    finished_at: "1763779099999999999",
    exit_code: 137,
    image: { image: "localhost/probelet/busybox:1" },
    image_ref: "localhost/probelet/busybox@sha256:abc",
    reason: "OOMKilled",
    message: "",
    labels: { l: "1" },
    annotations: {},
    log_path: "/logs/app/1.log",
  };
  assert.deepEqual(containerInfo(status, "sb1"), {
    id: "c1",
    podSandboxId: "sb1",
    name: "app",
    attempt: 1,
    state: "exited",
    image: "localhost/probelet/busybox:1",
    imageRef: "localhost/probelet/busybox@sha256:abc",
    createdAt: 1763779096012,
    startedAt: 1763779096100,
    finishedAt: 1763779099999,
    exitCode: 137,
    reason: "OOMKilled",
    message: "",
    labels: { l: "1" },
    annotations: {},
    logPath: "/logs/app/1.log",
  });
  const states: [string, string][] = [
    ["CONTAINER_CREATED", "created"],
    ["CONTAINER_RUNNING", "running"],
    ["CONTAINER_EXITED", "exited"],
    ["CONTAINER_UNKNOWN", "unknown"],
    ["7", "unknown"],
  ];
  for (const [cri, ours] of states) assert.equal(containerState(cri), ours);
});

test("sandboxStatus maps the pod IP, state and metadata", () => {
  const status = sandboxStatus({
    id: "s1",
    metadata: { name: "web", uid: "u", namespace: "prod", attempt: 1 },
    state: "SANDBOX_NOTREADY",
    created_at: "1763779096012736489",
    network: { ip: "10.244.77.2", additional_ips: [] },
    linux: null,
    labels: { a: "b" },
    annotations: {},
  });
  assert.deepEqual(status, {
    id: "s1",
    podUid: "u",
    name: "web",
    namespace: "prod",
    attempt: 1,
    state: "notready",
    podIP: "10.244.77.2",
    createdAt: 1763779096012,
    labels: { a: "b" },
    annotations: {},
  });
});

test("filters map to CRI's filter fields (labels → label_selector)", () => {
  assert.equal(containerFilter(undefined), undefined);
  assert.deepEqual(containerFilter({ podSandboxId: "s", state: "running", labels: { a: "b" } }), {
    pod_sandbox_id: "s",
    state: { state: "CONTAINER_RUNNING" },
    label_selector: { a: "b" },
  });
  assert.deepEqual(containerFilter({}), {});
  assert.equal(sandboxFilter(undefined), undefined);
  assert.deepEqual(sandboxFilter({ state: "notready", labels: { x: "y" } }), { state: { state: "SANDBOX_NOTREADY" }, label_selector: { x: "y" } });
  assert.deepEqual(sandboxFilter({ state: "ready" }), { state: { state: "SANDBOX_READY" } });
});

test("#139168 containerConfig sends env values as bytes: a value that is not UTF-8 as its exact bytes", () => {
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  const config = containerConfig({ ...container, envs: [{ key: "RAW", value: raw.toString("utf8"), valueBase64: raw.toString("base64") }, { key: "T", value: "é" }] }, pod);
  assert.deepEqual(config.envs, [{ key: "RAW", value: raw }, { key: "T", value: Buffer.from("é") }]);
});
