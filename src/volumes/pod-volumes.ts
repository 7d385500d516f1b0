// A pod's volumes on this host, as the kubelet's volume manager sets them up before the pod's
// containers start (pkg/kubelet/volumemanager, pkg/volume/{emptydir,hostpath,configmap,secret,
// downwardapi,projected}): one directory per volume under `<root>/<pod uid>/volumes/` (the root
// and the pod directory are 0700), configMap/secret/downwardAPI/projected volumes written with
// the atomic writer and rewritten on every sync (so they follow changes), emptyDir created
// once, hostPath checked by type. Failures carry the kubelet's MountVolume.SetUp text.
import { mkdirSync } from "node:fs";
import { chmod, mkdir, readdir, realpath, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Container, Volume } from "../api/types.js";
import { writeAtomically } from "./atomic-writer.js";
import { ConfigObjectError } from "./config-objects.js";
import { setUpEmptyDir } from "./empty-dir.js";
import { checkHostPathType, HostPathTypeError } from "./host-path-check.js";
import { unmountUnder } from "./tmpfs-mounts.js";
import { changeVolumeOwnership, podFsGroup } from "./volume-ownership.js";
import { usesAtomicWriter, VolumeSetUpError, volumePayload, type PayloadContext } from "./volume-payload.js";

/** VolumeFailure is one volume that could not be set up. */
export interface VolumeFailure {
  volume: string;
  /** The kubelet's event text: `MountVolume.SetUp failed for volume "x" : …`. */
  message: string;
}

/** VolumeMountSpec is one mount for the runtime: a host path at a container path. */
export interface VolumeMountSpec {
  hostPath: string;
  containerPath: string;
  readonly: boolean;
}

/** SetUpResult is the host directory (or file) of every volume, or the volumes that failed (with the paths of those that did not). */
export type SetUpResult = { ok: true; paths: Map<string, string> } | { ok: false; failures: VolumeFailure[]; paths: Map<string, string> };

// The kubelet's plugin directory names (kubernetes.io~configmap and so on).
function pluginDir(volume: Volume): string {
  if (volume.configMap) return "kubernetes.io~configmap";
  if (volume.secret) return "kubernetes.io~secret";
  if (volume.downwardAPI) return "kubernetes.io~downward-api";
  if (volume.projected) return "kubernetes.io~projected";
  return "kubernetes.io~empty-dir";
}

/** PodVolumes sets up and tears down the volume directories of pods under one root. */
export class PodVolumes {
  constructor(private readonly root: string) {}

  /** podDir is where a pod's volumes live. */
  podDir(uid: string): string {
    return join(this.root, uid);
  }

  /** ensurePodDir makes the pod's directory (0700), for the files the agent keeps per pod (its managed /etc/hosts); synchronous. */
  ensurePodDir(uid: string): string {
    mkdirSync(this.podDir(uid), { recursive: true, mode: 0o700 });
    return this.podDir(uid);
  }

  /** setUp creates or refreshes every volume of the pod; it does not stop at the first failure. */
  async setUp(ctx: PayloadContext): Promise<SetUpResult> {
    const volumes = ctx.pod.spec.volumes ?? [];
    const uid = ctx.pod.metadata.uid ?? "";
    if (volumes.length === 0 || uid === "") return { ok: true, paths: new Map() };
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await mkdir(this.podDir(uid), { recursive: true, mode: 0o700 });
    const paths = new Map<string, string>();
    const failures: VolumeFailure[] = [];
    for (const volume of volumes) {
      try {
        paths.set(volume.name, await this.setUpOne(ctx, uid, volume));
      } catch (err) {
        // Any setup error (a missing object, a failed hostPath check, a file system error) is a
        // FailedMount for this volume, as the kubelet's operation executor reports it.
        const message = err instanceof VolumeSetUpError || err instanceof HostPathTypeError || err instanceof ConfigObjectError ? err.message : describeFsError(err);
        failures.push({ volume: volume.name, message: `MountVolume.SetUp failed for volume "${volume.name}" : ${message}` });
      }
    }
    return failures.length > 0 ? { ok: false, failures, paths } : { ok: true, paths };
  }

