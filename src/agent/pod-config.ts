// The agent's pod config: every pod source (the manifest files and directory, the store's pods
// bound to this node) feeds one PodConfig, which keeps each source's pods and hands the agent ONE
// stream of PodUpdates, as the kubelet's pkg/kubelet/config/config.go does (PodConfig,
// podStorage.merge, kubetypes.PodUpdate in pkg/kubelet/types/pod_update.go). A source's new set
// of pods is diffed against what that source had: a new UID is an ADD, a UID gone a REMOVE, a
// changed spec, labels, annotations, generation or deletion an UPDATE (a DELETE once a
// deletionTimestamp is set), a change of the status alone a RECONCILE.
import type { Pod } from "../api/types.js";
import { sameJson } from "../apiserver/resources/canonical-json.js";

/** PodOperation is what a PodUpdate asks of the agent (kubetypes.PodOperation). */
export type PodOperation = "ADD" | "UPDATE" | "DELETE" | "REMOVE" | "RECONCILE";

/** PodUpdate is one operation on pods of one source (kubetypes.PodUpdate). */
export interface PodUpdate {
  op: PodOperation;
  /** The source the pods come from: `api` (the store), or `file:PATH` (a manifest). */
  source: string;
  pods: Pod[];
}

/** PodConfigOptions configure a PodConfig. */
export interface PodConfigOptions {
  /** Where the merged updates go, one at a time, in the order they are made (the kubelet's updates channel). */
  updates: (update: PodUpdate) => void;
  /**
   * refuse is asked about every pod new to the config before it is kept: why the node cannot take
   * it (errors), or undefined. A refused pod is not kept, so a later set of its source offers it
   * again (the kubelet's filterInvalidPods drops what it refuses the same way).
   */
  refuse?: (pod: Pod, source: string) => string[] | undefined;
}

/** PutResult is the outcome of offering one pod: the pod kept, or why it was refused. */
export type PutResult = { ok: true; pod: Pod } | { ok: false; errors: string[] };

/** fullName is a pod's namespace/name (kubecontainer.GetPodFullName, which the config keys names by). */
function fullName(pod: Pod): string {
  return `${pod.metadata.namespace ?? "default"}/${pod.metadata.name ?? ""}`;
}

/**
 * podsDifferSemantically tells whether a pod changed in what the agent runs (config.go
 * podsDifferSemantically: spec, labels, annotations, the deletion). The generation counts too:
 * a generation the node's copy of the spec does not show (a toleration change) is still stamped
 * on the status as its observedGeneration.
 */
function podsDifferSemantically(existing: Pod, ref: Pod): boolean {
  const a = existing.metadata;
  const b = ref.metadata;
  return (
    a.deletionTimestamp !== b.deletionTimestamp ||
    a.deletionGracePeriodSeconds !== b.deletionGracePeriodSeconds ||
    a.generation !== b.generation ||
    !sameJson(existing.spec, ref.spec) ||
    !sameJson(a.labels, b.labels) ||
    !sameJson(a.annotations, b.annotations)
  );
}

/** Merged collects what one merge found, by operation. */
type Merged = Record<PodOperation, Pod[]>;

/** PodConfig merges the pod sources into one stream of updates (config.go PodConfig and podStorage). */
export class PodConfig {
  /** Every source's pods by UID (podStorage.pods). */
  private readonly sources = new Map<string, Map<string, Pod>>();

  constructor(private readonly options: PodConfigOptions) {}

