// A pod's volumes on this host, as the kubelet's volume manager sets them up before the pod's
// containers start (pkg/kubelet/volumemanager, pkg/volume/{emptydir,hostpath,configmap,secret,
// downwardapi,projected}): one directory per volume under `<root>/<pod uid>/volumes/` (the root
// and the pod directory are 0700), configMap/secret/downwardAPI/projected volumes written with
// the atomic writer and rewritten on every sync (so they follow changes), emptyDir created
// once, hostPath checked by type. Failures carry the kubelet's MountVolume.SetUp text.
import { mkdirSync } from "node:fs";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Container, Volume } from "../api/types.js";
import { writeAtomically } from "./atomic-writer.js";
import { ConfigObjectError } from "./config-objects.js";
import { setUpEmptyDir } from "./empty-dir.js";
import { checkHostPathType, HostPathTypeError } from "./host-path-check.js";
import { bindSubPath, cleanSubPaths, mountsBelow, runMountTool, safeMakeDir, type MountRunner } from "./subpath.js";
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
  constructor(
    private readonly root: string,
    /** Runs mount(8) and umount(8) for subPath binds (the host's by default). */
    private readonly runMount: MountRunner = runMountTool,
  ) {}

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
      // A pod whose mounts cannot be undone stays for the next round (nothing under it is removed).
      if (await this.tearDown(uid).then(() => true, () => false)) removed++;
    }
    return removed;
  }

  /**
   * tearDown removes every volume directory of a pod (hostPath volumes are never touched): its
   * subPath binds are unmounted first (kubelet CleanSubPaths), then what else is mounted in it
   * (memory-backed emptyDirs), and nothing is removed while any mount is left below the pod's
   * directory, so the removal never reaches through one.
   */
  async tearDown(uid: string): Promise<void> {
    if (uid === "") return;
    const dir = this.podDir(uid);
    await cleanSubPaths(dir, this.runMount);
    await unmountUnder(dir);
    const left = mountsBelow(dir);
    if (left.length > 0) throw new Error(`cannot remove the volumes of pod ${uid}: still mounted: ${left.join(", ")}`);
    await rm(dir, { recursive: true, force: true });
  }

  /**
   * containerMounts maps a container's volumeMounts to host paths (kubelet kubelet_pods.go
   * makeMounts): a missing subPath is created safely inside its volume with the volume's mode,
   * and every subPath is bound where the container cannot redirect it (subpath.ts); configMap,
   * secret, downwardAPI and projected volumes are always read-only. The errors are the kubelet's,
   * which say nothing of the host's filesystem.
   */
  async containerMounts(uid: string, container: Container, volumes: readonly Volume[], paths: ReadonlyMap<string, string>): Promise<VolumeMountSpec[]> {
    const out: VolumeMountSpec[] = [];
    for (const [index, m] of (container.volumeMounts ?? []).entries()) {
      const volume = volumes.find((v) => v.name === m.name);
      const base = paths.get(m.name);
      if (!volume || base === undefined) throw new MountError(`cannot find volume "${m.name}" to mount into container "${container.name}"`);
      let hostPath = base;
      if (m.subPath) {
        if (!(await stat(join(base, m.subPath)).then(() => true, () => false))) {
          try {
            safeMakeDir(m.subPath, base, (await stat(base)).mode & 0o7777);
          } catch {
            throw new MountError(`failed to create subPath directory for volumeMount "${m.name}" of container "${container.name}"`);
          }
        }
        const bind = { volumePath: base, subPath: m.subPath, podDir: this.podDir(uid), volumeName: m.name, containerName: container.name, mountIndex: index };
        hostPath = await bindSubPath(bind, this.runMount).catch(() => {
          throw new MountError(`failed to prepare subPath for volumeMount "${m.name}" of container "${container.name}"`);
        });
      }
      out.push({ hostPath, containerPath: m.mountPath, readonly: m.readOnly === true || usesAtomicWriter(volume) });
    }
    return out;
  }
}

function describeFsError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** MountError is a volumeMount that cannot be prepared; the caller reports CreateContainerConfigError. */
export class MountError extends Error {
  override readonly name = "MountError";
}
