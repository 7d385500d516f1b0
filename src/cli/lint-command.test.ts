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

/** riskyContainer is a container whose liveness probe restarts it after one failure, indented for a template's `containers:`. */
const riskyContainer = (indent: string): string =>
  `${indent}- name: app\n${indent}  image: app\n${indent}  livenessProbe:\n${indent}    exec: {command: ["true"]}\n${indent}    failureThreshold: 1\n`;

const WORKLOADS = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: hunter2}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
${riskyContainer("      ")}---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      initContainers:
      - name: side
        image: side
        restartPolicy: Always
        livenessProbe: {tcpSocket: {port: 9000}, failureThreshold: 1}
      containers:
      - {name: db, image: db}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    spec:
      containers:
${riskyContainer("      ")}---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  selector: {matchLabels: {app: rs}}
  template:
    spec:
      containers:
${riskyContainer("      ")}---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
${riskyContainer("      ")}---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
${riskyContainer("          ")}`;

test("lint reads what run reads: ConfigMaps, Secrets and other kinds are skipped, and every workload's pod template is linted with its path", async () => {
  const run = await runCli(["lint", "-f", "-"], { input: WORKLOADS });
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stderr, "");
  const prefix = (line: string): string => line.slice(0, line.indexOf(": 1 restarts"));
  assert.deepEqual(run.stdout.trimEnd().split("\n").map(prefix), [
    "STDIN: deployment.apps/web: spec.template.spec.containers[0].livenessProbe.failureThreshold",
    "STDIN: statefulset.apps/db: spec.template.spec.initContainers[0].livenessProbe.failureThreshold",
    "STDIN: daemonset.apps/agent: spec.template.spec.containers[0].livenessProbe.failureThreshold",
    "STDIN: replicaset.apps/rs: spec.template.spec.containers[0].livenessProbe.failureThreshold",
    "STDIN: job.batch/once: spec.template.spec.containers[0].livenessProbe.failureThreshold",
    "STDIN: cronjob.batch/nightly: spec.jobTemplate.spec.template.spec.containers[0].livenessProbe.failureThreshold",
  ]);
  assert.doesNotMatch(run.stdout + run.stderr, /hunter2/);
});

test("lint: a file without findings counts pods and templates and the objects it skipped; a bad template is exit 2 with its path", async () => {
  const clean = WORKLOADS.replaceAll("failureThreshold: 1", "failureThreshold: 3");
  const calm = "apiVersion: v1\nkind: Pod\nmetadata: {name: calm}\nspec:\n  containers:\n  - {name: app, image: app}\n";
  const run = await runCli(["lint", "-f", "-"], { input: `${calm}---\n${clean}` });
  assert.deepEqual([run.code, run.stdout], [0, "1 pod and 6 pod templates checked; 3 other objects skipped, no findings\n"], run.stderr);
  const bad = await runCli(["lint", "-f", "-"], { input: WORKLOADS.replace("exec: {command: [\"true\"]}\n      failureThreshold: 1", "exec: {command: [\"true\"]}\n      failureThreshold: -1").replace("image: app\n", "image: app\n        bogus: 1\n") });
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'error: STDIN: Deployment "web" is invalid:\n* strict decoding error: unknown field "spec.template.spec.containers[0].bogus"\n');
  const invalid = await runCli(["lint", "-f", "-"], { input: WORKLOADS.replace("failureThreshold: 1", "failureThreshold: -1") });
  assert.equal(invalid.code, 2);
  assert.equal(invalid.stderr, 'error: STDIN: Deployment "web" is invalid:\n* spec.template.spec.containers[0].livenessProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0\n');
});
