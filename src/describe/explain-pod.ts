// `probelet explain pod`'s text: why a pod is not Ready and why its containers restarted, in
// words, from the pod's status, its events and the agent's probe history. Beyond the kubelet and
// kubectl, which leave that reading to the user. Pure: no I/O.
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";
import { POST_START_HOOK_ERROR } from "../kuberuntime/lifecycle-hooks.js";
import { fieldPathFor } from "../agent/kube-events.js";
import { defaultProbe } from "../api/defaults.js";
import { isPodPhaseTerminal, isRestartableInitContainer, probeOf } from "../api/pod-rules.js";
import type { Container, ContainerStateTerminated, ContainerStatus, Pod, Probe } from "../api/types.js";
import type { ProbeHistoryEntry } from "../prober/probe-history.js";
import { probeTypeLabel, type ProbeType } from "../prober/probe-type.js";
import { formatLatency, since } from "./describe-pod.js";

/** ExplainInput is everything explainPod reads; `now` in ms since the epoch. */
export interface ExplainInput {
  pod: Pod;
  events: readonly KubeEvent[];
  history: readonly ProbeHistoryEntry[];
  now: number;
}

/** KILL_EVENT_SLACK_MS is how far a Killing event may lie outside an instance's lifetime and still explain its end. */
const KILL_EVENT_SLACK_MS = 2000;

/** explainPod renders the explanation: a headline, then why not Ready, then why containers restarted. */
export function explainPod(input: ExplainInput): string {
  const { pod } = input;
  const name = `pod/${pod.metadata.name ?? ""}`;
  const status = pod.status ?? {};
  const phase = status.phase ?? "Pending";
  const restarts = restartLines(input);
  const out: string[] = [];
  const ready = status.conditions?.find((c) => c.type === "Ready");
  if (isPodPhaseTerminal(phase)) {
    out.push(`${name} has finished: ${phase}${status.reason ? ` (${status.reason})` : ""}.`);
    out.push(...bullets(finishedLines(input)));
  } else if (pod.metadata.deletionTimestamp) {
    // The kubelet keeps probing readiness until the containers stop (prober worker.go doProbe
    // stops only liveness and startup on deletion): Ready is what the status says.
    const readyNow = ready?.status === "True" ? "still Ready (readiness is probed until its containers stop)" : "not Ready";
    out.push(`${name} is being deleted (for ${since(pod.metadata.deletionTimestamp, input.now)}): its containers are stopping; it is ${readyNow}.`);
  } else if (ready?.status === "True") {
    out.push(`${name} is Ready${ready.lastTransitionTime ? ` (for ${since(ready.lastTransitionTime, input.now)})` : ""}: every container passes its readiness check.`);
  } else {
    out.push(`${name} is not Ready (${phase}).`);
    const reasons = notReadyLines(input);
    out.push(...bullets(reasons.length > 0 ? reasons : ["no container explains it: the status has not caught up yet (the agent updates it within a second)"]));
  }
  if (restarts.length > 0) out.push("", "Restarts:", ...bullets(restarts));
  return `${out.join("\n")}\n`;
}

function bullets(lines: readonly string[]): string[] {
  return lines.map((l) => `  - ${l}`);
}

/** notReadyLines says, container by container, what keeps the pod from Ready. */
function notReadyLines(input: ExplainInput): string[] {
  const { pod } = input;
  const status = pod.status ?? {};
  const lines: string[] = [];
  const initStatuses = status.initContainerStatuses ?? [];
  const initialized = status.conditions?.find((c) => c.type === "Initialized")?.status === "True";
  if (!initialized) {
    // Init containers run in order: the first one not done (or not started, for a sidecar) is what waits.
    for (const c of pod.spec.initContainers ?? []) {
      const s = initStatuses.find((x) => x.name === c.name);
      const sidecar = isRestartableInitContainer(c);
      if (sidecar ? s?.started === true : s?.state?.terminated?.exitCode === 0) continue;
      lines.push(`${sidecar ? "sidecar" : "init container"} ${c.name} ${containerNotReady(input, c, s, sidecar ? "started" : "completed")}`);
      return lines;
    }
  }
  for (const c of pod.spec.initContainers ?? []) {
    if (c.restartPolicy !== "Always") continue;
    const s = initStatuses.find((x) => x.name === c.name);
    if (s?.ready !== true && s?.started === true) lines.push(`sidecar ${c.name} ${containerNotReady(input, c, s, "ready")}`);
  }
  for (const c of pod.spec.containers) {
    const s = status.containerStatuses?.find((x) => x.name === c.name);
    if (s?.ready !== true) lines.push(`container ${c.name} ${containerNotReady(input, c, s, "ready")}`);
  }
  const containersReady = status.conditions?.find((c) => c.type === "ContainersReady")?.status === "True";
  if (containersReady || lines.length === 0) {
    for (const gate of pod.spec.readinessGates ?? []) {
      const condition = status.conditions?.find((c) => c.type === gate.conditionType);
      if (condition?.status !== "True") lines.push(`readiness gate ${gate.conditionType} is ${condition ? condition.status : "not set"}: nothing on this machine sets it`);
    }
  }
  return lines;
}