  /**
   * set makes `pods` the whole of a source (the kubelet's sources send their every pod each time:
   * podStorage.merge) and returns the pods refused with why. Of two pods of one name, the later
   * is kept.
   */
  set(source: string, pods: readonly Pod[]): { pod: Pod; errors: string[] }[] {
    const old = this.sources.get(source) ?? new Map<string, Pod>();
    const next = new Map<string, Pod>();
    const merged: Merged = { ADD: [], UPDATE: [], DELETE: [], REMOVE: [], RECONCILE: [] };
    const refused: { pod: Pod; errors: string[] }[] = [];
    const latest = new Map<string, Pod>();
    for (const pod of pods) {
      latest.delete(fullName(pod));
      latest.set(fullName(pod), pod);
    }
    for (const pod of latest.values()) {
      const uid = pod.metadata.uid ?? "";
      const existing = old.get(uid);
      if (existing !== undefined) {
        next.set(uid, this.checkAndUpdate(existing, pod, merged));
        continue;
      }
      const errors = this.options.refuse?.(pod, source);
      if (errors !== undefined) {
        refused.push({ pod, errors });
        continue;
      }
      next.set(uid, pod);
      merged.ADD.push(pod);
    }
    for (const [uid, pod] of old) if (!next.has(uid)) merged.REMOVE.push(pod);
    this.sources.set(source, next);
    this.send(source, merged);
    return refused;
  }

  /**
   * put adds or changes one pod of a source, with the updates a set of the source's pods with it
   * in would make (a pod of the same name and another UID leaves the source), without diffing
   * the source's other pods.
   */
  put(source: string, pod: Pod): PutResult {
    const pods = this.source(source);
    const uid = pod.metadata.uid ?? "";
    const merged: Merged = { ADD: [], UPDATE: [], DELETE: [], REMOVE: [], RECONCILE: [] };
    const existing = pods.get(uid);
    if (existing !== undefined) {
      pods.set(uid, this.checkAndUpdate(existing, pod, merged));
    } else {
      const errors = this.options.refuse?.(pod, source);
      if (errors !== undefined) return { ok: false, errors };
      const name = fullName(pod);
      for (const [other, held] of pods) {
        if (fullName(held) !== name) continue;
        pods.delete(other);
        merged.REMOVE.push(held);
      }
      pods.set(uid, pod);
      merged.ADD.push(pod);
    }
    this.send(source, merged);
    return { ok: true, pod: pods.get(uid) ?? pod };
  }

  /** remove takes one pod out of its source (REMOVE), if the source has it. */
  remove(source: string, pod: Pod): void {
    const pods = this.sources.get(source);
    const uid = pod.metadata.uid ?? "";
    const existing = pods?.get(uid);
    if (pods === undefined || existing === undefined) return;
    pods.delete(uid);
    this.options.updates({ op: "REMOVE", source, pods: [existing] });
  }

  /** pods lists a source's pods. */
  pods(source: string): Pod[] {
    return [...(this.sources.get(source)?.values() ?? [])];
  }

  /** sourceOf names the source that holds a pod of this namespace and name, if one does. */
  sourceOf(namespace: string, name: string): string | undefined {
    const wanted = `${namespace}/${name}`;
    for (const [source, pods] of this.sources) {
      for (const pod of pods.values()) if (fullName(pod) === wanted) return source;
    }
    return undefined;
  }

  private source(source: string): Map<string, Pod> {
    let pods = this.sources.get(source);
    if (pods === undefined) this.sources.set(source, (pods = new Map()));
    return pods;
  }

  /**
   * checkAndUpdate compares a source's new copy of a pod with the one it had (config.go
   * checkAndUpdatePod): a semantic change is an UPDATE, or a DELETE when the pod is being
   * deleted; a status change alone is a RECONCILE. Returns the copy to keep: the one it had when nothing changed.
   */
  private checkAndUpdate(existing: Pod, ref: Pod, merged: Merged): Pod {
    if (!podsDifferSemantically(existing, ref)) {
      if (sameJson(existing.status, ref.status)) return existing;
      merged.RECONCILE.push(ref);
      return ref;
    }
    if (ref.metadata.deletionTimestamp !== undefined) merged.DELETE.push(ref);
    else merged.UPDATE.push(ref);
    return ref;
  }

  /** send hands the merge on in podStorage.Merge's order: removals, additions, updates, deletions, reconciles. */
  private send(source: string, merged: Merged): void {
    for (const op of ["REMOVE", "ADD", "UPDATE", "DELETE", "RECONCILE"] as const) {
      if (merged[op].length > 0) this.options.updates({ op, source, pods: merged[op] });
    }
  }
}
