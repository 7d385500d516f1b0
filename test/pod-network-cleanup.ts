// @internal For tests. Removing what a process-runtime agent's pod networks leave when a test
// kills the agent (or lets it leave its pods running) instead of stopping its pods: the
// namespaces bound under /run/probelet and the agent's bridge. A namespace's veth goes with it.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { podNetnsDir } from "../src/runtime/process/pod-network.js";
import { podBridgeName } from "../src/runtime/process/pod-cidr.js";

/**
 * @internal For tests. releasePodNetworks unmounts and deletes every pod namespace of the agent
 * over `stateDir`, then deletes its bridge; call it once the agent and its containers are gone.
 */
export function releasePodNetworks(stateDir: string): void {
  // Only a root agent makes pod networks; another user's test has nothing there to remove (and
  // must not try: the directory may be a root agent's of the same state directory path).
  if (process.getuid?.() !== 0) return;
  const dir = podNetnsDir(stateDir);
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    try {
      execFileSync("umount", [join(dir, name)], { stdio: "ignore" });
    } catch {
      // Not mounted.
    }
    rmSync(join(dir, name), { force: true });
  }
  rmSync(dirname(dir), { recursive: true, force: true });
  const bridge = podBridgeName(stateDir);
  if (existsSync(`/sys/class/net/${bridge}`)) execFileSync("ip", ["link", "del", bridge], { stdio: "ignore" });
}
