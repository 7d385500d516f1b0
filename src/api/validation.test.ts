import { test } from "node:test";
import assert from "node:assert/strict";
import { defaultProbe } from "./defaults.js";
import { formatFieldErrors } from "./field-errors.js";
import type { Container, Pod, Probe } from "./types.js";
import { defaultAndValidatePod, validatePod, validateProbe, type ValidationOptions } from "./validation.js";
import type { ProbeType } from "../prober/probe-type.js";

const P = "spec.containers[0].livenessProbe";

// check validates a probe as the API server would: default first, then validate.
function check(probe: Probe, type: ProbeType = "liveness", path = P): string[] {
  return formatFieldErrors(validateProbe(defaultProbe(probe), path, type));
}

test("[case 206] Two handlers (exec + tcpSocket) → exactly one error <p>.tcpSocket: Forbidden: may not specify more than 1 handler type; three handlers → errors on the 2nd and 3rd only", () => {
  const cases: { name: string; probe: Probe; expected: string[] }[] = [
    {
      name: "exec + tcpSocket",
      probe: { exec: { command: ["true"] }, tcpSocket: { port: 80 } },
      expected: [`${P}.tcpSocket: Forbidden: may not specify more than 1 handler type`],
    },
    {
      name: "httpGet + tcpSocket + grpc",
      probe: { httpGet: { port: 80 }, tcpSocket: { port: 81 }, grpc: { port: 82 } },
      expected: [
        `${P}.tcpSocket: Forbidden: may not specify more than 1 handler type`,
        `${P}.grpc: Forbidden: may not specify more than 1 handler type`,
      ],
    },
    {
      name: "the later handlers are not validated themselves",
      probe: { exec: { command: ["true"] }, httpGet: { port: 0, scheme: "FTP" } },
      expected: [`${P}.httpGet: Forbidden: may not specify more than 1 handler type`],
    },
  ];
  for (const c of cases) assert.deepEqual(check(c.probe), c.expected, c.name);
});

test("[case 207] No handler → <p>: Required value: must specify a handler type", () => {
  assert.deepEqual(check({ periodSeconds: 5 }), [`${P}: Required value: must specify a handler type`]);
  assert.deepEqual(check({}, "readiness", ""), ["Required value: must specify a handler type"]);
});

test("[case 208] exec with empty command → <p>.exec.command: Required value", () => {
  assert.deepEqual(check({ exec: { command: [] } }), [`${P}.exec.command: Required value`]);
  assert.deepEqual(check({ exec: {} }), [`${P}.exec.command: Required value`]);
});

test('[case 209] httpGet scheme FTP → Unsupported value, supported "HTTP", "HTTPS"; scheme https (lower case) is rejected at the API', () => {
  const cases: [string, string[]][] = [
    ["FTP", [`${P}.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`]],
    ["https", [`${P}.httpGet.scheme: Unsupported value: "https": supported values: "HTTP", "HTTPS"`]],
    ["HTTPS", []],
    ["HTTP", []],
  ];
  for (const [scheme, expected] of cases) assert.deepEqual(check({ httpGet: { port: 80, scheme } }), expected, scheme);
});