/** containerNotReady completes "container NAME …" with what it waits for. */
function containerNotReady(input: ExplainInput, c: Container, s: ContainerStatus | undefined, goal: "ready" | "started" | "completed"): string {
  const state = s?.state;
  if (!s || !state) return "has not been created yet";
  if (state.waiting) {
    const { reason = "Waiting", message } = state.waiting;
    const detail = message ? `: ${message}` : "";
    if (reason === "CrashLoopBackOff") return `is in CrashLoopBackOff${detail} (it keeps stopping; see Restarts)`;
    return `is waiting: ${reason}${detail}`;
  }
  if (state.terminated) {
    const t = state.terminated;
    if (goal === "completed" && t.exitCode === 0) return "has completed";
    return `has ${exitedText(t, input.now)}`;
  }
  const startup = c.startupProbe && defaultProbe(c.startupProbe);
  if (s.started !== true && startup) {
    const budget = (startup.failureThreshold ?? 3) * (startup.periodSeconds ?? 10);
    return `has not passed its startup probe yet: ${probeState(input, c, s, "startup", startup)}; liveness and readiness wait for it, and the container is restarted after ${startup.failureThreshold} failures in a row (${budget}s at period ${startup.periodSeconds}s)`;
  }
  if (goal === "completed") return "is still running; the next init container starts when it exits with code 0";
  if (goal === "started") return "is running but not started yet; the regular containers start after it";
  const readiness = c.readinessProbe && defaultProbe(c.readinessProbe);
  if (!readiness) return "has just started: it becomes Ready at the next status update";
  return `is running but not ready: ${probeState(input, c, s, "readiness", readiness)}`;
}

/** probeState tells where a probe of the current instance stands, from its newest history entry. */
function probeState(input: ExplainInput, c: Container, s: ContainerStatus, probeType: ProbeType, probe: Probe): string {
  const word = `${probeType} probe`;
  const last = lastEntry(input.history, c.name, probeType, s.containerID);
  if (!last) {
    const delay = probe.initialDelaySeconds ?? 0;
    const startedAt = s.state?.running?.startedAt;
    if (delay > 0 && startedAt) return `the ${word} has not run yet (initialDelaySeconds ${delay}s; the container started ${since(startedAt, input.now)} ago)`;
    return `the ${word} has not run yet (period ${probe.periodSeconds}s)`;
  }
  const when = `${since(last.time, input.now)} ago`;
  const output = last.output.trim() === "" ? "" : `: ${oneLine(last.output)}`;
  if (last.result === "Success") {
    const needed = probe.successThreshold ?? 1;
    if (last.run < needed) return `the ${word} succeeded ${last.run} of the ${needed} times in a row it needs (last ${when})`;
    return `the ${word} succeeds (last ${when}); the status follows within a second`;
  }
  const count = last.run <= last.threshold && last.threshold > 1 ? `failure ${last.run} of ${last.threshold}` : `${last.run} time${last.run === 1 ? "" : "s"} in a row`;
  return `the ${word} fails (${count}, last ${when}, took ${formatLatency(last.latencyMs)})${output}`;
}

/** restartLines explains, for every container that restarted, why its last instance ended. */
function restartLines(input: ExplainInput): string[] {
  const { pod } = input;
  const status = pod.status ?? {};
  const all: [Container, ContainerStatus | undefined][] = [
    ...(pod.spec.initContainers ?? []).map((c): [Container, ContainerStatus | undefined] => [c, status.initContainerStatuses?.find((s) => s.name === c.name)]),
    ...pod.spec.containers.map((c): [Container, ContainerStatus | undefined] => [c, status.containerStatuses?.find((s) => s.name === c.name)]),
  ];
  const lines: string[] = [];
  for (const [c, s] of all) {
    if (!s || s.restartCount === 0) continue;
    const times = `${s.restartCount} time${s.restartCount === 1 ? "" : "s"}`;
    const last = s.lastState?.terminated;
    if (!last) {
      lines.push(`container ${c.name} restarted ${times}.`);
      continue;
    }
    const ago = last.finishedAt ? ` ${since(last.finishedAt, input.now)} ago` : "";
    lines.push(`container ${c.name} restarted ${times}; the last instance ended${ago}: ${endCause(input, c, s, last)}. Its log: probelet logs ${pod.metadata.name ?? ""} -c ${c.name} --previous`);
  }
  return lines;
}

