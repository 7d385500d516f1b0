// `probelet lint` as a user runs it: the built CLI, findings on stdout, exit 0 / 1 / 2.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../../test/cli-harness.js";

const RISKY = `apiVersion: v1
kind: Pod
metadata: {name: risky}
spec:
  containers:
  - name: app
    image: app
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      failureThreshold: 1
      initialDelaySeconds: 60
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
      timeoutSeconds: 10
`;

test("lint: every finding on its own line with file, pod and field path; exit 1", async () => {
  const run = await runCli(["lint", "-f", "-"], { input: RISKY });
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(
    run.stdout.trimEnd().split("\n").map((l) => l.split(":").slice(0, 3).join(":")),
    [
      "STDIN: pod/risky: spec.containers[0].readinessProbe.timeoutSeconds",
      "STDIN: pod/risky: spec.containers[0].livenessProbe.failureThreshold",
      "STDIN: pod/risky: spec.containers[0].livenessProbe",
      "STDIN: pod/risky: spec.containers[0].livenessProbe.initialDelaySeconds",
    ],
  );
});

test("lint: the shipped examples decode, validate and have no findings", async () => {
  const dir = join(process.cwd(), "examples");
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
  assert.ok(files.length >= 5, `examples: ${files.join(", ")}`);
  const run = await runCli(["lint", ...files.flatMap((f) => ["-f", join(dir, f)])]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^\d+ pods checked, no findings\n$/);
});

test("lint: an invalid manifest is exit 2 with the field errors; no -f is a usage error", async () => {
  const invalid = await runCli(["lint", "-f", "-"], { input: RISKY.replace("failureThreshold: 1", "failureThreshold: -1") });
  assert.equal(invalid.code, 2);
  assert.equal(invalid.stderr, 'error: STDIN: Pod "risky" is invalid:\n* spec.containers[0].livenessProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0\n');
  const usage = await runCli(["lint"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^error: must specify -f FILE\n/);
});