test('[case 210] Ports: 0, 65536 → must be between 1 and 65535, inclusive; named "http" ok; "8080" (numeric string) rejected as a port name; "a--b", "-a", 16-char names rejected', () => {
  const range = "must be between 1 and 65535, inclusive";
  const cases: { port: number | string; expected: string[] }[] = [
    { port: 0, expected: [`Invalid value: 0: ${range}`] },
    { port: 65536, expected: [`Invalid value: 65536: ${range}`] },
    { port: 1, expected: [] },
    { port: 65535, expected: [] },
    { port: "http", expected: [] },
    { port: "8080", expected: ['Invalid value: "8080": must contain at least one letter (a-z)'] },
    { port: "a--b", expected: ['Invalid value: "a--b": must not contain consecutive hyphens'] },
    { port: "-a", expected: ['Invalid value: "-a": must not begin or end with a hyphen'] },
    { port: "abcdefghijklmnop", expected: ['Invalid value: "abcdefghijklmnop": must be no more than 15 characters'] },
    { port: "HTTP", expected: [
      'Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'Invalid value: "HTTP": must contain at least one letter (a-z)',
    ] },
  ];
  for (const { port, expected } of cases) {
    assert.deepEqual(check({ tcpSocket: { port } }), expected.map((e) => `${P}.tcpSocket.port: ${e}`), `tcpSocket ${port}`);
    assert.deepEqual(check({ httpGet: { port } }), expected.map((e) => `${P}.httpGet.port: ${e}`), `httpGet ${port}`);
  }
  assert.deepEqual(check({ grpc: { port: 0 } }), [`${P}.grpc.port: Invalid value: 0: ${range}`]);
  assert.deepEqual(check({ grpc: { port: 65536 } }), [`${P}.grpc.port: Invalid value: 65536: ${range}`]);
  assert.deepEqual(check({ grpc: { port: 50051 } }), []);
});

test("[case 211] Negative initialDelaySeconds/timeoutSeconds/periodSeconds/successThreshold/failureThreshold → must be greater than or equal to 0 on the matching path", () => {
  for (const field of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    const errors = check({ tcpSocket: { port: 80 }, [field]: -1 }, "readiness", "spec.containers[0].readinessProbe");
    assert.deepEqual(errors, [`spec.containers[0].readinessProbe.${field}: Invalid value: -1: must be greater than or equal to 0`], field);
  }
  // For liveness a negative successThreshold is also "not 1": both rules report, in upstream order.
  assert.deepEqual(check({ tcpSocket: { port: 80 }, successThreshold: -1 }), [
    `${P}.successThreshold: Invalid value: -1: must be greater than or equal to 0`,
    `${P}.successThreshold: Invalid value: -1: must be 1`,
  ]);
});

test("[case 212] Liveness successThreshold 2 → ...livenessProbe.successThreshold: Invalid value: 2: must be 1; startup same; readiness successThreshold 2 accepted", () => {
  const cases: [ProbeType, string, string[]][] = [
    ["liveness", P, [`${P}.successThreshold: Invalid value: 2: must be 1`]],
    ["startup", "spec.containers[0].startupProbe", ["spec.containers[0].startupProbe.successThreshold: Invalid value: 2: must be 1"]],
    ["readiness", "spec.containers[0].readinessProbe", []],
  ];
  for (const [type, path, expected] of cases) assert.deepEqual(check({ exec: { command: ["true"] }, successThreshold: 2 }, type, path), expected, type);
});

test("[case 213] Readiness with terminationGracePeriodSeconds 10 → must not be set for readinessProbes; liveness with 0 or −1 → must be greater than 0; liveness with 5 accepted", () => {
  const R = "spec.containers[0].readinessProbe";
  const probe = (grace: number): Probe => ({ tcpSocket: { port: 80 }, terminationGracePeriodSeconds: grace });
  assert.deepEqual(check(probe(10), "readiness", R), [`${R}.terminationGracePeriodSeconds: Invalid value: 10: must not be set for readinessProbes`]);
  assert.deepEqual(check(probe(0)), [`${P}.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0`]);
  assert.deepEqual(check(probe(-1)), [`${P}.terminationGracePeriodSeconds: Invalid value: -1: must be greater than 0`]);
  assert.deepEqual(check(probe(5)), []);
  assert.deepEqual(check(probe(5), "startup", "s"), []);
});