/**
 * endCause says why an instance ended: a failed probe, a failed postStart hook, memory, or its own
 * exit. The FailedPostStartHook event's text is fixed ("PostStartHook failed"); the hook's error
 * is in the container's PostStartHookError waiting message while it waits to start again.
 */
function endCause(input: ExplainInput, c: Container, s: ContainerStatus, t: ContainerStateTerminated): string {
  const exit = `exit code ${t.exitCode}${t.reason ? `, ${t.reason}` : ""}`;
  const fieldPath = fieldPathFor(input.pod, c.name);
  const begin = Date.parse(t.startedAt ?? "") - KILL_EVENT_SLACK_MS;
  const end = Date.parse(t.finishedAt ?? "") + KILL_EVENT_SLACK_MS;
  // An event explains this instance when it was seen during its life. Repeats are aggregated into
  // one event (count, first and last time), so its span need only overlap the instance's.
  const during = (e: KubeEvent): boolean =>
    e.involvedObject.fieldPath === fieldPath && !(Date.parse(e.lastTimestamp) < begin) && !(Date.parse(e.firstTimestamp) > end);
  const kill = input.events.filter((e) => e.reason === "Killing" && during(e)).at(-1);
  const probeType = (kill?.message.match(/failed (liveness|startup) probe/)?.[1] as ProbeType | undefined) ?? crossedProbe(input.history, c.name, t.containerID);
  if (probeType) {
    const probe = defaultProbe(probeOf(c, probeType) ?? {});
    const failed = lastEntry(input.history, c.name, probeType, t.containerID, "Failure");
    // The prober's Unhealthy message (prober.go): "<Type> probe failed: <output>".
    const prefix = `${probeTypeLabel(probeType)} probe failed: `;
    const unhealthy = input.events.filter((e) => e.reason === "Unhealthy" && during(e) && e.message.startsWith(prefix)).at(-1);
    const output = failed ? failed.output : unhealthy?.message.slice(prefix.length);
    return `its ${probeType} probe failed ${probe.failureThreshold} times in a row (failureThreshold ${probe.failureThreshold}, period ${probe.periodSeconds}s)`
      + `${output ? `, last with "${oneLine(output)}"` : ""}, so it was killed (${exit}) and started again`;
  }
  const waiting = s.state?.waiting;
  if (waiting?.reason === POST_START_HOOK_ERROR) return `its postStart hook failed (${oneLine(waiting.message ?? "")}), so it was killed (${exit})`;
  if (input.events.some((e) => e.reason === "FailedPostStartHook" && during(e))) return `its postStart hook failed, so it was killed (${exit})`;
  if (t.reason === "OOMKilled") return `it ran out of memory and the kernel killed it (${exit})`;
  return `it exited on its own (${exit}) and restartPolicy ${input.pod.spec.restartPolicy ?? "Always"} started it again`;
}

/** finishedLines says how each container of a finished pod ended. */
function finishedLines(input: ExplainInput): string[] {
  const status = input.pod.status ?? {};
  return input.pod.spec.containers.map((c) => {
    const t = status.containerStatuses?.find((s) => s.name === c.name)?.state?.terminated;
    if (!t) return `container ${c.name} did not run to an end`;
    return `container ${c.name} ${exitedText(t, input.now)}`;
  });
}

/** exitedText is "exited with code 1 (Error) 8s ago". */
function exitedText(t: ContainerStateTerminated, now: number): string {
  return `exited with code ${t.exitCode}${t.reason ? ` (${t.reason})` : ""}${t.finishedAt ? ` ${since(t.finishedAt, now)} ago` : ""}`;
}

/** lastEntry is the newest history entry of a probe, of one container instance when containerID is given. */
function lastEntry(history: readonly ProbeHistoryEntry[], container: string, probeType: ProbeType, containerID: string | undefined, result?: ProbeHistoryEntry["result"]): ProbeHistoryEntry | undefined {
  return history.filter((e) => e.container === container && e.probeType === probeType && (!containerID || e.containerID === containerID) && (!result || e.result === result)).at(-1);
}

/**
 * crossedProbe names the liveness or startup probe whose last result for an instance reached its
 * failureThreshold: the kubelet kills the container then (worker.go doProbe, the result written
 * at the threshold). It stands in for a Killing event the kubelet's event spam filter dropped:
 * client-go's events_cache.go lets 25 events through per object, then one per 5 minutes, so a
 * pod that has crash-looped for a while has its later kills unrecorded.
 */
function crossedProbe(history: readonly ProbeHistoryEntry[], container: string, containerID: string | undefined): ProbeType | undefined {
  if (containerID === undefined || containerID === "") return undefined;
  return (["liveness", "startup"] as const).find((probeType) => {
    const last = lastEntry(history, container, probeType, containerID);
    return last !== undefined && last.result === "Failure" && last.run >= last.threshold;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
