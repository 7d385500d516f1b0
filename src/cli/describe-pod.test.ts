import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeEvent } from "../agent/agent-api.js";
import type { Pod, Probe } from "../api/types.js";
import { collapseRuns, type ProbeHistoryEntry } from "../prober/probe-history.js";
import { alignTabs, DESCRIBE_HISTORY_ROWS, describePod, describeProbe, describeProbeRun, eventAge, formatLatency, formatRfc1123z } from "./describe-pod.js";

const NOW = Date.parse("2026-01-01T00:10:00Z");

function webPod(): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", uid: "u1", labels: { tier: "front", app: "web" }, annotations: { note: "hello" }, creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: {
      nodeName: "node1",
      containers: [
        {
          name: "app",
          image: "nginx:1.27",
          command: ["nginx"],
          args: ["-g", "daemon off;"],
          ports: [{ containerPort: 8080, protocol: "TCP" }],
          env: [{ name: "MODE", value: "prod" }],
          livenessProbe: { httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" }, initialDelaySeconds: 15, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          readinessProbe: { exec: { command: ["cat", "/tmp/health"] } },
          startupProbe: { tcpSocket: { port: 8080 }, failureThreshold: 30 },
        },
      ],
    },
    status: {
      phase: "Running",
      hostIP: "10.0.0.1",
      podIP: "10.0.0.7",
      podIPs: [{ ip: "10.0.0.7" }],
      startTime: "2026-01-01T00:00:00Z",
      conditions: [
        { type: "Initialized", status: "True" },
        { type: "Ready", status: "False" },
        { type: "ContainersReady", status: "False" },
        { type: "PodScheduled", status: "True" },
      ],
      containerStatuses: [
        {
          name: "app",
          ready: false,
          restartCount: 2,
          containerID: "process://abc",
          image: "nginx:1.27",
          imageID: "",
          state: { running: { startedAt: "2026-01-01T00:08:00Z" } },
          lastState: { terminated: { exitCode: 137, reason: "Error", startedAt: "2026-01-01T00:04:00Z", finishedAt: "2026-01-01T00:07:59Z" } },
        },
      ],
    },
  };
}

function event(overrides: Partial<KubeEvent>): KubeEvent {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "web.1", namespace: "default" },
    involvedObject: { kind: "Pod", name: "web", namespace: "default" },
    reason: "Started",
    message: "Container started",
    type: "Normal",
    count: 1,
    firstTimestamp: "2026-01-01T00:00:01Z",
    lastTimestamp: "2026-01-01T00:00:01Z",
    source: { component: "kubelet" },
    reportingComponent: "kubelet",
    ...overrides,
  };
}

const EVENTS: KubeEvent[] = [
  event({
    reason: "Unhealthy",
    type: "Warning",
    message: "Liveness probe failed: HTTP probe failed with statuscode: 500\n",
    count: 3,
    firstTimestamp: "2026-01-01T00:08:00Z",
    lastTimestamp: "2026-01-01T00:09:50Z",
    source: { component: "kubelet", host: "node1" },
  }),
  event({}),
];

// Expected text: kubectl's layout, including the trailing spaces Go's tabwriter leaves after
// an empty value and after the condition columns (kubectl writes "%v \t%v \n").
const WEB_DESCRIBED = [
  "Name:         web",
  "Namespace:    default",
  "Node:         node1/10.0.0.1",
  "Start Time:   Thu, 01 Jan 2026 00:00:00 +0000",
  "Labels:       app=web",
  "              tier=front",
  "Annotations:  note: hello",
  "Status:       Running",
  "IP:           10.0.0.7",
  "IPs:",
  "  IP:  10.0.0.7",
  "Containers:",
  "  app:",
  "    Container ID:  process://abc",
  "    Image:         nginx:1.27",
  "    Image ID:      ",
  "    Port:          8080/TCP",
  "    Host Port:     0/TCP",
  "    Command:",
  "      nginx",
  "    Args:",
  "      -g",
  "      daemon off;",
  "    State:          Running",
  "      Started:      Thu, 01 Jan 2026 00:08:00 +0000",
  "    Last State:     Terminated",
  "      Reason:       Error",
  "      Exit Code:    137",
  "      Started:      Thu, 01 Jan 2026 00:04:00 +0000",
  "      Finished:     Thu, 01 Jan 2026 00:07:59 +0000",
  "    Ready:          False",
  "    Restart Count:  2",
  "    Liveness:       http-get http://:8080/healthz delay=15s timeout=1s period=10s #success=1 #failure=3",
  "    Readiness:      exec [cat /tmp/health] delay=0s timeout=1s period=10s #success=1 #failure=3",
  "    Startup:        tcp-socket :8080 delay=0s timeout=1s period=10s #success=1 #failure=30",
  "    Environment:",
  "      MODE:  prod",
  "    Mounts:  <none>",
  "Conditions:",
  "  Type              Status",
  "  Initialized       True ",
  "  Ready             False ",
  "  ContainersReady   False ",
  "  PodScheduled      True ",
  "Volumes:            <none>",
  "QoS Class:          BestEffort",
  "Node-Selectors:     <none>",
  "Tolerations:        <none>",
  "Events:",
  "  Type     Reason     Age               From     Message",
  "  ----     ------     ----              ----     -------",
  "  Normal   Started    9m59s             kubelet  Container started",
  "  Warning  Unhealthy  10s (x3 over 2m)  kubelet  Liveness probe failed: HTTP probe failed with statuscode: 500",
  "",
].join("\n");