test("[case 214] Header names X Bad (space) and X_Bad (underscore) rejected with the header-name regex message; X-Ok-1 accepted; header values never validated", () => {
  const detail = "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";
  const cases: [string, string[]][] = [
    ["X Bad", [`${P}.httpGet.httpHeaders: Invalid value: "X Bad": ${detail}`]],
    ["X_Bad", [`${P}.httpGet.httpHeaders: Invalid value: "X_Bad": ${detail}`]],
    ["X:Bad", [`${P}.httpGet.httpHeaders: Invalid value: "X:Bad": ${detail}`]],
    ["X-Ok-1", []],
  ];
  for (const [name, expected] of cases) {
    assert.deepEqual(check({ httpGet: { port: 80, httpHeaders: [{ name, value: "any \u0000 value\n" }] } }), expected, name);
  }
});

test("validateProbe on an un-defaulted probe reports zero thresholds only where the API would", () => {
  // Without defaulting, liveness successThreshold 0 is "not 1"; zeros are not negative.
  assert.deepEqual(formatFieldErrors(validateProbe({ tcpSocket: { port: 80 } }, "", "liveness")), ["successThreshold: Invalid value: 0: must be 1"]);
  assert.deepEqual(formatFieldErrors(validateProbe({ httpGet: { port: 80, path: "" } }, "", "readiness")), [
    "httpGet.path: Required value",
    'httpGet.scheme: Unsupported value: "": supported values: "HTTP", "HTTPS"',
  ]);
});

// --- pod-level rules ------------------------------------------------------------------------

function pod(containers: Container[], initContainers?: Container[]): Pod {
  const withImage = (cs: Container[]): Container[] => cs.map((c) => ({ image: "img", ...c }));
  return { metadata: { name: "web" }, spec: initContainers ? { containers: withImage(containers), initContainers: withImage(initContainers) } : { containers: withImage(containers) } };
}

function podErrors(p: Pod, options?: ValidationOptions): string[] {
  const result = defaultAndValidatePod(p, options);
  return result.ok ? [] : formatFieldErrors(result.errors);
}

const probe: Probe = { exec: { command: ["true"] } };

test("defaultAndValidatePod returns the defaulted pod when it is valid", () => {
  const result = defaultAndValidatePod(pod([{ name: "app", livenessProbe: probe }], [{ name: "side", restartPolicy: "Always", readinessProbe: probe }]));
  assert.equal(result.ok, true);
  if (!result.ok) return;
  assert.equal(result.pod.metadata.namespace, "default");
  assert.equal(result.pod.spec.containers[0]?.livenessProbe?.periodSeconds, 10);
});

test("sidecar (init container with restartPolicy Always) probes and lifecycle are accepted and validated", () => {
  const side: Container = { name: "side", restartPolicy: "Always", livenessProbe: probe, readinessProbe: probe, startupProbe: probe, lifecycle: { preStop: { sleep: { seconds: 5 } } } };
  assert.deepEqual(podErrors(pod([{ name: "app" }], [side])), []);
  const bad: Container = { name: "side", restartPolicy: "Always", startupProbe: { ...probe, successThreshold: 3 } };
  assert.deepEqual(podErrors(pod([{ name: "app" }], [bad])), ["spec.initContainers[0].startupProbe.successThreshold: Invalid value: 3: must be 1"]);
});

test("probes and lifecycle on a plain init container are Forbidden", () => {
  const init: Container = { name: "init", livenessProbe: probe, readinessProbe: probe, startupProbe: probe, lifecycle: { postStart: probe } };
  const detail = "Forbidden: may not be set for init containers without restartPolicy=Always";
  const expected = ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"].map((f) => `spec.initContainers[0].${f}: ${detail}`);
  assert.deepEqual(podErrors(pod([{ name: "app" }], [init])), expected);
  // A try-once init container (restartPolicy Never, allowed since 1.35) is still not a sidecar.
  assert.deepEqual(podErrors(pod([{ name: "app" }], [{ name: "init", restartPolicy: "Never", livenessProbe: probe }])), [
    `spec.initContainers[0].livenessProbe: ${detail}`,
  ]);
});

