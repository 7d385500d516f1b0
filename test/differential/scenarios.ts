// The differential suite's pods: one per behaviour probelet claims to share with the kubelet
// (probes of the four kinds with thresholds, delays, timeouts and texts; startup gating; init
// containers and sidecars; restart policies and rules; crash-loop back-off; hooks; termination
// messages; grace periods; deletion; a failed image or command; an agent restart). Every pod
// uses the test images of scripts/containerd.sh, so it runs the same on both nodes' containerds.
import type { JsonObject } from "./normalize.js";

/** BUSYBOX is busybox-static with test-webserver and liveness (scripts/containerd.sh). */
export const BUSYBOX = "localhost/probelet/busybox:1";
/** GRPC_HEALTH serves grpc.health.v1 on 5000 and /make-not-serving on 8080. */
export const GRPC_HEALTH = "localhost/probelet/grpc-health:1";

/** ScenarioAction is something the suite does to both copies of a scenario at a time after creation. */
export type ScenarioAction =
  /** DELETE the pod with its own grace period. */
  | { at: number; action: "delete" }
  /** GET http://<pod IP>:<port><path> from the host (e.g. the gRPC server's /make-not-serving). */
  | { at: number; action: "http-get"; port: number; path: string };

/** Scenario is one pod run on both nodes at the same time. */
export interface Scenario {
  /** The pod's name (the same on both nodes; each node has its own namespace). */
  name: string;
  /** What it covers, in a few words. */
  covers: string;
  /** How long the suite records it, in seconds after creation. */
  windowSeconds: number;
  /** "pods" run together; "agent-restart" pods run while both agents are killed (-9) and started again. */
  phase: "pods" | "agent-restart";
  /** The pod's spec (the suite adds nodeName). */
  spec: JsonObject;
  actions?: ScenarioAction[];
  /**
   * Why its status sequence and the times of its milestones are not compared, only which
   * milestones each node reached, its events and its fields.
   */
  loose?: string;
}

/**
 * The agent-restart phase kills both agents (SIGKILL) AGENT_KILL_AFTER seconds after every
 * container of its pods has started on both nodes (AGENT_KILL_AT after the phase's start at the
 * earliest), and starts them again AGENT_DOWN seconds later.
 */
export const AGENT_KILL_AT = 15;
export const AGENT_KILL_AFTER = 5;
export const AGENT_DOWN = 5;

/** forever is a shell body that sleeps until SIGTERM, exiting 0 on it (PID 1 ignores TERM without a trap). */
const FOREVER = "while true; do sleep 1 & wait $!; done";

/** sh runs a script under `trap 'exit 0' TERM`. */
function sh(script: string): JsonObject {
  return { image: BUSYBOX, command: ["sh", "-c", `trap 'exit 0' TERM; ${script}`] };
}

function exec(...command: string[]): JsonObject {
  return { exec: { command } };
}

/** pod is a spec with the suite's defaults: a short grace period. */
function pod(spec: JsonObject): JsonObject {
  return { terminationGracePeriodSeconds: 2, ...spec };
}

