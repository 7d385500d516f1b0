// The hash of a container's spec that kuberuntime puts on each container it creates and compares
// at every sync: a spec whose hash changed is killed and started again (kubelet
// pkg/kubelet/container/helpers.go HashContainer, kuberuntime_manager.go computePodActions).
import { createHash } from "node:crypto";
import { stableJson } from "../util/stable-json.js";

const hashes = new WeakMap<object, string>();

/**
 * containerHash is the hash of a container spec, stored as an annotation to detect changes.
 * Admitted specs never change, so the hash is computed once per spec object.
 */
export function containerHash(container: object): string {
  let hash = hashes.get(container);
  if (hash === undefined) {
    hash = createHash("sha256").update(stableJson(container)).digest("hex").slice(0, 8);
    hashes.set(container, hash);
  }
  return hash;
}