test("container names: required, DNS-1123 labels, unique across containers and init containers", () => {
  assert.deepEqual(podErrors(pod([{ name: "app" }, { name: "app" }], [{ name: "app" }, { name: "init" }, { name: "init" }])), [
    'spec.containers[1].name: Duplicate value: "app"',
    'spec.initContainers[0].name: Duplicate value: "app"',
    'spec.initContainers[2].name: Duplicate value: "init"',
  ]);
  const errors = podErrors(pod([{ name: "" }, { name: "Bad_Name" }]));
  assert.equal(errors[0], "spec.containers[0].name: Required value");
  assert.match(errors[1] ?? "", /^spec\.containers\[1\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of/);
  assert.equal(errors.length, 2);
});

test("spec.containers is required, metadata name and namespace are checked", () => {
  const p: Pod = { metadata: { name: "Web!", namespace: "a.b" }, spec: { containers: [] } };
  const errors = podErrors(p);
  assert.match(errors[0] ?? "", /^metadata\.name: Invalid value: "Web!": a lowercase RFC 1123 subdomain must consist of/);
  assert.equal(errors[1], 'metadata.namespace: Invalid value: "a.b": must not contain dots');
  assert.equal(errors[2], "spec.containers: Required value");
  assert.equal(errors.length, 3);
  assert.deepEqual(podErrors({ metadata: {}, spec: { containers: [{ name: "a", image: "img" }] } }), ["metadata.name: Required value: name or generateName is required"]);
});

test("container ports: range, names, uniqueness, protocol", () => {
  const c: Container = {
    name: "app",
    ports: [
      { name: "http", containerPort: 80 },
      { name: "http", containerPort: 81 },
      { name: "8080", containerPort: 0, hostPort: 70000, protocol: "tcp" },
    ],
  };
  assert.deepEqual(podErrors(pod([c])), [
    'spec.containers[0].ports[1].name: Duplicate value: "http"',
    'spec.containers[0].ports[2].name: Invalid value: "8080": must contain at least one letter (a-z)',
    "spec.containers[0].ports[2].containerPort: Required value",
    "spec.containers[0].ports[2].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    'spec.containers[0].ports[2].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"',
  ]);
});

test("container restartPolicy: accepted on any container in 1.37, classic rules when ContainerRestartRules is off", () => {
  const p = pod([{ name: "app", restartPolicy: "OnFailure" }, { name: "b", restartPolicy: "Sometimes" }], [{ name: "init", restartPolicy: "Never" }]);
  assert.deepEqual(podErrors(p), ['spec.containers[1].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"']);
  assert.deepEqual(podErrors(p, { containerRestartRules: false }), [
    "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
    "spec.containers[1].restartPolicy: Forbidden: may not be set for non-init containers",
    'spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always"',
  ]);
});

test("pod-level fields: restartPolicy, grace period, activeDeadlineSeconds, imagePullPolicy, env names", () => {
  const p = pod([{ name: "app", imagePullPolicy: "Sometimes", env: [{ name: "" }, { name: "A=B" }, { name: "ok.name-1" }] }]);
  p.spec.restartPolicy = "Maybe" as never;
  p.spec.terminationGracePeriodSeconds = -1;
  p.spec.activeDeadlineSeconds = 0;
  assert.deepEqual(podErrors(p), [
    "spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0",
    "spec.containers[0].env[0].name: Required value",
    `spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    'spec.restartPolicy: Unsupported value: "Maybe": supported values: "Always", "OnFailure", "Never"',
    "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
  ]);
});

test("lifecycle handlers follow the same handler-count rule; sleep is bounded by the grace period", () => {
  const c: Container = {
    name: "app",
    lifecycle: { postStart: {}, preStop: { exec: { command: ["x"] }, sleep: { seconds: 1 } } },
  };
  assert.deepEqual(podErrors(pod([c])), [
    "spec.containers[0].lifecycle.postStart: Required value: must specify a handler type",
    "spec.containers[0].lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type",
  ]);
  const sleepy: Container = { name: "app", lifecycle: { preStop: { sleep: { seconds: 31 } } } };
  assert.deepEqual(podErrors(pod([sleepy])), [
    "spec.containers[0].lifecycle.preStop.sleep: Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)",
  ]);
  assert.deepEqual(podErrors(pod([{ name: "app", lifecycle: { preStop: { sleep: { seconds: 0 } } } }])), []);
});

test("defaultAndValidatePod reports every problem at once", () => {
  const p = pod([{ name: "app", livenessProbe: { successThreshold: 2, periodSeconds: -3 }, readinessProbe: { exec: { command: [] } } }]);
  assert.deepEqual(podErrors(p), [
    "spec.containers[0].livenessProbe: Required value: must specify a handler type",
    "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -3: must be greater than or equal to 0",
    "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    "spec.containers[0].readinessProbe.exec.command: Required value",
  ]);
});

test("validatePod without defaulting reports the fields defaulting would have filled", () => {
  const p = pod([{ name: "app", livenessProbe: { successThreshold: 2, periodSeconds: -3 }, readinessProbe: { exec: { command: [] } } }]);
  assert.deepEqual(formatFieldErrors(validatePod(p)), [
    "metadata.namespace: Required value",
    "spec.terminationGracePeriodSeconds: Required value",
    "spec.containers[0].terminationMessagePolicy: Required value",
    "spec.containers[0].imagePullPolicy: Required value",
    "spec.containers[0].livenessProbe: Required value: must specify a handler type",
    "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -3: must be greater than or equal to 0",
    "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    "spec.containers[0].readinessProbe.exec.command: Required value",
    "spec.restartPolicy: Required value",
    "spec.dnsPolicy: Required value",
  ]);
});

test("a hand-built object missing metadata or spec is reported, not thrown on", () => {
  const result = defaultAndValidatePod({} as Pod);
  assert.deepEqual(result.ok ? [] : formatFieldErrors(result.errors), [
    "metadata.name: Required value: name or generateName is required",
    "spec.containers: Required value",
  ]);
  assert.equal(validatePod({ metadata: {} } as Pod).length > 0, true);
});

test("resources: quantities parse, are not negative, and no request exceeds its limit (limits[memory] paths)", () => {
  const cases: Array<{ resources: Record<string, unknown>; want: string[] }> = [
    { resources: { limits: { memory: "64Mi", cpu: "100m" }, requests: { memory: "32Mi" } }, want: [] },
    { resources: { limits: { memory: 67108864 } }, want: [] },
    {
      resources: { limits: { memory: "64MB" } },
      want: ["spec.containers[0].resources.limits[memory]: Invalid value: \"64MB\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    },
    { resources: { limits: { memory: "-1Mi" } }, want: ['spec.containers[0].resources.limits[memory]: Invalid value: "-1Mi": must be greater than or equal to 0'] },
    { resources: { limits: { memory: "1Gi" }, requests: { memory: "2Gi" } }, want: ['spec.containers[0].resources.requests[memory]: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi'] },
    { resources: { limits: ["64Mi"] }, want: ['spec.containers[0].resources.limits: Invalid value: ["64Mi"]: must be a map of resource names to quantities'] },
  ];
  for (const c of cases) {
    const pod: Pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i", resources: c.resources }] } };
    const result = defaultAndValidatePod(pod);
    assert.deepEqual(result.ok ? [] : formatFieldErrors(result.errors), c.want, JSON.stringify(c.resources));
  }
});

test("terminationMessagePath: relative or longer than 4096 bytes is refused with the field path", () => {
  const errs = (path: string): string[] => podErrors(pod([{ name: "c", image: "busybox", terminationMessagePath: path }]));
  assert.deepEqual(errs("dev/termination-log"), ['spec.containers[0].terminationMessagePath: Invalid value: "dev/termination-log": must be an absolute path']);
  assert.deepEqual(errs(`/${"a".repeat(4096)}`), ["spec.containers[0].terminationMessagePath: Too long: may not be more than 4096 bytes"]);
  assert.deepEqual(errs("/dev/termination-custom-log"), []);
});
