import { test } from "node:test";
import assert from "node:assert/strict";
import { decodePods, decodeProbe, type DecodeResult } from "./decode.js";
import type { Pod } from "./types.js";
import { defaultAndValidatePod } from "./validation.js";
import { formatFieldErrors } from "./field-errors.js";

function errorsOf<T>(result: DecodeResult<T>): string[] {
  assert.equal(result.ok, false, "expected a decoding failure");
  return result.ok ? [] : result.errors;
}

function valueOf<T>(result: DecodeResult<T>): T {
  if (!result.ok) assert.fail(`unexpected errors: ${result.errors.join("; ")}`);
  return result.value;
}

const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
    - name: app
      image: nginx:1.27
      ports:
        - name: http
          containerPort: 8080
      env:
        - name: FROM_FIELD
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
      resources: {limits: {cpu: 100m}, futureKnob: true}
      securityContext: {runAsUser: 1000, seccompProfile: {type: RuntimeDefault}}
      livenessProbe:
        httpGet: {path: /healthz, port: http, httpHeaders: [{name: X-Probe, value: "1"}]}
        periodSeconds: 5
`;

test("decodePods decodes a YAML Pod with typed fields and opaque maps", () => {
  const pods = valueOf(decodePods(POD_YAML, "pod.yaml"));
  assert.equal(pods.length, 1);
  const pod = pods[0]!;
  assert.equal(pod.metadata.name, "web");
  assert.deepEqual(pod.metadata.labels, { app: "web" });
  const c = pod.spec.containers[0]!;
  assert.deepEqual(c.livenessProbe, { httpGet: { path: "/healthz", port: "http", httpHeaders: [{ name: "X-Probe", value: "1" }] }, periodSeconds: 5 });
  assert.deepEqual(c.resources, { limits: { cpu: "100m" }, futureKnob: true });
  assert.deepEqual(c.env?.[0]?.valueFrom, { fieldRef: { fieldPath: "metadata.name" } });
  assert.equal(defaultAndValidatePod(pod).ok, true);
});

test("decodePods accepts the same Pod as JSON", () => {
  const json = JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers: [{ name: "app", readinessProbe: { tcpSocket: { port: 80 }, failureThreshold: 2 } }] },
  });
  const pods = valueOf(decodePods(json, "pod.json"));
  assert.deepEqual(pods[0]?.spec.containers[0]?.readinessProbe, { tcpSocket: { port: 80 }, failureThreshold: 2 });
});

test("an unknown field is a strict decoding error naming its full path", () => {
  const yaml = POD_YAML.replace("periodSeconds: 5", "periodSeconds: 5\n        foo: bar").replace("  labels: {app: web}", "  labels: {app: web}\n  colour: blue");
  assert.deepEqual(errorsOf(decodePods(yaml, "pod.yaml")), [
    'strict decoding error: unknown field "metadata.colour"',
    'strict decoding error: unknown field "spec.containers[0].livenessProbe.foo"',
  ]);
});

test("env sources, volumes and volumeMounts are typed: unknown fields inside them are strict decoding errors", () => {
  const yaml = POD_YAML.replace("valueFrom: {fieldRef: {fieldPath: metadata.name}}", "valueFrom: {configMapKeyRef: {name: c, key: k, colour: 1}}").replace(
    "  containers:",
    "  volumes: [{name: v, configMap: {name: c, defaultMode: 420, extra: true}}]\n  containers:",
  );
  assert.deepEqual(errorsOf(decodePods(yaml, "pod.yaml")), [
    'strict decoding error: unknown field "spec.volumes[0].configMap.extra"',
    'strict decoding error: unknown field "spec.containers[0].env[0].valueFrom.configMapKeyRef.colour"',
  ]);
});

test("a wrong JSON type names the path and what was expected", () => {
  const cases: [string, string][] = [
    ["periodSeconds: 5", 'spec.containers[0].livenessProbe.periodSeconds: Invalid value: "ten": must be an integer'],
    ["path: /healthz", "spec.containers[0].livenessProbe.httpGet.path: Invalid value: 7: must be a string"],
    ["port: http", "spec.containers[0].livenessProbe.httpGet.port: Invalid value: true: must be an integer or a string"],
    ["containerPort: 8080", "spec.containers[0].ports[0].containerPort: Invalid value: 80.5: must be an integer"],
    ["labels: {app: web}", "metadata.labels[app]: Invalid value: 3: must be a string"],
  ];
  const replacements: Record<string, string> = {
    "periodSeconds: 5": "periodSeconds: ten",
    "path: /healthz": "path: 7",
    "port: http": "port: true",
    "containerPort: 8080": "containerPort: 80.5",
    "labels: {app: web}": "labels: {app: 3}",
  };
  for (const [from, expected] of cases) {
    assert.deepEqual(errorsOf(decodePods(POD_YAML.replace(from, replacements[from]!), "pod.yaml")), [expected], from);
  }
  assert.deepEqual(errorsOf(decodePods("apiVersion: v1\nkind: Pod\nspec: {containers: {name: a}}\n", "p.yaml")), [
    'spec.containers: Invalid value: {"name":"a"}: must be an array',
  ]);
});

test("int32 and int64 ranges are checked", () => {
  assert.deepEqual(errorsOf(decodeProbe("periodSeconds: 2147483648\n", "p.yaml")), [
    "periodSeconds: Invalid value: 2147483648: must be between -2147483648 and 2147483647, inclusive",
  ]);
  assert.deepEqual(valueOf(decodeProbe("terminationGracePeriodSeconds: 2147483648\nexec: {command: [a]}\n", "p.yaml")).terminationGracePeriodSeconds, 2147483648);
  assert.deepEqual(errorsOf(decodeProbe("terminationGracePeriodSeconds: 1e300\n", "p.yaml")), [
    "terminationGracePeriodSeconds: Invalid value: 1e+300: must be between -9007199254740991 and 9007199254740991, inclusive",
  ]);
});

test("a YAML syntax error names the source, line and column", () => {
  const cases: [string, string[]][] = [
    ["apiVersion: v1\nkind: Pod\nspec:\n\tcontainers: []\n", ["pod.yaml:4:1: Tabs are not allowed as indentation"]],
    ["apiVersion: v1\nkind: Pod\nmetadata: {name: a}}\n", ['pod.yaml:3:20: Unexpected flow-map-end token in YAML stream: "}"']],
    ["apiVersion: v1\nkind: Pod\nkind: Pod\n", ["pod.yaml:3:1: Map keys must be unique"]],
    ["apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n   bad: x\n", [
      "pod.yaml:4:9: Nested mappings are not allowed in compact mappings",
      "pod.yaml:4:9: Implicit keys need to be on a single line",
    ]],
  ];
  for (const [yaml, expected] of cases) assert.deepEqual(errorsOf(decodePods(yaml, "pod.yaml")), expected, yaml);
  assert.deepEqual(errorsOf(decodePods('{"apiVersion": "v1",\n "kind": "Pod",\n "spec": {]}', "pod.json")), [
    'pod.json:3:11: Flow map in block collection must be sufficiently indented and end with a }',
  ]);
});

test("multi-document YAML: empty documents are skipped and errors name their document", () => {
  const pod = (name: string): string => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: app}]}\n`;
  const stream = `---\n# nothing here\n---\n${pod("a")}---\n---\n${pod("b")}...\n`;
  assert.deepEqual(valueOf(decodePods(stream, "pods.yaml")).map((p) => p.metadata.name), ["a", "b"]);
  const bad = `${pod("a")}---\n\n---\napiVersion: apps/v1\nkind: Deployment\n---\n${pod("c").replace("name: app", "name: app, bogus: 1")}`;
  assert.deepEqual(errorsOf(decodePods(bad, "pods.yaml")), [
    'pods.yaml: document 3: apiVersion: Unsupported value: "apps/v1": supported values: "v1"',
    'pods.yaml: document 3: kind: Unsupported value: "Deployment": supported values: "Pod", "List", "PodList"',
    'pods.yaml: document 4: strict decoding error: unknown field "spec.containers[0].bogus"',
  ]);
  assert.deepEqual(valueOf(decodePods("", "empty.yaml")), []);
  assert.deepEqual(valueOf(decodePods("---\n# only a comment\n", "empty.yaml")), []);
});