test("describePod renders kubectl's layout: header, container state, probes, conditions, events oldest first", () => {
  assert.equal(describePod(webPod(), EVENTS, { now: NOW, utcOffsetMinutes: 0 }), WEB_DESCRIBED);
});

/** probeEntry is one liveness failure of container app, `ago` ms before NOW. */
function probeEntry(ago: number, run: number, output = "HTTP probe failed with statuscode: 500"): ProbeHistoryEntry {
  return { time: new Date(NOW - ago).toISOString(), container: "app", probeType: "liveness", containerID: "process://a1", result: "Failure", handlerResult: "failure", output, latencyMs: 2.4, run, threshold: 3 };
}

test("describePod shows the probe history between the pod and its events, aligned on its own: runs of one result in one row", () => {
  const history = [probeEntry(20_000, 1), probeEntry(10_000, 2, "line one\n  line two"), { ...probeEntry(5_000, 1, ""), result: "Success" as const, handlerResult: "success", threshold: 1, latencyMs: 0.4 }];
  const text = describePod(webPod(), EVENTS, { now: NOW, utcOffsetMinutes: 0, probeRuns: collapseRuns(history) });
  const start = text.indexOf("Probe History:");
  assert.ok(start > text.indexOf("Tolerations:") && start < text.indexOf("Events:"), text);
  assert.deepEqual(text.slice(start, text.indexOf("Events:")).split("\n"), [
    "Probe History:",
    "  Container  Probe     Result               Latency  Age  Output",
    "  ---------  -----     ------               -------  ---  ------",
    "  app        liveness  failure ×2 (2 of 3)  2ms      10s  line one line two",
    "  app        liveness  success              400µs    5s   <none>",
    "",
  ]);
  // The rest of the layout is unchanged.
  assert.equal(text.replace(text.slice(start, text.indexOf("Events:")), ""), WEB_DESCRIBED);
});

test("describePod shows only the newest runs and says how many there are", () => {
  // Failures on ever new container instances: each its own run.
  const history = Array.from({ length: DESCRIBE_HISTORY_ROWS + 5 }, (_, i) => ({ ...probeEntry(60_000 - i * 1000, 1), containerID: `process://a${i}` }));
  const text = describePod(webPod(), [], { now: NOW, utcOffsetMinutes: 0, probeRuns: collapseRuns(history) });
  assert.match(text, new RegExp(`Probe History \\(last ${DESCRIBE_HISTORY_ROWS} of ${DESCRIBE_HISTORY_ROWS + 5} runs\\):`));
  assert.equal(text.split("\n").filter((l) => l.startsWith("  app ")).length, DESCRIBE_HISTORY_ROWS);
  assert.match(text, /\nEvents: {2}<none>\n$/);
});

test("the failures that led to a kill stay in describe beside the successes after it: success ×18", () => {
  const failures = [1, 2, 3].map((run) => probeEntry(30_000 - run * 1000, run));
  const after = Array.from({ length: 18 }, (_, i) => ({ ...probeEntry(18_000 - i * 1000, i + 1, "ok"), containerID: "process://a2", result: "Success" as const, threshold: 1 }));
  const text = describePod(webPod(), [], { now: NOW, utcOffsetMinutes: 0, probeRuns: collapseRuns([...failures, ...after]) });
  assert.deepEqual(text.split("\n").filter((l) => l.startsWith("  app ")).map((l) => l.split(/ {2,}/)[3]), ["failure ×3 (3 of 3)", "success ×18"]);
  assert.equal(describeProbeRun({ result: "Failure", count: 4, lastRun: 4, threshold: 3 }), "failure ×4");
  assert.equal(describeProbeRun({ result: "Failure", count: 1, lastRun: 2, threshold: 3 }), "failure 2 of 3");
});

