// Counting TIME-WAIT sockets with `ss`, split by side of the connection: the prober's sockets
// have the target's port as their PEER port, the target's sockets have it as their LOCAL port.
// Linux keeps a TIME-WAIT socket for a fixed 60 s (TCP_TIMEWAIT_LEN) and `ss -o` shows the time
// left, so sockets created during a run can be told apart from older ones without waiting for
// the table to drain.
import { spawnSync } from "node:child_process";

/** TIME_WAIT_SECONDS is Linux's fixed TIME-WAIT duration (TCP_TIMEWAIT_LEN). */
export const TIME_WAIT_SECONDS = 60;

/** TimeWaitSocket is one `ss` line: both endpoints and the seconds left on its timer. */
export interface TimeWaitSocket {
  local: { host: string; port: number };
  peer: { host: string; port: number };
  remainingS: number;
}

/** TimeWaitCount splits the TIME-WAIT sockets of one target port by side. */
export interface TimeWaitCount {
  /** Sockets whose peer is the target: the prober's side. */
  proberSide: number;
  /** Sockets whose local endpoint is the target: the target's side. */
  targetSide: number;
}

function endpoint(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(":");
  return { host: text.slice(0, colon).replace(/^\[|\]$/g, ""), port: Number(text.slice(colon + 1)) };
}

/** parseTimer reads the time left from `timer:(timewait,52sec,0)`, `1min2sec` or `840ms` forms, in seconds. */
export function parseTimer(field: string): number {
  const m = /timer:\(timewait,([^,)]*)/.exec(field);
  if (!m) return Number.NaN;
  let seconds = 0;
  for (const part of m[1]!.matchAll(/(\d+(?:\.\d+)?)(min|sec|ms)/g)) {
    const value = Number(part[1]);
    seconds += part[2] === "min" ? value * 60 : part[2] === "sec" ? value : value / 1000;
  }
  return seconds;
}

/** timeWaitSockets lists every TCP socket in TIME-WAIT (`ss -tanoH state time-wait`). */
export function timeWaitSockets(): TimeWaitSocket[] {
  const out = spawnSync("ss", ["-tanoH", "state", "time-wait"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: 30_000 });
  if (out.status !== 0) throw new Error(`ss failed: ${out.stderr || out.error?.message || `exit ${String(out.status)}`}`);
  const sockets: TimeWaitSocket[] = [];
  for (const line of out.stdout.split("\n")) {
    // Columns: Recv-Q Send-Q Local:Port Peer:Port timer:(...)
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4) continue;
    sockets.push({ local: endpoint(cols[2]!), peer: endpoint(cols[3]!), remainingS: parseTimer(cols[4] ?? "") });
  }
  return sockets;
}

/**
 * countTimeWait counts the TIME-WAIT sockets of connections to `port`. With `sinceS` (seconds
 * since the run started, < 60) only sockets that entered TIME-WAIT after the run started count:
 * those with at least 60 − sinceS − 1 seconds left (the timer is shown in whole seconds).
 */
export function countTimeWait(sockets: readonly TimeWaitSocket[], port: number, sinceS?: number): TimeWaitCount {
  const minLeft = sinceS === undefined ? undefined : TIME_WAIT_SECONDS - sinceS - 1;
  const count: TimeWaitCount = { proberSide: 0, targetSide: 0 };
  for (const s of sockets) {
    if (minLeft !== undefined && !(s.remainingS >= minLeft)) continue;
    if (s.peer.port === port) count.proberSide++;
    else if (s.local.port === port) count.targetSide++;
  }
  return count;
}
