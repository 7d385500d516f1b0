// Which agent owns a sandbox or container. Several agents may share one runtime (two `probelet
// run --runtime cri` on one containerd, or the CRI test suites running side by side); each must
// clean up only what it created. The kubelet owns its whole runtime and needs no such label.
import { createHash } from "node:crypto";
import { resolve } from "node:path";

/** LABEL_AGENT marks the sandboxes (and, through them, the containers) an agent created. */
export const LABEL_AGENT = "probelet.dev/agent";

/**
 * agentIdFor derives an agent's identity from its state directory, so an agent restarted with
 * the same state directory (which re-adopts the running containers) is the same owner.
 */
export function agentIdFor(stateDir: string): string {
  return createHash("sha256").update(resolve(stateDir)).digest("hex").slice(0, 16);
}

/** ownedBy tells whether runtime labels name the agent; unlabelled objects belong to no agent. */
export function ownedBy(labels: Readonly<Record<string, string>>, agentId: string): boolean {
  return labels[LABEL_AGENT] === agentId;
}
