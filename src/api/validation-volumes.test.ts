import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultPod } from "./defaults.js";
import { formatFieldErrors } from "./field-errors.js";
import type { Container, Pod, Volume } from "./types.js";
import { validatePod } from "./validation.js";

function pod(container: Partial<Container>, volumes?: Volume[]): Pod {
  return defaultPod({ metadata: { name: "p" }, spec: { containers: [{ name: "app", image: "x", ...container }], ...(volumes ? { volumes } : {}) } });
}

function errors(container: Partial<Container>, volumes?: Volume[]): string[] {
  return formatFieldErrors(validatePod(pod(container, volumes)));
}

test("defaulting: defaultMode 0644 (420) on configMap, secret, downwardAPI and projected; a sourceless volume is an emptyDir; fieldRef apiVersion v1", () => {
  const p = pod({ env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] }, [
    { name: "a", configMap: { name: "c" } },
    { name: "b", secret: { secretName: "s" } },
    { name: "c", downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } },
    { name: "d", projected: { sources: [] } },
    { name: "e" },
    { name: "f", hostPath: { path: "/srv" } },
  ]);
  const v = p.spec.volumes!;
  assert.deepEqual([v[0]!.configMap!.defaultMode, v[1]!.secret!.defaultMode, v[2]!.downwardAPI!.defaultMode, v[3]!.projected!.defaultMode], [420, 420, 420, 420]);
  assert.deepEqual(v[4], { name: "e", emptyDir: {} });
  assert.equal(v[5]!.hostPath!.type, "");
  assert.equal(v[2]!.downwardAPI!.items![0]!.fieldRef!.apiVersion, "v1");
  assert.equal(p.spec.containers[0]!.env![0]!.valueFrom!.fieldRef!.apiVersion, "v1");
  assert.deepEqual(formatFieldErrors(validatePod(p)), []);
});

