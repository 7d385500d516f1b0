// PodObservedGenerationTracking (GA in 1.37): the kubelet stamps the pod's metadata.generation on
// the status it writes and on the conditions it generates, so a client can tell whether the status
// reflects the latest spec.
import type { PodStatus } from "../api/types.js";

/**
 * GENERATED_CONDITIONS are the conditions the kubelet generates with an observedGeneration
 * (status/generate.go Generate*Condition, kubelet_pods.go generateAPIPodStatus for PodScheduled).
 * AllContainersRestarting is generated without one.
 */
const GENERATED_CONDITIONS: ReadonlySet<string> = new Set(["PodScheduled", "Ready", "Initialized", "ContainersReady", "PodReadyToStartContainers"]);

/**
 * stampObservedGeneration sets `status.observedGeneration` to the pod's generation, never lower
 * than the previous status's (status_manager.go SetPodStatus with
 * CalculatePodStatusObservedGeneration; updateStatusInternal keeps the higher one), and each
 * generated condition's observedGeneration to it (CalculatePodConditionObservedGeneration). A pod
 * without a generation (standalone: the agent's own API server keeps none) gets neither. Changes
 * `status` in place.
 */
export function stampObservedGeneration(status: PodStatus, generation: number | undefined, previous: PodStatus | undefined): void {
  if (generation === undefined || generation <= 0) return;
  status.observedGeneration = Math.max(generation, previous?.observedGeneration ?? 0);
  for (const condition of status.conditions ?? []) if (GENERATED_CONDITIONS.has(condition.type)) condition.observedGeneration = generation;
}
