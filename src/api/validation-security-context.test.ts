// securityContext as the API server decodes and validates it: typed fields (a string runAsUser
// is a decode error), unknown fields refused, user and group IDs in range with its texts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodePods } from "./decode.js";
import { formatFieldErrors } from "./field-errors.js";
import { defaultAndValidatePod } from "./validation.js";

function errors(yaml: string): string[] {
  const decoded = decodePods(yaml, "pod.yaml");
  if (!decoded.ok) return decoded.errors;
  const checked = defaultAndValidatePod(decoded.value[0]!);
  return checked.ok ? [] : formatFieldErrors(checked.errors);
}

const POD = (pod: string, container: string) => `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  securityContext: ${pod}
  containers:
  - name: app
    image: app
    securityContext: ${container}
`;

test("securityContext: IDs out of range are Invalid with the API server's text, at the pod's and the container's paths", () => {
  assert.deepEqual(errors(POD("{runAsUser: -1, runAsGroup: 2147483648, fsGroup: -2, supplementalGroups: [1, -3]}", "{runAsUser: -5, runAsGroup: -6}")), [
    "spec.containers[0].securityContext.runAsUser: Invalid value: -5: must be between 0 and 2147483647, inclusive",
    "spec.containers[0].securityContext.runAsGroup: Invalid value: -6: must be between 0 and 2147483647, inclusive",
    "spec.securityContext.fsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive",
    "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
    "spec.securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive",
    "spec.securityContext.supplementalGroups[1]: Invalid value: -3: must be between 0 and 2147483647, inclusive",
  ]);
  assert.deepEqual(errors(POD("{runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}", "{runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, readOnlyRootFilesystem: true}")), []);
});

test("securityContext: wrong types and unknown fields are decode errors naming the field", () => {
  const [typed] = errors(POD("{}", '{runAsUser: "1000"}'));
  assert.match(typed ?? "", /spec\.containers\[0\]\.securityContext\.runAsUser/);
  const [unknown] = errors(POD("{runAsUsr: 5}", "{}"));
  assert.match(unknown ?? "", /unknown field "spec\.securityContext\.runAsUsr"/);
});
