// The node overhead benchmark's pods: realistic probe mixes on the test images of
// scripts/containerd.sh. Per 10 pods: 4 serve HTTP and are probed with httpGet, 3 with tcpSocket,
// 2 run a shell probed with exec, 1 serves gRPC health; each has a readiness probe with a period
// of 1, 2, 5 or 10 s (exec: 5 or 10 s) and a liveness probe every 10 s, of the same kind.

const BUSYBOX = "localhost/probelet/busybox:1";
const GRPC_HEALTH = "localhost/probelet/grpc-health:1";
const KINDS = ["http", "http", "http", "http", "tcp", "tcp", "tcp", "exec", "exec", "grpc"] as const;
const PERIODS = [1, 2, 5, 10] as const;

/** ProbeKind is the handler of a bench pod's probes. */
export type ProbeKind = (typeof KINDS)[number];

/** kindOf is the probe kind of pod i. */
export function kindOf(i: number): ProbeKind {
  return KINDS[i % KINDS.length]!;
}

/** readinessPeriod is pod i's readiness period (exec probes at most every 5 s, as exec is the costly kind). */
export function readinessPeriod(i: number): number {
  const period = PERIODS[Math.floor(i / KINDS.length) % PERIODS.length]!;
  return kindOf(i) === "exec" ? Math.max(5, period) : period;
}

function handler(kind: ProbeKind): Record<string, unknown> {
  switch (kind) {
    case "http":
      return { httpGet: { path: "/", port: 80 } };
    case "tcp":
      return { tcpSocket: { port: 80 } };
    case "exec":
      return { exec: { command: ["cat", "/etc/probelet-image"] } };
    case "grpc":
      return { grpc: { port: 5000 } };
  }
}

/** benchPod is pod i of a run, pinned to `node`. */
export function benchPod(i: number, namespace: string, node: string): Record<string, unknown> {
  const kind = kindOf(i);
  const container: Record<string, unknown> = kind === "grpc"
    ? { name: "app", image: GRPC_HEALTH }
    : kind === "exec"
      ? { name: "app", image: BUSYBOX, command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done"] }
      : { name: "app", image: BUSYBOX, command: ["test-webserver", "80"] };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `bench-${String(i).padStart(3, "0")}`, namespace, labels: { "probelet.dev/bench": "node", "probelet.dev/probe-kind": kind } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      containers: [{ ...container, readinessProbe: { ...handler(kind), periodSeconds: readinessPeriod(i) }, livenessProbe: { ...handler(kind), periodSeconds: 10 } }],
    },
  };
}

/** probesPerSecond is how many probes n bench pods make per second once Ready. */
export function probesPerSecond(n: number): number {
  let rate = 0;
  for (let i = 0; i < n; i++) rate += 1 / readinessPeriod(i) + 1 / 10;
  return rate;
}
