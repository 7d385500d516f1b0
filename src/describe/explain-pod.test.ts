import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";
import type { ContainerStatus, Pod } from "../api/types.js";
import type { ProbeHistoryEntry } from "../prober/probe-history.js";
import { explainPod } from "./explain-pod.js";

const NOW = Date.parse("2026-01-01T00:10:00Z");
const at = (secondsAgo: number): string => new Date(NOW - secondsAgo * 1000).toISOString();

/** webPod has one container `app` with liveness (HTTP), readiness (exec, S=2) and an optional startup probe. */
function webPod(status: ContainerStatus, extra: Partial<Pod["spec"]["containers"][0]> = {}, ready = false): Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: {
      containers: [
        {
          name: "app",
          image: "busybox",
          livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 5, failureThreshold: 3 },
          readinessProbe: { exec: { command: ["cat", "/tmp/ready"] }, successThreshold: 2, initialDelaySeconds: 20 },
          ...extra,
        },
      ],
    },
    status: {
      phase: "Running",
      conditions: [
        { type: "Initialized", status: "True" },
        { type: "Ready", status: ready ? "True" : "False", lastTransitionTime: at(90) },
        { type: "ContainersReady", status: ready ? "True" : "False" },
      ],
      containerStatuses: [status],
    },
  };
}

function running(extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name: "app", ready: false, started: true, restartCount: 0, containerID: "process://c2", state: { running: { startedAt: at(30) } }, ...extra };
}

function entry(probeType: ProbeHistoryEntry["probeType"], result: ProbeHistoryEntry["result"], run: number, threshold: number, output: string, secondsAgo: number, containerID = "process://c2"): ProbeHistoryEntry {
  return { time: at(secondsAgo), container: "app", probeType, containerID, result, output, latencyMs: 1.2, run, threshold };
}

function event(reason: string, message: string, secondsAgo: number, type: KubeEvent["type"] = "Warning"): KubeEvent {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `web.${reason}`, namespace: "default" },
    involvedObject: { kind: "Pod", name: "web", namespace: "default", uid: "u1", fieldPath: "spec.containers{app}" },
    reason,
    message,
    type,
    count: 1,
    firstTimestamp: at(secondsAgo),
    lastTimestamp: at(secondsAgo),
    source: { component: "kubelet" },
    reportingComponent: "kubelet",
  };
}

/** LIVENESS_RESTART: instance c1 ran from 130 s to 60 s ago and was killed for liveness; c2 runs since. */
const LIVENESS_RESTART: Partial<ContainerStatus> = {
  restartCount: 1,
  lastState: { terminated: { exitCode: 137, reason: "Error", startedAt: at(130), finishedAt: at(60), containerID: "process://c1" } },
};

interface Case {
  name: string;
  pod: Pod;
  events?: KubeEvent[];
  history?: ProbeHistoryEntry[];
  want: string[];
}