test("volume names: required, DNS-1123 labels, unique", () => {
  assert.deepEqual(errors({}, [{ name: "a", emptyDir: {} }, { name: "a", emptyDir: {} }]), ['spec.volumes[1].name: Duplicate value: "a"']);
  assert.deepEqual(errors({}, [{ name: "", emptyDir: {} }]), ["spec.volumes[0].name: Required value"]);
  assert.match(errors({}, [{ name: "Bad_Name", emptyDir: {} }])[0]!, /^spec\.volumes\[0\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label/);
});

test("one volume type per volume; sources probelet does not mount are refused by name", () => {
  assert.deepEqual(errors({}, [{ name: "a", emptyDir: {}, hostPath: { path: "/x" } }]), ["spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"]);
  const nfs = { name: "n", nfs: { server: "s", path: "/" } } as unknown as Volume;
  assert.deepEqual(errors({}, [nfs]), ["spec.volumes[0].nfs: Forbidden: probelet mounts only emptyDir, hostPath, configMap, secret, downwardAPI, projected volumes"]);
});

test("volumeMounts: a missing volume is Not found, mountPath required and unique, subPath relative without '..'", () => {
  const volumes: Volume[] = [{ name: "v", emptyDir: {} }];
  assert.deepEqual(errors({ volumeMounts: [{ name: "x", mountPath: "/a" }] }, volumes), ['spec.containers[0].volumeMounts[0].name: Not found: "x"']);
  assert.deepEqual(errors({ volumeMounts: [{ name: "v", mountPath: "/a" }, { name: "v", mountPath: "/a" }] }, volumes), ['spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique']);
  assert.deepEqual(errors({ volumeMounts: [{ name: "v", mountPath: "" }] }, volumes), ["spec.containers[0].volumeMounts[0].mountPath: Required value"]);
  assert.deepEqual(errors({ volumeMounts: [{ name: "v", mountPath: "/a", subPath: "/abs" }] }, volumes), ['spec.containers[0].volumeMounts[0].subPath: Invalid value: "/abs": must be a relative path']);
  assert.deepEqual(errors({ volumeMounts: [{ name: "v", mountPath: "/a", subPath: "a/../../b" }] }, volumes), ["spec.containers[0].volumeMounts[0].subPath: Invalid value: \"a/../../b\": must not contain '..'"]);
});

test("items: key and path required, path relative, without '..', not starting with '..'; modes within 0..0777", () => {
  const cm = (items: { key: string; path: string; mode?: number }[], defaultMode?: number): Volume[] => [{ name: "c", configMap: { name: "cfg", items, ...(defaultMode !== undefined ? { defaultMode } : {}) } }];
  assert.deepEqual(errors({}, cm([{ key: "", path: "" }])), ["spec.volumes[0].configMap.items[0].key: Required value", "spec.volumes[0].configMap.items[0].path: Required value"]);
  assert.deepEqual(errors({}, cm([{ key: "k", path: "/etc/x" }])), ['spec.volumes[0].configMap.items[0].path: Invalid value: "/etc/x": must be a relative path']);
  assert.deepEqual(errors({}, cm([{ key: "k", path: "../x" }])), [
    "spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not contain '..'",
    "spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not start with '..'",
  ]);
  assert.deepEqual(errors({}, cm([{ key: "k", path: "x", mode: 0o1000 }], -1)), [
    "spec.volumes[0].configMap.defaultMode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive",
    "spec.volumes[0].configMap.items[0].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
  ]);
});

test("source references: configMap name, secretName and hostPath path are required; hostPath type is an enumeration", () => {
  assert.deepEqual(errors({}, [{ name: "c", configMap: {} }, { name: "s", secret: {} }, { name: "h", hostPath: { path: "" } }]), [
    "spec.volumes[0].configMap.name: Required value",
    "spec.volumes[1].secret.secretName: Required value",
    "spec.volumes[2].hostPath.path: Required value",
  ]);
  assert.deepEqual(errors({}, [{ name: "h", hostPath: { path: "/x", type: "Dir" } }]), [
    'spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
  ]);
});

test("downwardAPI items: one of fieldRef and resourceFieldRef, volume field paths only, containerName required", () => {
  const d = (item: object): Volume[] => [{ name: "d", downwardAPI: { items: [{ path: "f", ...item }] } }];
  assert.deepEqual(errors({}, d({})), ["spec.volumes[0].downwardAPI.items[0]: Required value: one of fieldRef and resourceFieldRef is required"]);
  assert.deepEqual(errors({}, d({ fieldRef: { fieldPath: "spec.nodeName" } })), [
    'spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
  ]);
  assert.deepEqual(errors({}, d({ resourceFieldRef: { resource: "limits.cpu" } })), ["spec.volumes[0].downwardAPI.items[0].resourceFieldRef.containerName: Required value"]);
});

test("projected sources: one kind per source, no path written twice, serviceAccountToken refused without a token issuer", () => {
  const p = (sources: object[]): Volume[] => [{ name: "p", projected: { sources } }];
  assert.deepEqual(errors({}, p([{ configMap: { name: "a", items: [{ key: "k", path: "x" }] } }, { secret: { name: "b", items: [{ key: "k", path: "x" }] } }])), [
    'spec.volumes[0].projected.sources[1].secret.items[0].path: Invalid value: "x": conflicting duplicate paths',
  ]);
  assert.deepEqual(errors({}, p([{ configMap: { name: "a" }, secret: { name: "b" } }])), ["spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source"]);
  assert.deepEqual(errors({}, p([{ serviceAccountToken: { path: "t" } }])), [
    "spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: probelet has no token issuer; serviceAccountToken projections are not supported",
  ]);
});

test("serviceAccountToken projections on a node that requests tokens: defaulted to 3600 s, then checked as validateProjectionSources checks them", () => {
  const sa = (token: object, serviceAccountName = "default"): string[] => {
    const p = pod({}, [{ name: "t", projected: { sources: [{ serviceAccountToken: token as { path: string } }] } }]);
    return formatFieldErrors(validatePod({ ...p, spec: { ...p.spec, serviceAccountName } }, { tokenRequests: true }));
  };
  const defaulted = pod({}, [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } }]);
  assert.equal(defaulted.spec.volumes![0]!.projected!.sources![0]!.serviceAccountToken!.expirationSeconds, 3600);
  assert.deepEqual(sa({ path: "token", expirationSeconds: 3607, audience: "vault" }), []);
  assert.deepEqual(sa({ path: "token", expirationSeconds: 599 }), ["spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"]);
  assert.deepEqual(sa({ path: "token", expirationSeconds: 2 ** 32 + 1 }), ["spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"]);
  // A missing or escaping path is reported at the volume's path, as the API server reports it.
  assert.deepEqual(sa({ path: "", expirationSeconds: 3600 }), ["spec.volumes[0].projected.path: Required value"]);
  assert.deepEqual(sa({ path: "../x", expirationSeconds: 3600 }), [
    'spec.volumes[0].projected.path: Invalid value: "../x": must not contain \'..\'',
    'spec.volumes[0].projected.path: Invalid value: "../x": must not start with \'..\'',
  ]);
  assert.deepEqual(sa({ path: "token", expirationSeconds: 3600 }, ""), ["spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set"]);
});

