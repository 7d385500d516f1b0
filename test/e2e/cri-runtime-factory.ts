// The CRI (containerd) RuntimeFactory of the e2e cases, and the file-level leftover check of the
// CRI test files. The containerd is the private one of scripts/containerd.sh:
//   PROBELET_CRI_DIR=/tmp/probelet-cri-e2e eval "$(scripts/containerd.sh start)"
// which exports PROBELET_CRI_SOCKET and PROBELET_CRI_CGROUP_PARENT (read here).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after } from "node:test";
import { CriRuntime } from "../../src/runtime/cri/cri-runtime.js";
import { podCgroupParent } from "../../src/runtime/cri/convert.js";
import { cgroupMountPoints } from "../../src/runtime/cri/pod-cgroups.js";
import { criTestEnv } from "../cri/containerd-env.js";
import { CRI_IMAGES } from "./cri-pod-kit.js";
import type { RuntimeFactory } from "./runtime-factory.js";
import { createdPodUids, describeLeftovers, sweepSandboxes } from "./sandbox-cleanup.js";

/** CRI_CALL_TIMEOUT_MS bounds each CRI call of the agent's runtime (CriRuntime's default too). */
const CRI_CALL_TIMEOUT_MS = 10_000;

/** missingImages lists which of `wanted` containerd's k8s.io namespace lacks (asks `ctr`, not the env). */
function missingImages(socket: string, wanted: readonly string[]): string[] | string {
  let listed: string;
  try {
    listed = execFileSync("ctr", ["-a", socket, "-n", "k8s.io", "images", "ls", "-q"], { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    return `cannot list containerd's images with ctr: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
  }
  const present = new Set(listed.split("\n").map((l) => l.trim()));
  return wanted.filter((image) => !present.has(image));
}

let availability: { reason: string | undefined } | undefined;

/** criUnavailableReason is why the CRI cases cannot run here (memoised: ctr runs once per file), or undefined. */
export function criUnavailableReason(): string | undefined {
  if (availability) return availability.reason;
  const found = criTestEnv();
  let reason: string | undefined;
  if (found.skip !== false) {
    reason = found.skip;
  } else {
    const missing = missingImages(found.env.socket, CRI_IMAGES);
    if (typeof missing === "string") reason = missing;
    else if (missing.length > 0) reason = `images missing in containerd (scripts/containerd.sh images): ${missing.join(", ")}`;
  }
  availability = { reason };
  return reason;
}

/** criCgroupPrefix is the pod cgroup prefix: PROBELET_CRI_CGROUP_PARENT, as scripts/containerd.sh sets it. */
export function criCgroupPrefix(): string {
  return process.env["PROBELET_CRI_CGROUP_PARENT"] || "/probelet-test";
}

/** newCriRuntime opens a CriRuntime on PROBELET_CRI_SOCKET and checks that it answers. */
async function newCriRuntime(): Promise<CriRuntime> {
  const socket = process.env["PROBELET_CRI_SOCKET"] ?? "";
  const runtime = new CriRuntime({ socket, cgroupPrefix: criCgroupPrefix(), callTimeoutMs: CRI_CALL_TIMEOUT_MS });
  try {
    await runtime.version();
  } catch (err) {
    await runtime.close();
    throw err;
  }
  return runtime;
}

/**
 * criRuntimeFactory runs each case's pods as real containers in the private containerd (hostNetwork
 * pods, images localhost/probelet/*). Skipped unless root, containerd installed,
 * PROBELET_CRI_SOCKET set with a socket there, and every image of CRI_IMAGES imported.
 */
export const criRuntimeFactory: RuntimeFactory = {
  name: "cri",
  available: criUnavailableReason,
  create: newCriRuntime,
};

/** leftoverPodCgroups lists pod cgroup directories of `uids` under the prefix, in every hierarchy. */
async function leftoverPodCgroups(uids: ReadonlySet<string>): Promise<string[]> {
  const mounts = await cgroupMountPoints();
  const found: string[] = [];
  for (const uid of uids) {
    for (const mount of mounts) {
      const dir = join(mount, podCgroupParent(criCgroupPrefix(), uid));
      if (existsSync(dir)) found.push(dir);
    }
  }
  return found;
}

/**
 * assertNoCriLeftoversAfterAll registers an `after` hook (call inside a describe): once every case
 * of the file has cleaned up, no sandbox of any pod the file created may remain in containerd
 * (any found is removed, then the hook fails), and no pod cgroup of those pods may remain.
 * Nothing is checked when the CRI cases were skipped.
 */
export function assertNoCriLeftoversAfterAll(): void {
  after(async () => {
    if (criUnavailableReason() !== undefined || createdPodUids.size === 0) return;
    const runtime = await newCriRuntime();
    try {
      const left = await sweepSandboxes(runtime, createdPodUids);
      assert.equal(left.length, 0, `sandboxes of this file's pods left in containerd (removed now):\n${describeLeftovers(left)}`);
      const cgroups = await leftoverPodCgroups(createdPodUids);
      assert.deepEqual(cgroups, [], `pod cgroups left behind:\n${cgroups.join("\n")}`);
    } finally {
      await runtime.close();
    }
  });
}