const CASES: Case[] = [
  {
    name: "a Ready pod says since when",
    pod: webPod(running({ ready: true }), {}, true),
    want: ["pod/web is Ready (for 90s): every container passes its readiness check."],
  },
  {
    name: "a failing readiness probe: where it stands against failureThreshold, when, and its output",
    pod: webPod(running()),
    history: [entry("readiness", "Failure", 1, 3, "cat: /tmp/ready: No such file or directory\n", 12), entry("readiness", "Failure", 2, 3, "cat: /tmp/ready: No such file or directory\n", 2)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe fails (failure 2 of 3, last 2s ago, took 1ms): cat: /tmp/ready: No such file or directory",
    ],
  },
  {
    name: "a readiness probe failing past its threshold counts the failures in a row",
    pod: webPod(running()),
    history: [entry("readiness", "Failure", 5, 3, "", 1)],
    want: ["pod/web is not Ready (Running).", "  - container app is running but not ready: the readiness probe fails (5 times in a row, last 1s ago, took 1ms)"],
  },
  {
    name: "a readiness probe that has not reached successThreshold",
    pod: webPod(running()),
    history: [entry("readiness", "Success", 1, 2, "", 3)],
    want: ["pod/web is not Ready (Running).", "  - container app is running but not ready: the readiness probe succeeded 1 of the 2 times in a row it needs (last 3s ago)"],
  },
  {
    name: "a readiness probe still in its initial delay; history of an older instance does not count",
    pod: webPod(running()),
    history: [entry("readiness", "Failure", 3, 3, "old", 100, "process://c1")],
    want: ["pod/web is not Ready (Running).", "  - container app is running but not ready: the readiness probe has not run yet (initialDelaySeconds 20s; the container started 30s ago)"],
  },
  {
    name: "a startup probe not passed yet gates the others and says its budget",
    pod: webPod(running({ started: false }), { startupProbe: { tcpSocket: { port: 8080 }, periodSeconds: 2, failureThreshold: 15 } }),
    history: [entry("startup", "Failure", 4, 15, "dial tcp 127.0.0.1:8080: connect: connection refused", 1)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app has not passed its startup probe yet: the startup probe fails (failure 4 of 15, last 1s ago, took 1ms): dial tcp 127.0.0.1:8080: connect: connection refused;"
        + " liveness and readiness wait for it, and the container is restarted after 15 failures in a row (30s at period 2s)",
    ],
  },
  {
    name: "a liveness restart: the probe, its threshold, its last output from the history of the killed instance",
    pod: webPod(running(LIVENESS_RESTART)),
    events: [event("Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 66), event("Killing", "Container app failed liveness probe, will be restarted", 65, "Normal")],
    history: [entry("liveness", "Failure", 3, 3, "HTTP probe failed with statuscode: 500", 65, "process://c1"), entry("readiness", "Failure", 1, 3, "no", 1)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe fails (failure 1 of 3, last 1s ago, took 1ms): no",
      "",
      "Restarts:",
      "  - container app restarted 1 time; the last instance ended 60s ago: its liveness probe failed 3 times in a row (failureThreshold 3, period 5s),"
        + ' last with "HTTP probe failed with statuscode: 500", so it was killed (exit code 137, Error) and started again. Its log: probelet logs web -c app --previous',
    ],
  },
  {
    name: "a liveness restart whose Killing event the event spam filter dropped (a long crash loop): the history's threshold crossing of the killed instance says it",
    pod: webPod(running(LIVENESS_RESTART)),
    history: [entry("liveness", "Failure", 2, 3, "no heartbeat file", 66, "process://c1"), entry("liveness", "Failure", 3, 3, "no heartbeat file", 65, "process://c1"), entry("readiness", "Success", 1, 2, "", 1)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe succeeded 1 of the 2 times in a row it needs (last 1s ago)",
      "",
      "Restarts:",
      "  - container app restarted 1 time; the last instance ended 60s ago: its liveness probe failed 3 times in a row (failureThreshold 3, period 5s),"
        + ' last with "no heartbeat file", so it was killed (exit code 137, Error) and started again. Its log: probelet logs web -c app --previous',
    ],
  },
  {
    name: "a startup restart after an agent restart (no history): the output comes from the Unhealthy event",
    pod: webPod(running(LIVENESS_RESTART), { startupProbe: { exec: { command: ["test", "-f", "/tmp/up"] }, failureThreshold: 2 } }),
    events: [event("Unhealthy", "Startup probe failed: ", 70), event("Unhealthy", "Startup probe failed: not yet", 66), event("Killing", "Container app failed startup probe, will be restarted", 65, "Normal")],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe has not run yet (initialDelaySeconds 20s; the container started 30s ago)",
      "",
      "Restarts:",
      "  - container app restarted 1 time; the last instance ended 60s ago: its startup probe failed 2 times in a row (failureThreshold 2, period 10s),"
        + ' last with "not yet", so it was killed (exit code 137, Error) and started again. Its log: probelet logs web -c app --previous',
    ],
  },
  {
    name: "a Killing event of an earlier instance does not explain the last one",
    pod: webPod(running(LIVENESS_RESTART)),
    events: [event("Killing", "Container app failed liveness probe, will be restarted", 300, "Normal")],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe has not run yet (initialDelaySeconds 20s; the container started 30s ago)",
      "",
      "Restarts:",
      "  - container app restarted 1 time; the last instance ended 60s ago: it exited on its own (exit code 137, Error) and restartPolicy Always started it again. Its log: probelet logs web -c app --previous",
    ],
  },
  {
    name: "CrashLoopBackOff from a program that exits by itself",
    pod: webPod({
      name: "app", ready: false, started: false, restartCount: 4, containerID: "process://c5",
      state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 1m20s restarting failed container=app pod=web_default(u1)" } },
      lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: at(12), finishedAt: at(10), containerID: "process://c5" } },
    }),
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is in CrashLoopBackOff: back-off 1m20s restarting failed container=app pod=web_default(u1) (it keeps stopping; see Restarts)",
      "",
      "Restarts:",
      "  - container app restarted 4 times; the last instance ended 10s ago: it exited on its own (exit code 1, Error) and restartPolicy Always started it again. Its log: probelet logs web -c app --previous",
    ],
  },
  {
    name: "out of memory (a hook failure of an earlier instance does not count)",
    pod: webPod(running({ restartCount: 2, lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: at(50), finishedAt: at(40) } } })),
    events: [event("FailedPostStartHook", "PostStartHook failed", 200)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe has not run yet (initialDelaySeconds 20s; the container started 30s ago)",
      "",
      "Restarts:",
      "  - container app restarted 2 times; the last instance ended 40s ago: it ran out of memory and the kernel killed it (exit code 137, OOMKilled). Its log: probelet logs web -c app --previous",
    ],
  },
  {
    name: "a failed postStart hook",
    pod: webPod(running({ restartCount: 1, lastState: { terminated: { exitCode: 137, reason: "Error", startedAt: at(50), finishedAt: at(48) } } })),
    events: [event("FailedPostStartHook", "PostStartHook failed", 49)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is running but not ready: the readiness probe has not run yet (initialDelaySeconds 20s; the container started 30s ago)",
      "",
      "Restarts:",
      "  - container app restarted 1 time; the last instance ended 48s ago: its postStart hook failed, so it was killed (exit code 137, Error). Its log: probelet logs web -c app --previous",
    ],
  },
  {
    name: "a failed postStart hook, waiting to start again: the PostStartHookError message says why",
    pod: webPod({
      name: "app", ready: false, started: false, restartCount: 1, containerID: "process://c2",
      state: { waiting: { reason: "PostStartHookError", message: "Exec lifecycle hook ([false]) for Container \"app\" in Pod \"web_default(u1)\" failed - error: command 'false' exited with 1: , message: \"\"" } },
      lastState: { terminated: { exitCode: 137, reason: "Error", startedAt: at(12), finishedAt: at(10), containerID: "process://c2" } },
    }),
    events: [event("FailedPostStartHook", "PostStartHook failed", 11)],
    want: [
      "pod/web is not Ready (Running).",
      "  - container app is waiting: PostStartHookError: Exec lifecycle hook ([false]) for Container \"app\" in Pod \"web_default(u1)\" failed - error: command 'false' exited with 1: , message: \"\"",
      "",
      "Restarts:",
      "  - container app restarted 1 time; the last instance ended 10s ago: its postStart hook failed (Exec lifecycle hook ([false]) for Container \"app\" in Pod \"web_default(u1)\" failed - error: command 'false' exited with 1: , message: \"\"), so it was killed (exit code 137, Error). Its log: probelet logs web -c app --previous",
    ],
  },
  {
    name: "an init container that has not completed holds the pod",
    pod: {
      ...webPod({ name: "app", ready: false, restartCount: 0, state: { waiting: { reason: "PodInitializing" } } }),
      spec: { initContainers: [{ name: "migrate", image: "busybox" }], containers: [{ name: "app", image: "busybox" }] },
      status: {
        phase: "Pending",
        conditions: [{ type: "Initialized", status: "False" }],
        initContainerStatuses: [{ name: "migrate", ready: false, restartCount: 0, containerID: "process://i1", state: { running: { startedAt: at(5) } } }],
      },
    },
    want: ["pod/web is not Ready (Pending).", "  - init container migrate is still running; the next init container starts when it exits with code 0"],
  },
  {
    name: "no status yet",
    pod: { metadata: { name: "web" }, spec: { containers: [{ name: "app", image: "busybox" }] } },
    want: ["pod/web is not Ready (Pending).", "  - container app has not been created yet"],
  },
  {
    name: "a finished pod says how each container ended",
    pod: {
      metadata: { name: "job" },
      spec: { restartPolicy: "Never", containers: [{ name: "app", image: "busybox" }] },
      status: { phase: "Failed", containerStatuses: [{ name: "app", ready: false, restartCount: 0, state: { terminated: { exitCode: 2, reason: "Error", finishedAt: at(8) } } }] },
    },
    want: ["pod/job has finished: Failed.", "  - container app exited with code 2 (Error) 8s ago"],
  },
  {
    name: "a pod being deleted",
    pod: { ...webPod(running()), metadata: { name: "web", deletionTimestamp: at(3) } },
    want: ["pod/web is being deleted (for 3s): its containers are stopping; it is not Ready."],
  },
  {
    name: "a pod being deleted whose readiness still passes is still Ready, as its status says",
    pod: { ...webPod(running({ ready: true }), {}, true), metadata: { name: "web", deletionTimestamp: at(2) } },
    want: ["pod/web is being deleted (for 2s): its containers are stopping; it is still Ready (readiness is probed until its containers stop)."],
  },
];

for (const c of CASES) {
  test(`explainPod: ${c.name}`, () => {
    assert.equal(explainPod({ pod: c.pod, events: c.events ?? [], history: c.history ?? [], now: NOW }), `${c.want.join("\n")}\n`);
  });
}
