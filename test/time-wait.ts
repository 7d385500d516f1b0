// Counting TIME-WAIT sockets with iproute2's ss, for the tests of how probe sockets close
// (docs/connection-hygiene.md).
import { execFileSync } from "node:child_process";

/**
 * proberTimeWait counts the TIME-WAIT sockets whose peer port is `port`: the prober's side of
 * connections to a server on that port. Undefined when ss is not available.
 */
export function proberTimeWait(port: number): number | undefined {
  try {
    const out = execFileSync("ss", ["-Htan", "state", "time-wait", `( dport = :${port} )`], { encoding: "utf8" });
    return out.split("\n").filter((line) => line.trim() !== "").length;
  } catch {
    return undefined;
  }
}