test("a v1 List (and a typed PodList) of pods is expanded; item errors use items[i] paths", () => {
  const list = {
    apiVersion: "v1",
    kind: "List",
    metadata: { resourceVersion: "" },
    items: [
      { apiVersion: "v1", kind: "Pod", metadata: { name: "a" }, spec: { containers: [{ name: "app" }] } },
      { apiVersion: "v1", kind: "Pod", metadata: { name: "b" }, spec: { containers: [{ name: "app" }] } },
    ],
  };
  assert.deepEqual(valueOf(decodePods(JSON.stringify(list), "list.json")).map((p: Pod) => p.metadata.name), ["a", "b"]);
  const typed = { apiVersion: "v1", kind: "PodList", items: [{ metadata: { name: "c" }, spec: { containers: [{ name: "app" }] } }] };
  assert.deepEqual(valueOf(decodePods(JSON.stringify(typed), "list.json")).map((p: Pod) => p.metadata.name), ["c"]);
  const broken = structuredClone(list) as { items: Record<string, unknown>[] };
  broken.items[0] = { apiVersion: "v1", kind: "Service", spec: {} };
  (broken.items[1]!["spec"] as Record<string, unknown>)["nope"] = 1;
  assert.deepEqual(errorsOf(decodePods(JSON.stringify(broken), "list.json")), [
    'items[0].kind: Unsupported value: "Service": supported values: "Pod"',
    'strict decoding error: unknown field "items[1].spec.nope"',
  ]);
});

