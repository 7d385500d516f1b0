// The node's allocatable resources as downward-API defaults: a container without a limit sees
// the node's (kubelet kubelet_resources.go defaultPodLimitsForDownwardAPI). probelet reserves
// nothing for itself, so allocatable is capacity: the CPUs, the memory and the size of the
// filesystem holding the state directory, counted as the Node object reports them
// (src/cluster/node-object.ts: whole CPUs, memory and storage in whole Ki), so a pod's
// default limit equals its Node's status.allocatable.
import { statfsSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import type { NodeAllocatable } from "./downward-api.js";

/** nodeAllocatable measures this machine; ephemeral storage is 0 when the directory cannot be read. */
export function nodeAllocatable(stateDir: string): NodeAllocatable {
  let ephemeralStorage = 0;
  try {
    const fs = statfsSync(stateDir);
    ephemeralStorage = wholeKi(fs.blocks * fs.bsize);
  } catch {
    ephemeralStorage = 0;
  }
  return { cpu: cpus().length, memory: wholeKi(totalmem()), ephemeralStorage };
}

function wholeKi(bytes: number): number {
  return Math.floor(bytes / 1024) * 1024;
}