/** SCENARIOS is the suite. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: "exec-liveness",
    covers: "exec liveness probe: initialDelaySeconds, failureThreshold, its failure text, restart",
    windowSeconds: 45,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(`echo ok >/tmp/health; sleep 10; rm -f /tmp/health; ${FOREVER}`), livenessProbe: { ...exec("cat", "/tmp/health"), initialDelaySeconds: 5, periodSeconds: 2, failureThreshold: 2 } }] }),
  },
  {
    name: "http-liveness",
    covers: "httpGet liveness: status code text, restarts after a liveness kill and their back-off",
    windowSeconds: 55,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", image: BUSYBOX, command: ["liveness", "8080"], livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, initialDelaySeconds: 3, periodSeconds: 1, failureThreshold: 1 } }] }),
  },
  {
    name: "tcp-liveness",
    covers: "tcpSocket liveness to a closed port: dial error text, restart (runs of 4 s: from the third kill on, two kubelets differ on back-off, so the window ends before)",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(FOREVER), livenessProbe: { tcpSocket: { port: 8081 }, initialDelaySeconds: 2, periodSeconds: 2, failureThreshold: 2 } }] }),
  },
  {
    name: "grpc-liveness",
    covers: "grpc liveness: SERVING, then NOT_SERVING text and restart",
    windowSeconds: 45,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", image: GRPC_HEALTH, livenessProbe: { grpc: { port: 5000 }, initialDelaySeconds: 2, periodSeconds: 2, failureThreshold: 2 }, readinessProbe: { grpc: { port: 5000 }, periodSeconds: 2 } }] }),
    actions: [{ at: 12, action: "http-get", port: 8080, path: "/make-not-serving" }],
  },
  {
    name: "readiness-toggle",
    covers: "exec readiness: successThreshold and failureThreshold 2, Ready flips and their times",
    windowSeconds: 35,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(`sleep 4; touch /tmp/ready; sleep 9; rm /tmp/ready; sleep 9; touch /tmp/ready; ${FOREVER}`), readinessProbe: { ...exec("cat", "/tmp/ready"), periodSeconds: 1, successThreshold: 2, failureThreshold: 2 } }] }),
  },
  {
    name: "readiness-http-404",
    covers: "httpGet readiness answered 404: never Ready, its failure text",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", image: BUSYBOX, command: ["test-webserver", "80"], readinessProbe: { httpGet: { path: "/missing", port: 80 }, initialDelaySeconds: 2, periodSeconds: 2 } }] }),
  },
  {
    name: "probe-timeouts",
    covers: "timeoutSeconds of exec and httpGet probes: their timeout texts",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({
      containers: [
        { name: "slow-exec", ...sh(FOREVER), readinessProbe: { ...exec("sleep", "3"), timeoutSeconds: 1, periodSeconds: 3 } },
        { name: "silent-http", ...sh("nc -ll -p 8082 -e sleep 30"), readinessProbe: { httpGet: { path: "/", port: 8082 }, timeoutSeconds: 1, periodSeconds: 3 } },
      ],
    }),
  },
  {
    name: "initial-delay",
    covers: "readiness initialDelaySeconds 8: the time of Ready",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(FOREVER), readinessProbe: { ...exec("true"), initialDelaySeconds: 8, periodSeconds: 1 } }] }),
  },
  {
    name: "startup-gating",
    covers: "startupProbe gates liveness and readiness: started, then Ready",
    windowSeconds: 22,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(`sleep 8; touch /tmp/started; ${FOREVER}`), startupProbe: { ...exec("cat", "/tmp/started"), periodSeconds: 1, failureThreshold: 30 }, readinessProbe: { ...exec("true"), periodSeconds: 1 }, livenessProbe: { ...exec("true"), periodSeconds: 1 } }] }),
  },
  {
    name: "startup-failure",
    covers: "startupProbe failing its threshold: its text, kill and restart (runs of 4 s: from the third kill on, two kubelets differ on back-off, so the window ends before)",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(FOREVER), startupProbe: { ...exec("sh", "-c", "echo not yet; exit 1"), initialDelaySeconds: 1, periodSeconds: 1, failureThreshold: 3 } }] }),
  },
  {
    name: "init-containers",
    covers: "two init containers run in order, then the main container",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ initContainers: [{ name: "init-1", ...sh("sleep 2") }, { name: "init-2", ...sh("echo done") }], containers: [{ name: "c", ...sh(FOREVER), readinessProbe: { ...exec("true"), periodSeconds: 1 } }] }),
  },
  {
    name: "init-failure-never",
    covers: "a failed init container under restartPolicy Never: the pod fails",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ restartPolicy: "Never", initContainers: [{ name: "init", ...sh("sleep 1; exit 3") }], containers: [{ name: "c", ...sh(FOREVER) }] }),
  },
  {
    name: "init-failure-always",
    covers: "a failing init container under restartPolicy Always: Init:CrashLoopBackOff",
    windowSeconds: 45,
    phase: "pods",
    spec: pod({ initContainers: [{ name: "init", ...sh("echo failing; sleep 3; exit 1") }], containers: [{ name: "c", ...sh(FOREVER) }] }),
  },
  {
    name: "sidecar-probes",
    covers: "a sidecar (restartable init container) with startup and readiness probes before the main container",
    windowSeconds: 22,
    phase: "pods",
    spec: pod({
      initContainers: [{ name: "sidecar", restartPolicy: "Always", ...sh(`sleep 3; touch /tmp/up; ${FOREVER}`), startupProbe: { ...exec("cat", "/tmp/up"), periodSeconds: 1, failureThreshold: 20 }, readinessProbe: { ...exec("true"), periodSeconds: 1 } }],
      containers: [{ name: "c", ...sh(FOREVER), readinessProbe: { ...exec("true"), periodSeconds: 1 } }],
    }),
  },
  {
    name: "sidecar-restart",
    covers: "a sidecar that exits is restarted with back-off while the main container runs",
    windowSeconds: 45,
    phase: "pods",
    spec: pod({ initContainers: [{ name: "sidecar", restartPolicy: "Always", ...sh("sleep 5; exit 1") }], containers: [{ name: "c", ...sh(FOREVER) }] }),
  },
  {
    name: "never-exit1",
    covers: "restartPolicy Never, exit 1: Failed",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ restartPolicy: "Never", containers: [{ name: "c", ...sh("sleep 2; exit 1") }] }),
  },
  {
    name: "onfailure-exit0",
    covers: "restartPolicy OnFailure, exit 0: Succeeded",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ restartPolicy: "OnFailure", containers: [{ name: "c", ...sh("sleep 2; exit 0") }] }),
  },
  {
    name: "always-exit0",
    covers: "restartPolicy Always, exit 0: restarts and CrashLoopBackOff of a Completed container",
    windowSeconds: 45,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh("sleep 3; exit 0") }] }),
  },
  {
    name: "restart-rules",
    covers: "container restartPolicyRules (KEP-5307): exit 42 restarts under restartPolicy Never, exit 1 does not",
    windowSeconds: 30,
    phase: "pods",
    spec: pod({
      restartPolicy: "Never",
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [{
        name: "c", ...sh("if [ -f /data/once ]; then sleep 2; exit 1; fi; touch /data/once; sleep 2; exit 42"),
        volumeMounts: [{ name: "data", mountPath: "/data" }],
        restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }],
      }],
    }),
  },
  {
    name: "restart-all-containers",
    covers: "restartPolicyRules action RestartAllContainers (KEP-5532): exit 42 restarts every container in place",
    windowSeconds: 35,
    phase: "pods",
    spec: pod({
      restartPolicy: "Never",
      volumes: [{ name: "data", emptyDir: {} }],
      initContainers: [{ name: "init", ...sh("echo init >>/data/runs"), volumeMounts: [{ name: "data", mountPath: "/data" }] }],
      containers: [
        {
          name: "trigger", ...sh(`if [ -f /data/once ]; then ${FOREVER}; fi; touch /data/once; sleep 4; exit 42`),
          volumeMounts: [{ name: "data", mountPath: "/data" }],
          restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }],
        },
        { name: "other", ...sh(FOREVER) },
      ],
    }),
  },
  {
    name: "crash-loop",
    covers: "restartPolicy Always, exit 1 after 3 s: CrashLoopBackOff, back-off 10 s doubling, BackOff events",
    windowSeconds: 85,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh("echo crashing; sleep 3; exit 1") }] }),
  },
  {
    name: "poststart-fails",
    covers: "a postStart hook exiting 7: FailedPostStartHook, the container killed and restarted",
    windowSeconds: 40,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", ...sh(FOREVER), lifecycle: { postStart: exec("sh", "-c", "echo hook failing; exit 7") } }] }),
  },
  {
    name: "prestop-on-delete",
    covers: "postStart and preStop hooks; deletion waits for preStop, then the grace period's TERM",
    windowSeconds: 25,
    phase: "pods",
    spec: pod({ terminationGracePeriodSeconds: 10, containers: [{ name: "c", ...sh(FOREVER), lifecycle: { postStart: exec("sh", "-c", "echo started >/tmp/hook"), preStop: exec("sh", "-c", "sleep 2") } }] }),
    actions: [{ at: 8, action: "delete" }],
  },
  {
    name: "termination-message",
    covers: "terminationMessagePath: the message of the terminated state",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ restartPolicy: "Never", containers: [{ name: "c", ...sh("echo -n bye >/dev/termination-log; sleep 1; exit 1") }] }),
  },
  {
    name: "termination-message-logs",
    covers: "terminationMessagePolicy FallbackToLogsOnError: the log's tail as the message",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ restartPolicy: "Never", containers: [{ name: "c", ...sh("echo from the log; sleep 1; exit 2"), terminationMessagePolicy: "FallbackToLogsOnError" }] }),
  },
  {
    name: "grace-period-kill",
    covers: "a container ignoring SIGTERM is killed after terminationGracePeriodSeconds 3 on deletion",
    windowSeconds: 22,
    phase: "pods",
    spec: pod({ terminationGracePeriodSeconds: 3, containers: [{ name: "c", image: BUSYBOX, command: ["sh", "-c", `trap '' TERM; ${FOREVER}`] }] }),
    actions: [{ at: 6, action: "delete" }],
  },
  {
    name: "delete-graceful",
    covers: "deletion of a running pod whose container exits on SIGTERM",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ terminationGracePeriodSeconds: 30, containers: [{ name: "c", ...sh(FOREVER) }] }),
    actions: [{ at: 6, action: "delete" }],
  },
  {
    name: "failed-image",
    covers: "an image that is not there: ErrImagePull, ImagePullBackOff",
    windowSeconds: 35,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", image: "localhost/probelet/absent:1" }] }),
  },
  {
    name: "failed-command",
    covers: "a command that does not exist: StartError, back-off",
    windowSeconds: 40,
    phase: "pods",
    spec: pod({ containers: [{ name: "c", image: BUSYBOX, command: ["/no/such/binary"] }] }),
  },
  {
    name: "active-deadline",
    covers: "activeDeadlineSeconds 6: Failed, DeadlineExceeded",
    windowSeconds: 20,
    phase: "pods",
    spec: pod({ activeDeadlineSeconds: 6, containers: [{ name: "c", ...sh(FOREVER) }] }),
  },
  {
    name: "restart-readiness",
    covers: "agent kill -9 and restart: a Ready pod with http readiness and tcp liveness stays Ready, nothing restarts",
    windowSeconds: 70,
    phase: "agent-restart",
    spec: pod({ containers: [{ name: "c", image: BUSYBOX, command: ["test-webserver", "80"], readinessProbe: { httpGet: { path: "/", port: 80 }, periodSeconds: 1 }, livenessProbe: { tcpSocket: { port: 80 }, periodSeconds: 2 } }] }),
  },
  {
    name: "restart-sidecar-startup",
    covers: "agent restart with a started sidecar that has a startupProbe: a main container crashing afterwards is restarted (kubernetes#137146)",
    windowSeconds: 70,
    phase: "agent-restart",
    spec: pod({
      initContainers: [{ name: "sidecar", restartPolicy: "Always", ...sh(`touch /tmp/up; ${FOREVER}`), startupProbe: { ...exec("cat", "/tmp/up"), periodSeconds: 1 } }],
      containers: [{ name: "c", ...sh("sleep 40; exit 1") }],
    }),
  },
  {
    name: "restart-crash-loop",
    covers: "agent restart during a crash loop's back-off",
    windowSeconds: 70,
    phase: "agent-restart",
    loose: "a restarted agent learns the back-off again from the container's finish times and has no waiting reason cached, so where in its cycle the kill lands decides the next restart and which states it stores: two kubelets differed by 17 s and by the states between restarts",
    spec: pod({ containers: [{ name: "c", ...sh("echo crashing; sleep 3; exit 1") }] }),
  },
];
