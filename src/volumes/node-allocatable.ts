// The node's allocatable resources as downward-API defaults: a container without a limit sees
// the node's (kubelet kubelet_resources.go defaultPodLimitsForDownwardAPI). probelet reserves
// nothing for itself, so allocatable is capacity: the CPUs, the memory and the size of the
// filesystem holding the state directory.
import { statfsSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import type { NodeAllocatable } from "./downward-api.js";

/** nodeAllocatable measures this machine; ephemeral storage is 0 when the directory cannot be read. */
export function nodeAllocatable(stateDir: string): NodeAllocatable {
  let ephemeralStorage = 0;
  try {
    const fs = statfsSync(stateDir);
    ephemeralStorage = fs.blocks * fs.bsize;
  } catch {
    ephemeralStorage = 0;
  }
  return { cpu: availableParallelism(), memory: totalmem(), ephemeralStorage };
}