test("apiVersion and kind are required on a Pod; a non-object document is rejected", () => {
  assert.deepEqual(errorsOf(decodePods("metadata: {name: a}\n", "p.yaml")), ["apiVersion: Required value", "kind: Required value"]);
  assert.deepEqual(errorsOf(decodePods("- a\n- b\n", "p.yaml")), ['Invalid value: ["a","b"]: must be a Pod or List object']);
});

test("absent required fields decode to Go's zero values, so validation reports them", () => {
  const pods = valueOf(decodePods("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - livenessProbe: {tcpSocket: {}}\n", "p.yaml"));
  assert.deepEqual(pods[0]?.spec.containers[0], { name: "", livenessProbe: { tcpSocket: { port: 0 } } });
  const result = defaultAndValidatePod(pods[0]!);
  assert.deepEqual(result.ok ? [] : formatFieldErrors(result.errors), [
    "spec.containers[0].name: Required value",
    "spec.containers[0].image: Required value",
    "spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive",
  ]);
});

test("decodeProbe decodes one Probe; errors use the caller's path prefix", () => {
  assert.deepEqual(valueOf(decodeProbe('{"grpc": {"port": 50051}, "periodSeconds": 3}', "--probe")), { grpc: { port: 50051 }, periodSeconds: 3 });
  assert.deepEqual(errorsOf(decodeProbe("periodSeconds: ten\nbogus: 1\n", "probe.yaml")), [
    'periodSeconds: Invalid value: "ten": must be an integer',
    'strict decoding error: unknown field "bogus"',
  ]);
  assert.deepEqual(errorsOf(decodeProbe("grpc: {port: web}\n", "probe.yaml", { pathPrefix: "spec.containers[0].livenessProbe" })), [
    'spec.containers[0].livenessProbe.grpc.port: Invalid value: "web": must be an integer',
  ]);
  assert.deepEqual(errorsOf(decodeProbe("", "probe.yaml")), ["probe.yaml: expected exactly one Probe object, the input is empty"]);
  assert.deepEqual(errorsOf(decodeProbe("a: 1\n---\nb: 2\n", "probe.yaml")), ["probe.yaml: expected exactly one Probe object, found 2 documents"]);
  assert.deepEqual(errorsOf(decodeProbe("[1]", "probe.yaml")), ["Invalid value: [1]: must be an object"]);
  // null means absent, as in Go's JSON decoding.
  assert.deepEqual(valueOf(decodeProbe("exec: {command: [a]}\nhttpGet: null\n", "p.yaml")), { exec: { command: ["a"] } });
});

test('a "__proto__" label stays an ordinary label', () => {
  const pods = valueOf(decodePods('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"__proto__":"x"}},"spec":{"containers":[]}}', "p.json"));
  const labels = pods[0]?.metadata.labels ?? {};
  assert.equal(Object.getPrototypeOf(labels), Object.prototype);
  assert.deepEqual(Object.entries(labels), [["__proto__", "x"]]);
});

test("decoding never throws on hostile input", () => {
  const inputs = [
    "\u0000\u0001\u0002",
    "a: &a [*a, *a]\n",
    `a: &x [1]\nb: &y [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\nc: [${Array.from({ length: 200 }, () => "*y").join(", ")}]\n`,
    "{".repeat(500),
    "key: !!binary AAAA\n",
    "? [complex, key]\n: value\n",
  ];
  for (const input of inputs) {
    const pods = decodePods(input, "x.yaml");
    const probe = decodeProbe(input, "x.yaml");
    assert.equal(pods.ok, false, JSON.stringify(input));
    assert.equal(probe.ok, false, JSON.stringify(input));
    for (const e of [...(pods.ok ? [] : pods.errors), ...(probe.ok ? [] : probe.errors)]) {
      assert.equal(typeof e, "string");
      assert.doesNotMatch(e, /\n\s+at /, "no stack traces");
    }
  }
});

