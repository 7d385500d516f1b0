// `probelet run` as a user runs it: the built CLI with a manifest on stdin.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../../test/cli-harness.js";

const RISKY = `apiVersion: v1
kind: Pod
metadata: {name: risky}
spec:
  containers:
  - name: app
    image: busybox
    command: ["sleep", "30"]
    livenessProbe:
      exec: {command: ["true"]}
      failureThreshold: 1
`;

test("run prints the probe linter's findings as warnings and runs the pod as it is", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  let sawPod = false;
  const run = await runCli(["run", "-f", "-", "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state")], {
    input: RISKY,
    // The live view's first line for the pod: it was admitted; then stop the agent as Ctrl-C would.
    onStdout: (soFar, kill) => {
      if (!sawPod && /^pod\s+default\/risky\b/m.test(soFar)) {
        sawPod = true;
        kill("SIGINT");
      }
    },
  });
  assert.ok(sawPod, run.stdout + run.stderr);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^Warning: STDIN: pod\/risky: spec\.containers\[0\]\.livenessProbe\.failureThreshold: 1 restarts the container after a single failed probe/m);
});

test("run records its status API URL, and its HTTPS URL for kubectl, in the state directory's agent-url while it serves, and removes it on exit", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const urlFile = join(dir, "state", "agent-url");
  let served: string | undefined;
  let recorded: string | undefined;
  await mkdir(join(dir, "manifests"));
  const run = await runCli(["run", "--manifests", join(dir, "manifests"), "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state"), "-q"], {
    onStdout: (soFar, kill) => {
      // With openssl the loopback agent serves HTTPS beside HTTP and records both; without, HTTP alone.
      const http = /status API (http:\/\/127\.0\.0\.1:\d+)/.exec(soFar)?.[1];
      const https = /HTTPS (https:\/\/127\.0\.0\.1:\d+)/.exec(soFar)?.[1];
      if (served === undefined && http !== undefined && /Ctrl-C stops/.test(soFar)) {
        served = https === undefined ? http : `${http}\n${https}`;
        recorded = existsSync(urlFile) ? readFileSync(urlFile, "utf8") : "(missing)";
        kill("SIGINT");
      }
    },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(served, run.stdout);
  assert.equal(recorded, `${served}\n`);
  assert.equal(existsSync(urlFile), false, "the file is gone once the agent stopped");
});

test("with the live view on, the agent's log lines are lines of the view on stdout, not JSON on stderr between them", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const manifests = join(dir, "manifests");
  await mkdir(manifests);
  await writeFile(join(manifests, "bad.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: app, image: busybox, bogus: 1}]}\n");
  let seen = false;
  const run = await runCli(["run", "--manifests", manifests, "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state")], {
    onStdout: (soFar, kill) => {
      if (!seen && /^log {2}error {2}manifests {2}Manifest not applied in full; what it refused keeps running as before {2}file=\S+bad\.yaml errors=\["strict decoding error: unknown field \\"spec\.containers\[0\]\.bogus\\""\]$/m.test(soFar) && /^event {2}Warning {2}ManifestRejected {2}node\/\S+ {2}Manifest /m.test(soFar)) {
        seen = true;
        kill("SIGINT");
      }
    },
  });
  assert.ok(seen, run.stdout);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /"msg"/, "no JSON log line on stderr");
});