test("env valueFrom: exactly one source, not with a value, valid selectors and keys", () => {
  const e = (valueFrom: object, value?: string) => errors({ env: [{ name: "X", ...(value !== undefined ? { value } : {}), valueFrom }] });
  assert.deepEqual(e({}), ['spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`']);
  assert.deepEqual(e({ configMapKeyRef: { name: "a", key: "k" }, secretKeyRef: { name: "b", key: "k" } }), ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time']);
  assert.deepEqual(e({ configMapKeyRef: { name: "a", key: "k" } }, "v"), ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty']);
  assert.deepEqual(e({ secretKeyRef: { name: "", key: "" } }), ["spec.containers[0].env[0].valueFrom.secretKeyRef.name: Required value", "spec.containers[0].env[0].valueFrom.secretKeyRef.key: Required value"]);
  assert.match(e({ configMapKeyRef: { name: "a", key: "bad key" } })[0]!, /^spec\.containers\[0\]\.env\[0\]\.valueFrom\.configMapKeyRef\.key: Invalid value: "bad key": a valid config key must consist of alphanumeric characters/);
});

test("env fieldRef and resourceFieldRef: supported paths, subscripts only on labels and annotations, divisors per resource", () => {
  const f = (fieldPath: string) => errors({ env: [{ name: "X", valueFrom: { fieldRef: { fieldPath } } }] });
  assert.deepEqual(f("metadata.labels['app']"), []);
  assert.deepEqual(f("status.podIPs"), []);
  assert.deepEqual(f("spec.restartPolicy"), [
    'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.restartPolicy": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
  ]);
  assert.deepEqual(f("spec.bogus"), ['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.bogus": error converting fieldPath: field label not supported: spec.bogus']);
  const r = (resource: string, divisor?: string) => errors({ env: [{ name: "X", valueFrom: { resourceFieldRef: { resource, ...(divisor ? { divisor } : {}) } } }] });
  assert.deepEqual(r("limits.cpu", "1m"), []);
  // The API server defaults an unset divisor to "0" (a zero Quantity), which is no divisor at all.
  assert.deepEqual(r("limits.cpu", "0"), []);
  assert.deepEqual(r("requests.memory", "0"), []);
  assert.deepEqual(r("limits.cpu", "2m"), ['spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource']);
  assert.deepEqual(r("limits.memory", "3Mi"), [
    'spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource',
  ]);
  assert.match(r("limits.gpu")[0]!, /^spec\.containers\[0\]\.env\[0\]\.valueFrom\.resourceFieldRef\.resource: Unsupported value: "limits\.gpu"/);
});

test("envFrom: one of configMapRef or secretRef (the error names envFrom itself), name required, prefix a valid name", () => {
  assert.deepEqual(errors({ envFrom: [{}] }), ['spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`']);
  assert.deepEqual(errors({ envFrom: [{ configMapRef: { name: "a" }, secretRef: { name: "b" } }] }), ['spec.containers[0].envFrom: Invalid value: "": may not have more than one field specified at a time']);
  assert.deepEqual(errors({ envFrom: [{ configMapRef: {} }] }), ["spec.containers[0].envFrom[0].configMapRef.name: Required value"]);
  assert.match(errors({ envFrom: [{ prefix: "A=", secretRef: { name: "s" } }] })[0]!, /^spec\.containers\[0\]\.envFrom\[0\]\.prefix: Invalid value: "A=": a valid environment variable name/);
});