test("formatLatency", () => {
  for (const [ms, want] of [[0.25, "250µs"], [1, "1ms"], [12.6, "13ms"], [999, "999ms"], [1500, "1.5s"], [10_000, "10s"]] as const) {
    assert.equal(formatLatency(ms), want, String(ms));
  }
});

test("describePod without status or events: Events: <none> joins the last aligned block", () => {
  const pod = webPod();
  delete pod.status;
  pod.metadata.labels = {};
  delete pod.metadata.annotations;
  pod.spec.containers[0] = { name: "app", image: "busybox" };
  delete pod.spec.nodeName;
  assert.equal(
    describePod(pod, [], { now: NOW }),
    [
      "Name:         web",
      "Namespace:    default",
      "Node:         <none>",
      "Labels:       <none>",
      "Annotations:  <none>",
      "Status:       ",
      "IP:           ",
      "IPs:          <none>",
      "Containers:",
      "  app:",
      "    Image:        busybox",
      "    Port:         <none>",
      "    Host Port:    <none>",
      "    Environment:  <none>",
      "    Mounts:       <none>",
      "Volumes:          <none>",
      "QoS Class:        BestEffort",
      "Node-Selectors:   <none>",
      "Tolerations:      <none>",
      "Events:           <none>",
      "",
    ].join("\n"),
  );
});

