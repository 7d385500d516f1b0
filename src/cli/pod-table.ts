// Pod rows as `kubectl get pods` prints them (kubectl's printPod): READY, STATUS with init and
// waiting/terminated reasons, RESTARTS with the last restart's age, AGE.
import type { ContainerStatus, Pod } from "../api/types.js";

/** humanDuration renders an age as kubectl does (apimachinery duration.HumanDuration). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** podStatusReason is the STATUS column (kubectl printPod). */
export function podStatusReason(pod: Pod): string {
  const status = pod.status ?? {};
  let reason = status.reason ?? status.phase ?? "Unknown";
  const initSpecs = pod.spec.initContainers ?? [];
  let initializing = false;
  for (const [i, c] of (status.initContainerStatuses ?? []).entries()) {
    const spec = initSpecs.find((s) => s.name === c.name);
    const sidecar = spec?.restartPolicy === "Always";
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) continue;
    if (sidecar && c.started) continue;
    if (t) {
      reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
    } else if (c.state?.waiting?.reason && c.state.waiting.reason !== "PodInitializing") {
      reason = `Init:${c.state.waiting.reason}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }
  if (!initializing) {
    let hasRunning = false;
    for (const c of [...(status.containerStatuses ?? [])].reverse()) {
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (c.state?.terminated?.reason) reason = c.state.terminated.reason;
      else if (c.state?.terminated) reason = c.state.terminated.signal ? `Signal:${c.state.terminated.signal}` : `ExitCode:${c.state.terminated.exitCode}`;
      else if (c.ready && c.state?.running) hasRunning = true;
    }
    if (reason === "Completed" && hasRunning) reason = podReady(pod) ? "Running" : "NotReady";
  }
  if (pod.metadata.deletionTimestamp) reason = "Terminating";
  return reason;
}

function podReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** readyColumn is READY: ready/total over regular containers and sidecars. */
export function readyColumn(pod: Pod): string {
  const sidecars = new Set((pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === "Always").map((c) => c.name));
  const statuses: ContainerStatus[] = [...(pod.status?.initContainerStatuses ?? []).filter((c) => sidecars.has(c.name)), ...(pod.status?.containerStatuses ?? [])];
  const total = pod.spec.containers.length + sidecars.size;
  return `${statuses.filter((c) => c.ready).length}/${total}`;
}

/** restartsColumn is RESTARTS, with the age of the last restart as kubectl shows it. */
export function restartsColumn(pod: Pod, now: number): string {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const restarts = statuses.reduce((n, c) => n + c.restartCount, 0);
  const last = statuses
    .map((c) => Date.parse(c.lastState?.terminated?.finishedAt ?? ""))
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => b - a)[0];
  return last === undefined || restarts === 0 ? String(restarts) : `${restarts} (${humanDuration(now - last)} ago)`;
}

/** podRow is one `get pods` row: NAME READY STATUS RESTARTS AGE (+ IP NODE for -o wide). */
export function podRow(pod: Pod, now: number, wide = false, withNamespace = false): string[] {
  const created = Date.parse(pod.metadata.creationTimestamp ?? "");
  const row = [
    ...(withNamespace ? [pod.metadata.namespace ?? ""] : []),
    pod.metadata.name ?? "",
    readyColumn(pod),
    podStatusReason(pod),
    restartsColumn(pod, now),
    Number.isNaN(created) ? "<unknown>" : humanDuration(now - created),
  ];
  if (wide) row.push(pod.status?.podIP || "<none>", pod.spec.nodeName || "<none>");
  return row;
}

/** POD_HEADERS are the column titles of podRow. */
export function podHeaders(wide = false, withNamespace = false): string[] {
  return [...(withNamespace ? ["NAMESPACE"] : []), "NAME", "READY", "STATUS", "RESTARTS", "AGE", ...(wide ? ["IP", "NODE"] : [])];
}

/** formatTable aligns rows into columns separated by three spaces, like kubectl's printers. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]! + 3))).join("")).join("\n") + "\n";
}
