// The probe linter's rules, one case per warning and per near miss that must stay quiet.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultPod } from "./defaults.js";
import { lintPod } from "./probe-lint.js";
import type { Container, Pod } from "./types.js";

const http = { httpGet: { path: "/healthz", port: 8080 } };
const tcp = { tcpSocket: { port: 8080 } };

function pod(container: Partial<Container>, extra: Partial<Pod["spec"]> = {}): Pod {
  return defaultPod({ metadata: { name: "web" }, spec: { containers: [{ name: "app", image: "app", ...container }], ...extra } });
}

const cases: Array<{ name: string; pod: Pod; want: string[] }> = [
  { name: "kubelet defaults, distinct checks: no warning", pod: pod({ livenessProbe: { ...tcp }, readinessProbe: { ...http } }), want: [] },
  {
    name: "timeoutSeconds equal to periodSeconds",
    pod: pod({ readinessProbe: { ...http, timeoutSeconds: 5, periodSeconds: 5 } }),
    want: ["spec.containers[0].readinessProbe.timeoutSeconds: 5 is not below periodSeconds (5): a probe that times out delays the next one, so failures are counted more slowly than the spec says"],
  },
  { name: "timeoutSeconds just below periodSeconds: quiet", pod: pod({ startupProbe: { ...http, timeoutSeconds: 4, periodSeconds: 5 } }), want: [] },
  {
    name: "liveness failureThreshold 1",
    pod: pod({ livenessProbe: { ...tcp, failureThreshold: 1 } }),
    want: ["spec.containers[0].livenessProbe.failureThreshold: 1 restarts the container after a single failed probe; one slow answer (a GC pause, a busy disk) is enough"],
  },
  { name: "readiness failureThreshold 1: quiet (nothing is restarted)", pod: pod({ readinessProbe: { ...http, failureThreshold: 1 } }), want: [] },
  {
    name: "liveness the same check as readiness, whatever the timings",
    pod: pod({ livenessProbe: { ...http, periodSeconds: 20 }, readinessProbe: { ...http, periodSeconds: 5 } }),
    want: ["spec.containers[0].livenessProbe: checks the same as readinessProbe; when that check fails because of load or a dependency, the container is restarted instead of only taken out of service"],
  },
  { name: "same port, different paths: quiet", pod: pod({ livenessProbe: { httpGet: { path: "/livez", port: 8080 } }, readinessProbe: { ...http } }), want: [] },
  {
    name: "long liveness initialDelaySeconds without a startupProbe",
    pod: pod({ livenessProbe: { ...tcp, initialDelaySeconds: 90 } }),
    want: ["spec.containers[0].livenessProbe.initialDelaySeconds: 90 waits that long on every start; a startupProbe protects a slow start and lets liveness act at once after it"],
  },
  { name: "long delay with a startupProbe, or a short one: quiet", pod: pod({ livenessProbe: { ...tcp, initialDelaySeconds: 90 }, startupProbe: { ...http, failureThreshold: 30 } }), want: [] },
  { name: "initialDelaySeconds just under the threshold: quiet", pod: pod({ livenessProbe: { ...tcp, initialDelaySeconds: 29 } }), want: [] },
  {
    name: "a sidecar is linted under spec.initContainers; a regular init container has no probes",
    pod: pod({}, { initContainers: [{ name: "init", image: "x" }, { name: "proxy", image: "x", restartPolicy: "Always", livenessProbe: { ...tcp, failureThreshold: 1 } }] }),
    want: ["spec.initContainers[1].livenessProbe.failureThreshold: 1 restarts the container after a single failed probe; one slow answer (a GC pause, a busy disk) is enough"],
  },
  {
    name: "several findings on one container come in field order",
    pod: pod({ livenessProbe: { ...http, failureThreshold: 1, timeoutSeconds: 10 }, readinessProbe: { ...http } }),
    want: [
      "spec.containers[0].livenessProbe.timeoutSeconds: 10 is not below periodSeconds (10): a probe that times out delays the next one, so failures are counted more slowly than the spec says",
      "spec.containers[0].livenessProbe.failureThreshold: 1 restarts the container after a single failed probe; one slow answer (a GC pause, a busy disk) is enough",
      "spec.containers[0].livenessProbe: checks the same as readinessProbe; when that check fails because of load or a dependency, the container is restarted instead of only taken out of service",
    ],
  },
];

for (const c of cases) {
  test(`lintPod: ${c.name}`, () => {
    assert.deepEqual(lintPod(c.pod), c.want);
  });
}