test("describePod: terminating pod, init container, waiting state, several ports, env from refs, resources", () => {
  const pod: Pod = {
    metadata: { name: "job", namespace: "batch", deletionTimestamp: "2026-01-01T00:09:55Z", deletionGracePeriodSeconds: 30 },
    spec: {
      initContainers: [{ name: "init", image: "busybox", command: ["sh", "-c", "echo a\necho b"] }],
      containers: [
        {
          name: "main",
          image: "app",
          ports: [{ containerPort: 80, protocol: "TCP" }, { containerPort: 53, protocol: "UDP", hostPort: 5353 }],
          resources: { limits: { memory: "64Mi", cpu: "1" }, requests: { cpu: "500m" } },
          env: [
            { name: "POD", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
            { name: "PASS", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
          ],
        },
      ],
    },
    status: {
      phase: "Pending",
      initContainerStatuses: [{ name: "init", ready: false, restartCount: 0, state: { terminated: { exitCode: 1, signal: 9, message: "boom" } } }],
      containerStatuses: [{ name: "main", ready: false, restartCount: 0, state: { waiting: { reason: "PodInitializing" } } }],
    },
  };
  const text = describePod(pod, [], { now: NOW, utcOffsetMinutes: 0 });
  const lines = text.split("\n");
  assert.ok(lines.includes("Status:                    Terminating (lasts 5s)"), text);
  assert.ok(lines.includes("Termination Grace Period:  30s"), text);
  const init = lines.slice(lines.indexOf("Init Containers:"), lines.indexOf("Containers:"));
  assert.deepEqual(init, [
    "Init Containers:",
    "  init:",
    // "Command:" has no tab: it ends the aligned block, as in kubectl's output.
    "    Container ID:  ",
    "    Image:         busybox",
    "    Image ID:      ",
    "    Port:          <none>",
    "    Host Port:     <none>",
    "    Command:",
    "      sh",
    "      -c",
    "      echo a",
    "      echo b",
    "    State:          Terminated",
    "      Message:      boom",
    "      Exit Code:    1",
    "      Signal:       9",
    "      Started:      Mon, 01 Jan 0001 00:00:00 +0000",
    "      Finished:     Mon, 01 Jan 0001 00:00:00 +0000",
    "    Ready:          False",
    "    Restart Count:  0",
    "    Environment:    <none>",
    "    Mounts:         <none>",
  ]);
  const main = lines.slice(lines.indexOf("  main:"));
  assert.deepEqual(main, [
    "  main:",
    "    Container ID:   ",
    "    Image:          app",
    "    Image ID:       ",
    "    Ports:          80/TCP, 53/UDP",
    "    Host Ports:     0/TCP, 5353/UDP",
    "    State:          Waiting",
    "      Reason:       PodInitializing",
    "    Ready:          False",
    "    Restart Count:  0",
    "    Limits:",
    "      cpu:     1",
    "      memory:  64Mi",
    "    Requests:",
    "      cpu:  500m",
    "    Environment:",
    // Without conditions nothing breaks the block from the variables down to Events.
    "      POD:       job (v1:metadata.name)",
    "      PASS:      <set to the key 'password' in secret 'creds'>  Optional: false",
    "    Mounts:      <none>",
    "Volumes:         <none>",
    "QoS Class:       Burstable",
    "Node-Selectors:  <none>",
    "Tolerations:     <none>",
    "Events:          <none>",
    "",
  ]);
});

test("describeProbe prints each handler as kubectl's DescribeProbe, after API defaulting", () => {
  const attrs = "delay=0s timeout=1s period=10s #success=1 #failure=3";
  const cases: { name: string; probe: Probe; want: string }[] = [
    { name: "http defaults", probe: { httpGet: { port: 8080 } }, want: `http-get http://:8080/ ${attrs}` },
    { name: "http named port, HTTPS, IPv6 host, escaped path", probe: { httpGet: { host: "::1", port: "web", scheme: "HTTPS", path: "/a b?x=1" } }, want: `http-get https://[::1]:web/a%20b%3Fx=1 ${attrs}` },
    { name: "http relative path gets a slash", probe: { httpGet: { host: "10.1.2.3", port: 80, path: "ready" } }, want: `http-get http://10.1.2.3:80/ready ${attrs}` },
    { name: "exec", probe: { exec: { command: ["sh", "-c", "test -f /tmp/ok"] } }, want: `exec [sh -c test -f /tmp/ok] ${attrs}` },
    { name: "exec without command", probe: { exec: {} }, want: `exec [] ${attrs}` },
    { name: "tcp with host", probe: { tcpSocket: { host: "db", port: "pg" } }, want: `tcp-socket db:pg ${attrs}` },
    { name: "grpc without service", probe: { grpc: { port: 9090 } }, want: `grpc <pod>:9090  ${attrs}` },
    { name: "grpc with service", probe: { grpc: { port: 9090, service: "liveness" } }, want: `grpc <pod>:9090 liveness ${attrs}` },
    {
      name: "timings",
      probe: { tcpSocket: { port: 1 }, initialDelaySeconds: 5, timeoutSeconds: 2, periodSeconds: 3, successThreshold: 2, failureThreshold: 7 },
      want: "tcp-socket :1 delay=5s timeout=2s period=3s #success=2 #failure=7",
    },
    { name: "no handler", probe: {}, want: `unknown ${attrs}` },
  ];
  for (const c of cases) assert.equal(describeProbe(c.probe), c.want, c.name);
});

test("eventAge: single events show their age, repeated ones `last (xN over first)`", () => {
  assert.equal(eventAge(event({ firstTimestamp: "2026-01-01T00:09:30Z" }), NOW), "30s");
  assert.equal(eventAge(event({ count: 3, firstTimestamp: "2026-01-01T00:08:00Z", lastTimestamp: "2026-01-01T00:09:50Z" }), NOW), "10s (x3 over 2m)");
  assert.equal(eventAge(event({ firstTimestamp: "" }), NOW), "<unknown>");
});

test("alignTabs follows Go's tabwriter: blocks of consecutive lines per column, padding 2, last cell unpadded", () => {
  assert.equal(alignTabs(["a:\t1", "long name:\t2", "break", "x:\t3\tz", "yy:\t4"]), "a:          1\nlong name:  2\nbreak\nx:   3  z\nyy:  4\n");
  assert.equal(alignTabs(["\tindented", "k:\tv"]), "    indented\nk:  v\n");
  assert.equal(alignTabs(["é:\t1", "ab:\t2"]), "é:   1\nab:  2\n");
});

test("formatRfc1123z formats like Go's time.RFC1123Z in the given zone", () => {
  assert.equal(formatRfc1123z("2026-03-07T05:04:09Z", 0), "Sat, 07 Mar 2026 05:04:09 +0000");
  assert.equal(formatRfc1123z("2026-03-07T05:04:09Z", 330), "Sat, 07 Mar 2026 10:34:09 +0530");
  assert.equal(formatRfc1123z("2026-03-07T01:00:00Z", -300), "Fri, 06 Mar 2026 20:00:00 -0500");
  assert.equal(formatRfc1123z(undefined, 0), "Mon, 01 Jan 0001 00:00:00 +0000");
});

test("describePod: long or multi-line annotations get their own lines, shortened past 140 characters", () => {
  const pod = webPod();
  pod.metadata.annotations = { c: "l1\nl2\n", a: "short", b: "x".repeat(150), "kubectl.kubernetes.io/last-applied-configuration": "{}" };
  const lines = describePod(pod, [], { now: NOW, utcOffsetMinutes: 0 }).split("\n");
  const start = lines.indexOf("Annotations:  a: short");
  assert.ok(start > 0, lines.join("\n"));
  assert.deepEqual(lines.slice(start + 1, start + 6), [
    "              b:",
    `                ${"x".repeat(138)}...`,
    "              c:",
    "                l1",
    "                l2",
  ]);
  assert.equal(lines[start + 6], "Status:       Running");
});

test("describePod lists envFrom sources as kubectl does (prefix, Optional), resolves label fieldRefs and resource values", () => {
  const pod: Pod = {
    metadata: { name: "cfg", namespace: "default", labels: { app: "web" } },
    spec: {
      containers: [
        {
          name: "app",
          image: "app",
          envFrom: [{ configMapRef: { name: "app-config" }, prefix: "CFG_" }, { secretRef: { name: "app-secret", optional: true } }],
          env: [
            { name: "APP", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels['app']" } } },
            { name: "MODE", valueFrom: { configMapKeyRef: { name: "app-config", key: "mode" } } },
            { name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
            { name: "MEM_MI", valueFrom: { resourceFieldRef: { resource: "requests.memory", divisor: "1Mi" } } },
          ],
          resources: { requests: { memory: "64Mi" } },
        },
      ],
    },
  };
  const lines = describePod(pod, [], { now: NOW, utcOffsetMinutes: 0 }).split("\n").map((l) => l.replace(/\s+/g, " ").trim());
  const at = lines.indexOf("Environment Variables from:");
  assert.deepEqual(lines.slice(at, at + 8), [
    "Environment Variables from:",
    "app-config ConfigMap with prefix 'CFG_' Optional: false",
    "app-secret Secret Optional: true",
    "Environment:",
    "APP: web (v1:metadata.labels['app'])",
    "MODE: <set to the key 'mode' of config map 'app-config'> Optional: false",
    "CPU: node allocatable (limits.cpu)",
    "MEM_MI: 64 (requests.memory)",
  ]);
});

test("describePod shows a container's mounts sorted by path with ro/rw and subPath, and the pod's volumes, as kubectl does", () => {
  const pod = webPod();
  Object.assign(pod.spec.containers[0]!, {
    volumeMounts: [
      { name: "data", mountPath: "/var/lib/data" },
      { name: "config", mountPath: "/etc/app", readOnly: true, subPath: "app.conf" },
    ],
  });
  Object.assign(pod.spec, {
    volumes: [
      { name: "data", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
      { name: "config", configMap: { name: "app-config" } },
      { name: "host", hostPath: { path: "/srv", type: "Directory" } },
      { name: "creds", secret: { secretName: "db", optional: true } },
      { name: "claim", persistentVolumeClaim: { claimName: "pvc-1" } },
      { name: "scratch", emptyDir: {} },
    ],
  });
  const lines = describePod(pod, [], { now: NOW, utcOffsetMinutes: 0 }).split("\n");
  const at = lines.findIndex((l) => l.startsWith("    Mounts:"));
  assert.deepEqual(lines.slice(at, at + 3).map((l) => l.trimEnd()), ["    Mounts:", '      /etc/app from config (ro,path="app.conf")', "      /var/lib/data from data (rw)"]);
  const from = lines.findIndex((l) => l.startsWith("Volumes:"));
  const to = lines.findIndex((l) => l.startsWith("QoS Class:"));
  assert.deepEqual(lines.slice(from, to).map((l) => l.replace(/\s+/g, " ").trimEnd()), [
    "Volumes:",
    " data:",
    " Type: EmptyDir (a temporary directory that shares a pod's lifetime)",
    " Medium: Memory",
    " SizeLimit: 64Mi",
    " config:",
    " Type: ConfigMap (a volume populated by a ConfigMap)",
    " Name: app-config",
    " Optional: false",
    " host:",
    " Type: HostPath (bare host directory volume)",
    " Path: /srv",
    " HostPathType: Directory",
    " creds:",
    " Type: Secret (a volume populated by a Secret)",
    " SecretName: db",
    " Optional: true",
    " claim:",
    " Type: PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
    " ClaimName: pvc-1",
    " ReadOnly: false",
    " scratch:",
    " Type: EmptyDir (a temporary directory that shares a pod's lifetime)",
    " Medium:",
    " SizeLimit: <unset>",
  ]);
  assert.ok(lines.includes("QoS Class:          BestEffort") || lines.some((l) => /^QoS Class:\s+BestEffort$/.test(l)));
});