  private async setUpOne(ctx: PayloadContext, uid: string, volume: Volume): Promise<string> {
    if (volume.hostPath) {
      await checkHostPathType(volume.hostPath.path, volume.hostPath.type ?? "");
      return volume.hostPath.path;
    }
    const dir = join(this.podDir(uid), "volumes", pluginDir(volume), volume.name);
    const atomic = usesAtomicWriter(volume);
    if (atomic) {
      await mkdir(dir, { recursive: true, mode: 0o755 });
      await writeAtomically(dir, await volumePayload(ctx, volume));
    } else {
      await setUpEmptyDir(dir, ctx.pod, volume, ctx.node.memory);
    }
    // Every plugin's SetUpAt ends with the fsGroup ownership change (configMap, secret,
    // downwardAPI and projected volumes are read-only mounts: group read only).
    const fsGroup = podFsGroup(ctx.pod.spec.securityContext);
    if (fsGroup !== undefined) await changeVolumeOwnership(dir, fsGroup, atomic);
    return dir;
  }

  /**
   * removeOrphans removes the volume directories of pods the agent no longer has (kubelet
   * kubelet_volumes.go cleanupOrphanedPodDirs), e.g. those a killed agent left; returns how many.
   */
  async removeOrphans(isPodKnown: (uid: string) => boolean): Promise<number> {
    const uids = await readdir(this.root).catch(() => [] as string[]);
    let removed = 0;
    for (const uid of uids) {
      if (isPodKnown(uid)) continue;
      await this.tearDown(uid);
      removed++;
    }
    return removed;
  }

  /**
   * tearDown removes every volume directory of a pod (hostPath volumes are never touched), after
   * unmounting what is mounted in it (memory-backed emptyDirs); a mount that stays is an error and
   * its directory is kept, never deleted through.
   */
  async tearDown(uid: string): Promise<void> {
    if (uid === "") return;
    await unmountUnder(this.podDir(uid));
    await rm(this.podDir(uid), { recursive: true, force: true });
  }
}

function describeFsError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * makeSubPath creates a missing subPath with the mode of its volume's root, setgid included, as
 * the kubelet does (kubelet_pods.go makeMounts: GetMode(volumePath), then SafeMakeDir, which
 * fchmods every directory it made, whatever the umask), so an fsGroup's members can write in it.
 */
async function makeSubPath(base: string, wanted: string): Promise<void> {
  const mode = (await stat(base)).mode & 0o7777;
  const first = await mkdir(wanted, { recursive: true, mode: mode & 0o777 });
  if (first === undefined) return;
  for (let dir = wanted; dir.length >= first.length && dir.startsWith(first); dir = dirname(dir)) await chmod(dir, mode);
}

/** MountError is a volumeMount that cannot be prepared; the caller reports CreateContainerConfigError. */
export class MountError extends Error {
  override readonly name = "MountError";
}

/**
 * containerMounts maps a container's volumeMounts to host paths (kubelet kubelet_pods.go
 * makeMounts): a subPath must stay inside its volume after symlinks are resolved (it is created
 * when missing, as the kubelet does); configMap, secret, downwardAPI and projected volumes are
 * always read-only.
 */
export async function containerMounts(container: Container, volumes: readonly Volume[], paths: ReadonlyMap<string, string>): Promise<VolumeMountSpec[]> {
  const out: VolumeMountSpec[] = [];
  for (const m of container.volumeMounts ?? []) {
    const volume = volumes.find((v) => v.name === m.name);
    const base = paths.get(m.name);
    if (!volume || base === undefined) throw new MountError(`cannot find volume "${m.name}" to mount into container "${container.name}"`);
    let hostPath = base;
    if (m.subPath) {
      const wanted = join(base, m.subPath);
      const root = await realpath(base);
      const resolved = await realpath(wanted).catch(async () => {
        await makeSubPath(base, wanted);
        return realpath(wanted);
      });
      if (resolved !== root && !resolved.startsWith(`${root}/`)) {
        throw new MountError(`failed to prepare subPath for volumeMount "${m.name}" of container "${container.name}"`);
      }
      hostPath = resolved;
    }
    out.push({ hostPath, containerPath: m.mountPath, readonly: m.readOnly === true || usesAtomicWriter(volume) });
  }
  return out;
}
