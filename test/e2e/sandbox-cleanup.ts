// Sandbox bookkeeping for the e2e harness: the UIDs of every pod a test file admitted, and the
// sweep that finds (and removes) sandboxes of those pods still in the runtime. The agent labels
// each sandbox with its pod's UID (io.kubernetes.pod.uid), so the sweep only ever touches the
// sandboxes of this test file, even when other files or people share the runtime.
import { LABEL_POD_UID } from "../../src/kuberuntime/labels.js";
import { RuntimeError, type PodSandboxStatus, type Runtime } from "../../src/runtime/runtime.js";

/** createdPodUids holds the UID of every pod admitted by any E2eEnv of this test process (one file). */
export const createdPodUids = new Set<string>();

/** LeftoverSandbox is a sandbox of one of our pods that was still there after its case. */
export interface LeftoverSandbox {
  id: string;
  pod: string;
  podUid: string;
  state: string;
  /** Why it could not be removed, when the removal failed too. */
  removeError?: string;
}

/**
 * sweepSandboxes lists the sandboxes labelled with one of `uids`, removes each (stop + remove;
 * NotFound counts as removed) and returns what it found, so the caller can fail loudly.
 */
export async function sweepSandboxes(runtime: Runtime, uids: ReadonlySet<string>): Promise<LeftoverSandbox[]> {
  if (uids.size === 0) return [];
  const found: PodSandboxStatus[] = (await runtime.listPodSandboxes()).filter((s) => uids.has(s.labels[LABEL_POD_UID] ?? ""));
  const leftovers: LeftoverSandbox[] = [];
  for (const sandbox of found) {
    const entry: LeftoverSandbox = { id: sandbox.id, pod: `${sandbox.namespace}/${sandbox.name}`, podUid: sandbox.podUid, state: sandbox.state };
    try {
      await runtime.removePodSandbox(sandbox.id);
    } catch (err) {
      if (!(err instanceof RuntimeError && err.code === "NotFound")) entry.removeError = err instanceof Error ? err.message : String(err);
    }
    leftovers.push(entry);
  }
  return leftovers;
}

/** describeLeftovers renders leftovers for an assertion message. */
export function describeLeftovers(leftovers: readonly LeftoverSandbox[]): string {
  return leftovers.map((l) => `  ${l.id} (${l.pod}, uid ${l.podUid}, ${l.state})${l.removeError ? ` — remove failed: ${l.removeError}` : ""}`).join("\n");
}