test("decodePods reads strict JSON with format json, and refuses a 10,000-deep manifest with an error instead of a stack overflow", () => {
  const json = '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": [{"name": "app", "image": "x"}]}}';
  const decoded = decodePods(json, "pod.json", "json");
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.map((p) => p.metadata.name), ["web"]);
  assert.deepEqual(decodePods(json.replace('"kind"', "kind"), "pod.json", "json"), {
    ok: false,
    errors: ["pod.json:1:22: invalid character 'k' looking for beginning of object key string"],
  });
  const deep = `metadata: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`;
  assert.deepEqual(decodePods(deep, "pod.yaml"), { ok: false, errors: ["pod.yaml:1: exceeded max depth of 100"] });
  assert.deepEqual(decodeProbe(`exec: ${'{"a":'.repeat(10_000)}`, "probe.yaml"), { ok: false, errors: ["probe.yaml:1: exceeded max depth of 100"] });
});

test("dropDisabledPodFields: fields of 1.37 behind alpha gates (httpGet.protocol, grpc.mode, emptyDir.mode, bindMountOptions, user/defaultUser, stopSignal, schedulingGroup, evictionResponders) are accepted and dropped", () => {
  const yaml = `apiVersion: v1
kind: Pod
metadata: {name: new-fields}
spec:
  schedulingGroup: {podGroupName: g}
  evictionResponders: [{name: r, priority: 1}]
  volumes:
    - {name: scratch, emptyDir: {mode: 448}}
    - {name: cfg, configMap: {name: c, defaultUser: 1000, items: [{key: k, path: p, user: 1000}]}}
    - {name: down, downwardAPI: {defaultUser: 1000, items: [{path: n, fieldRef: {fieldPath: metadata.name}, user: 1000}]}}
  containers:
    - name: app
      image: img
      command: [app]
      volumeMounts: [{name: scratch, mountPath: /scratch, bindMountOptions: [nosuid]}]
      livenessProbe: {httpGet: {path: /healthz, port: 8080, protocol: HTTP2}}
      readinessProbe: {grpc: {port: 9090, mode: TLS}}
      lifecycle: {stopSignal: SIGUSR1, preStop: {httpGet: {path: /stop, port: 8080, protocol: HTTP2}}}
`;
  const [pod] = valueOf(decodePods(yaml, "new-fields.yaml"));
  const c = pod!.spec.containers[0]!;
  assert.deepEqual(c.livenessProbe?.httpGet, { path: "/healthz", port: 8080 });
  assert.deepEqual(c.readinessProbe?.grpc, { port: 9090 });
  assert.deepEqual(c.lifecycle, { preStop: { httpGet: { path: "/stop", port: 8080 } } });
  assert.deepEqual(c.volumeMounts, [{ name: "scratch", mountPath: "/scratch" }]);
  assert.deepEqual(pod!.spec.volumes, [
    { name: "scratch", emptyDir: {} },
    { name: "cfg", configMap: { name: "c", items: [{ key: "k", path: "p" }] } },
    { name: "down", downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } },
  ]);
  assert.equal("schedulingGroup" in pod!.spec || "evictionResponders" in pod!.spec, false);
  const result = defaultAndValidatePod(pod!);
  assert.ok(result.ok, result.ok ? "" : formatFieldErrors(result.errors).join("; "));
  // The field is still typed, as the API server's decoder types it before dropping it.
  assert.deepEqual(errorsOf(decodePods(yaml.replace("protocol: HTTP2}}\n      readiness", "protocol: 2}}\n      readiness"), "p.yaml")), [
    "spec.containers[0].livenessProbe.httpGet.protocol: Invalid value: 2: must be a string",
  ]);
  // workloadRef (alpha in 1.35) is gone from the 1.37 API: an unknown field.
  assert.deepEqual(errorsOf(decodePods(yaml.replace("  schedulingGroup:", "  workloadRef: {name: w}\n  schedulingGroup:"), "p.yaml")), ['strict decoding error: unknown field "spec.workloadRef"']);
});
