import assert from "node:assert/strict";
import { test } from "node:test";
import { formatFieldErrors } from "./field-errors.js";
import { probeExtensionsOf, validatePodProbeExtensions } from "./probe-extensions.js";
import type { Pod } from "./types.js";
import { defaultAndValidatePod } from "./validation.js";

const KEY = "probe.probelet.dev/app.readiness";
const PATH = `metadata.annotations[${KEY}]`;

/** pod has container `app` with an httpGet readiness probe (period 10 s) and an exec liveness probe, plus a sidecar. */
function pod(annotations: Record<string, string>): Pod {
  return {
    metadata: { name: "web", namespace: "default", annotations },
    spec: {
      initContainers: [{ name: "proxy", image: "x", restartPolicy: "Always", startupProbe: { tcpSocket: { port: 9000 } } }, { name: "init", image: "x" }],
      containers: [{ name: "app", image: "x", readinessProbe: { httpGet: { port: 8080, path: "/ready" }, periodSeconds: 10 }, livenessProbe: { exec: { command: ["true"] } } }],
    },
  };
}

test("probe extensions: valid annotations parse to the probe's extensions", () => {
  const p = pod({
    [KEY]: 'fastPeriodMs: 250\nhttp:\n  acceptStatus: [200, "204-299", "404"]\n  bodyPattern: \'"status":\\s*"ok"\'\n',
    "probe.probelet.dev/proxy.startup": '{"fastPeriodMs": 100}',
    "example.com/other": "not ours",
  });
  assert.deepEqual(validatePodProbeExtensions(p), []);
  const app = p.spec.containers[0]!;
  const readiness = probeExtensionsOf(p, app, "readiness");
  assert.equal(readiness?.fastPeriodMs, 250);
  assert.deepEqual(readiness?.http?.acceptStatus, [{ from: 200, to: 200 }, { from: 204, to: 299 }, { from: 404, to: 404 }]);
  assert.ok(readiness?.http?.bodyPattern?.test('{"status": "ok"}'));
  assert.equal(probeExtensionsOf(p, app, "liveness"), undefined);
  assert.deepEqual(probeExtensionsOf(p, p.spec.initContainers![0]!, "startup"), { fastPeriodMs: 100 });
});

test("probe extensions: invalid annotations are field errors on the annotation's path, all at once", () => {
  const cases: { name: string; annotations: Record<string, string>; want: string[] }[] = [
    { name: "bad key", annotations: { "probe.probelet.dev/app": "{}" }, want: [`metadata.annotations[probe.probelet.dev/app]: Invalid value: "probe.probelet.dev/app": the key must be probe.probelet.dev/<container>.<liveness|readiness|startup>`] },
    {
      name: "no such probe",
      annotations: { "probe.probelet.dev/app.startup": "{}", "probe.probelet.dev/init.startup": "{}" },
      want: [
        `metadata.annotations[probe.probelet.dev/app.startup]: Invalid value: "probe.probelet.dev/app.startup": no container "app" with a startupProbe (a regular container or a sidecar)`,
        `metadata.annotations[probe.probelet.dev/init.startup]: Invalid value: "probe.probelet.dev/init.startup": no container "init" with a startupProbe (a regular container or a sidecar)`,
      ],
    },
    { name: "not YAML", annotations: { [KEY]: "{fastPeriodMs: [" }, want: [`${PATH}: Invalid value: "{fastPeriodMs: [": not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 17`] },
    { name: "over 4096 bytes, not parsed", annotations: { [KEY]: `{${Array.from({ length: 1000 }, (_, i) => `k${i}: 1`).join(", ")}}` }, want: [`${PATH}: Too long: may not be more than 4096 bytes`] },
    { name: "not a map", annotations: { [KEY]: "250" }, want: [`${PATH}: Invalid value: "250": must be a map with fastPeriodMs and/or http`] },
    {
      name: "fastPeriodMs out of range, unknown field",
      annotations: { [KEY]: "fastPeriodMs: 10000\nfast: true", "probe.probelet.dev/app.liveness": "fastPeriodMs: 1.5\nhttp: {}" },
      want: [
        `${PATH}.fastPeriodMs: Invalid value: 10000: must be at least 100 and below periodSeconds (10000 ms)`,
        `${PATH}.fast: Unsupported value: "fast": supported values: "fastPeriodMs", "http"`,
        `metadata.annotations[probe.probelet.dev/app.liveness].fastPeriodMs: Invalid value: 1.5: must be a whole number of milliseconds`,
        `metadata.annotations[probe.probelet.dev/app.liveness].http: Invalid value: {}: applies to httpGet probes only`,
      ],
    },
    {
      name: "http fields",
      annotations: { [KEY]: 'http: {acceptStatus: [200, "299-200", "2xx", 600], bodyPattern: "(", extra: 1}' },
      want: [
        `${PATH}.http.acceptStatus[1]: Invalid value: "299-200": must be a status from 100 to 599, or a range such as "200-299"`,
        `${PATH}.http.acceptStatus[2]: Invalid value: "2xx": must be a status from 100 to 599, or a range such as "200-299"`,
        `${PATH}.http.acceptStatus[3]: Invalid value: 600: must be a status from 100 to 599, or a range such as "200-299"`,
        `${PATH}.http.bodyPattern: Invalid value: "(": not a valid regular expression: Invalid regular expression: /(/: Unterminated group`,
        `${PATH}.http.extra: Unsupported value: "extra": supported values: "acceptStatus", "bodyPattern"`,
      ],
    },
    { name: "empty acceptStatus", annotations: { [KEY]: "http: {acceptStatus: []}" }, want: [`${PATH}.http.acceptStatus: Required value: at least one status or range`] },
  ];
  for (const c of cases) assert.deepEqual(formatFieldErrors(validatePodProbeExtensions(pod(c.annotations))), c.want, c.name);
});

test("probe extensions: the API server's validation reports them with the pod's other errors", () => {
  const p = pod({ [KEY]: "fastPeriodMs: 5" });
  p.spec.containers[0]!.readinessProbe!.timeoutSeconds = -1;
  const checked = defaultAndValidatePod(p);
  assert.equal(checked.ok, false);
  if (checked.ok) return;
  assert.deepEqual(formatFieldErrors(checked.errors), [
    "spec.containers[0].readinessProbe.timeoutSeconds: Invalid value: -1: must be greater than or equal to 0",
    `${PATH}.fastPeriodMs: Invalid value: 5: must be at least 100 and below periodSeconds (10000 ms)`,
  ]);
});
