// How the agent writes back into the object store, as the kubelet's status manager and mirror
// client do: a pod's status (pods/status, under a UID precondition), a manifest pod's deletion
// on its mirror, and which of the store's pods are the node's API pods to save.
import type { Pod } from "../api/types.js";
import { sameJson } from "../apiserver/resources/canonical-json.js";
import { NAMESPACES, newNamespace } from "../apiserver/resources/namespaces.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import { isMirrorPod } from "../api/mirror-pod.js";
import { withPhaseHeldBack } from "../status/held-back-phase.js";
import { mergeApiConditions } from "./pod-conditions.js";

/**
 * writePodStatus puts a pod's status into its stored object (a manifest pod's: its mirror, of
 * UID mirrorUid), keeping the conditions the kubelet does not own as they are there; a mirror pod
 * also takes the manifest pod's deletion. A pod no longer in the store (or another pod of that
 * name) is left alone; an unchanged status writes nothing. While the pod
 * `couldHaveRunningContainers`, a terminal phase is not written yet: the stored phase, reason and
 * message stay, with the new container statuses and conditions (status_manager.go
 * mergePodStatus), so a failed pod reads Running until its containers and sandbox are stopped,
 * then Failed.
 */
export function writePodStatus(store: ObjectStore, pod: Pod, status: Pod["status"], mirrorUid?: string, couldHaveRunningContainers = false): void {
  const { namespace, name = "", deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  const mirror = mirrorUid !== undefined;
  const uid = mirrorUid ?? pod.metadata.uid;
  try {
    store.modify<Pod>(PODS.name, namespace, name, (current) => {
      const deletionChanged = mirror && current.metadata.deletionTimestamp !== deletionTimestamp;
      // Conditions the kubelet does not own stay as the API has them (status_manager.go mergePodStatus).
      const merged = status === undefined ? undefined : withPhaseHeldBack(current.status, mergeApiConditions(status, current.status) ?? status, couldHaveRunningContainers);
      if (!deletionChanged && sameJson(current.status, merged)) return undefined;
      const metadata = deletionChanged && deletionTimestamp !== undefined ? { ...current.metadata, deletionTimestamp, ...(deletionGracePeriodSeconds !== undefined ? { deletionGracePeriodSeconds } : {}) } : current.metadata;
      return { ...current, metadata, ...(merged !== undefined ? { status: merged } : {}) };
    }, uid !== undefined ? { uid } : {});
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
  }
}


/**
 * removeStoredPod deletes a pod (a manifest pod: its mirror, of UID mirrorUid) from the store with
 * grace 0 and a UID precondition (a pod already gone is fine).
 */
export function removeStoredPod(store: ObjectStore, pod: Pod, mirrorUid?: string): void {
  const uid = mirrorUid ?? pod.metadata.uid;
  try {
    store.delete(PODS.name, pod.metadata.namespace, pod.metadata.name ?? "", uid !== undefined ? { uid } : {});
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
  }
}

/** apiPodsToSave are the store's API pods of a node that are not being deleted, as specs (for the state directory). */
export function apiPodsToSave(store: ObjectStore, nodeName: string): Pod[] {
  return store.list<Pod>(PODS.name, { filter: (p) => p.spec.nodeName === nodeName && !isMirrorPod(p) && p.metadata.deletionTimestamp === undefined }).items.map(specOf);
}

/** specOf is a stored pod as the agent keeps it: a mutable copy without status (the status manager holds that). */
export function specOf(stored: Pod): Pod {
  const { status: _status, ...pod } = structuredClone(stored);
  return pod;
}

/** ensureNamespace makes a pod's namespace exist in the store (a manifest pod's mirror needs it). */
export function ensureNamespace(store: ObjectStore, namespace: string): void {
  if (store.get(NAMESPACES.name, undefined, namespace) === undefined) store.create(NAMESPACES.name, newNamespace(namespace));
}
