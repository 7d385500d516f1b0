// Real kubectl 1.20 and 1.32 reading from a real probelet agent (process runtime): version,
// discovery, get in every output, watch, describe, logs, events, namespaces, ConfigMaps,
// Secrets and explain. One agent serves every case; each case uses its own pods. Skipped, with the reason,
// when the cached kubectl binaries are missing (scripts/kube-clients.sh install).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { KUBECTL_VERSIONS, kubectlEnv, type KubectlVersion } from "./kubectl-env.js";
import { eventually, podYaml, startKubectlAgent, writeManifest, type KubectlAgent } from "./kubectl-agent-harness.js";

const env = kubectlEnv();
const skip = env.skip;
let agent: KubectlAgent;

/** tag is the version as it goes into object names: "120", "132". */
const tag = (version: KubectlVersion): string => version.replace(".", "");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** runningPod creates a pod with kubectl and waits until the agent reports it Running. */
async function runningPod(version: KubectlVersion, name: string, script: string, labels: Record<string, string> = {}): Promise<void> {
  const file = await writeManifest(agent, `${name}.yaml`, podYaml(name, script, { labels }));
  const created = await agent.kubectl(version, ["create", "-f", file]);
  assert.equal(created.code, 0, created.stderr);
  await eventually(agent, version, ["get", "pod", name, "-o", "jsonpath={.status.phase}"], (out) => out === "Running");
}

before(async () => {
  if (env.paths !== undefined) agent = await startKubectlAgent(env.paths);
});
after(async () => {
  await agent?.stop();
});

for (const version of KUBECTL_VERSIONS) {
  const v = tag(version);

  test(`kubectl ${version} version shows the agent's server version`, { skip }, async () => {
    const run = await agent.kubectl(version, ["version"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /v1\.37\.2\+probelet/);
  });

  test(`kubectl ${version} api-resources lists the six core resources with their short names`, { skip }, async () => {
    const run = await agent.kubectl(version, ["api-resources", "--no-headers"]);
    assert.equal(run.code, 0, run.stderr);
    const rows = run.stdout.trim().split("\n").map((line) => line.split(/\s+/).slice(0, 2).join(" "));
    assert.deepEqual(rows, ["configmaps cm", "events ev", "namespaces ns", "nodes no", "pods po", "secrets v1"]);
  });

  test(`kubectl ${version} get pods: plain, -o wide, -o yaml, -o json and -o jsonpath`, { skip }, async () => {
    await runningPod(version, `get-${v}`, "sleep 300", { app: `get-${v}` });
    const plain = await agent.kubectl(version, ["get", "pod", `get-${v}`]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
    assert.match(plain.stdout, new RegExp(`\\nget-${v}\\s+1/1\\s+Running\\s+0\\s+\\d+s\\n$`));
    const yaml = await agent.kubectl(version, ["get", "pod", `get-${v}`, "-o", "yaml"]);
    assert.match(yaml.stdout, /^apiVersion: v1\nkind: Pod\n/);
    assert.match(yaml.stdout, new RegExp(`\\n  name: get-${v}\\n`));
    assert.match(yaml.stdout, /\n {2}phase: Running\n/);
    const json = JSON.parse((await agent.kubectl(version, ["get", "pod", `get-${v}`, "-o", "json"])).stdout) as { metadata: { uid: string }; status: { podIP: string } };
    // 127.0.0.1 on the host network; the pod's own address as root with the CNI plugins.
    assert.match(json.status.podIP, /^\d+\.\d+\.\d+\.\d+$/);
    assert.match(json.metadata.uid, /^[0-9a-f-]{36}$/);
    const wide = await agent.kubectl(version, ["get", "pod", `get-${v}`, "-o", "wide"]);
    assert.match(wide.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/);
    const ip = json.status.podIP.replaceAll(".", "\\.");
    assert.match(wide.stdout, new RegExp(`\\nget-${v}\\s+1/1\\s+Running\\s+0\\s+\\d+s\\s+${ip}\\s+\\S+\\s+<none>\\s+<none>\\n$`));
    const path = await agent.kubectl(version, ["get", "pods", "-l", `app=get-${v}`, "-o", "jsonpath={.items[*].metadata.name} {.items[0].spec.containers[0].image}"]);
    assert.equal(path.stdout, `get-${v} busybox:1`);
  });

  test(`kubectl ${version} get pods -A and get all list the pod with its namespace`, { skip }, async () => {
    await runningPod(version, `all-${v}`, "sleep 300");
    const everywhere = await agent.kubectl(version, ["get", "pods", "-A"]);
    assert.match(everywhere.stdout, /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
    assert.match(everywhere.stdout, new RegExp(`\\ndefault\\s+all-${v}\\s+1/1\\s+Running\\s`));
    const all = await agent.kubectl(version, ["get", "all", "-o", "name"]);
    assert.ok(all.stdout.split("\n").includes(`pod/all-${v}`), all.stdout);
  });

  test(`kubectl ${version} get pods -l and --field-selector return only the matching pods`, { skip }, async () => {
    await runningPod(version, `sel-a-${v}`, "sleep 300", { tier: `front-${v}` });
    await runningPod(version, `sel-b-${v}`, "sleep 300", { tier: `back-${v}` });
    const names = async (...args: string[]) => (await agent.kubectl(version, ["get", "pods", "-o", "name", ...args])).stdout.trim().split("\n");
    assert.deepEqual(await names("-l", `tier=front-${v}`), [`pod/sel-a-${v}`]);
    assert.deepEqual(await names("-l", `tier in (front-${v},back-${v}),tier!=front-${v}`), [`pod/sel-b-${v}`]);
    assert.deepEqual(await names("--field-selector", `metadata.name=sel-b-${v},status.phase=Running`), [`pod/sel-b-${v}`]);
    const bad = await agent.kubectl(version, ["get", "pods", "--field-selector", "spec.image=busybox"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /field label not supported: spec\.image/);
  });

  test(`kubectl ${version} get pods -w shows a readiness change as a new row`, { skip }, async () => {
    const name = `watch-${v}`;
    const ready = `${agent.dir}/${name}.ready`;
    const file = await writeManifest(agent, `${name}.yaml`, podYaml(name, "sleep 300", { readinessFile: ready }));
    assert.equal((await agent.kubectl(version, ["create", "-f", file])).code, 0);
    await eventually(agent, version, ["get", "pod", name, "-o", "jsonpath={.status.phase}"], (out) => out === "Running");
    let touched = false;
    const watch = await agent.kubectl(version, ["get", "pod", name, "-w"], {
      timeoutMs: 20_000,
      onStdout: (soFar, stop) => {
        if (!touched && new RegExp(`${name}\\s+0/1\\s+Running`).test(soFar)) {
          touched = true;
          void writeManifest(agent, `${name}.ready`, "");
        }
        // Stop on the whole row only: kubectl may write a row in more than one chunk.
        if (new RegExp(`\\n${name}\\s+1/1\\s+Running\\s+0\\s+\\d+s\\n`).test(soFar)) stop();
      },
    });
    assert.equal(watch.code, null, "kubectl was still watching when the test ended it");
    const rows = watch.stdout.trim().split("\n");
    assert.match(rows[0] ?? "", /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    assert.match(rows[1] ?? "", new RegExp(`^${name}\\s+0/1\\s+Running\\s+0\\s+\\d+s$`));
    assert.match(rows.at(-1) ?? "", new RegExp(`^${name}\\s+1/1\\s+Running\\s+0\\s+\\d+s$`));
  });

  test(`kubectl ${version} describe pod shows the pod's events`, { skip }, async () => {
    await runningPod(version, `desc-${v}`, "sleep 300");
    const run = await agent.kubectl(version, ["describe", "pod", `desc-${v}`]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^Name:\\s+desc-${v}\\n`));
    assert.match(run.stdout, /\nStatus:\s+Running\n/);
    assert.match(run.stdout, /\nEvents:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    assert.match(run.stdout, /\n\s+Normal\s+Started\s+\S+\s+kubelet\s+Container started\n/);
  });

  test(`kubectl ${version} describe node shows the agent's node, Ready, with capacity`, { skip }, async () => {
    const nodes = await agent.kubectl(version, ["get", "nodes", "-o", "name"]);
    const node = nodes.stdout.trim();
    assert.match(node, /^node\/\S+$/);
    const run = await agent.kubectl(version, ["describe", node]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\n\s+Ready\s+True\s/);
    assert.match(run.stdout, /\nCapacity:\n\s+cpu:\s+\d+\n/);
    assert.match(run.stdout, /\n\s+Kubelet Version:\s+v1\.37\.2\+probelet\n/);
  });

  test(`kubectl ${version} logs --tail, --timestamps and --since select lines by count and by age`, { skip }, async () => {
    await runningPod(version, `logs-${v}`, "echo one; echo two; echo three; sleep 300");
    await eventually(agent, version, ["logs", `logs-${v}`], (out) => out === "one\ntwo\nthree\n");
    assert.equal((await agent.kubectl(version, ["logs", `logs-${v}`, "--tail=1"])).stdout, "three\n");
    assert.match((await agent.kubectl(version, ["logs", `logs-${v}`, "--tail=1", "--timestamps"])).stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z three\n$/);
    await sleep(2100);
    assert.equal((await agent.kubectl(version, ["logs", `logs-${v}`, "--since=1s"])).stdout, "");
    assert.equal((await agent.kubectl(version, ["logs", `logs-${v}`, "--since=1h"])).stdout, "one\ntwo\nthree\n");
  });

  test(`kubectl ${version} logs -f shows a line written after it started`, { skip }, async () => {
    await runningPod(version, `follow-${v}`, "i=0; while true; do echo line $i; i=$((i+1)); sleep 0.5; done");
    let first: string | undefined;
    const run = await agent.kubectl(version, ["logs", "-f", `follow-${v}`], {
      onStdout: (soFar, stop) => {
        first ??= soFar;
        // Complete lines only (the last piece after the final newline may be half a line).
        const lines = soFar.split("\n").slice(0, -1);
        if (lines.some((line) => !first!.includes(`${line}\n`))) stop();
      },
    });
    assert.equal(run.code, null, "kubectl was still following when the test ended it");
    // The kill may cut the stream mid-line; every complete line is the container's.
    const complete = run.stdout.slice(0, run.stdout.lastIndexOf("\n") + 1);
    assert.match(complete, /^(line \d+\n)+$/);
    assert.ok(complete.length > first!.length, "a line arrived after the first output");
  });

  test(`kubectl ${version} get events --field-selector shows only that pod's events`, { skip }, async () => {
    await runningPod(version, `ev-${v}`, "sleep 300");
    const run = await eventually(agent, version, ["get", "events", "--field-selector", `involvedObject.name=ev-${v},reason=Started`], (out) => out.includes("Started"));
    const rows = run.stdout.trim().split("\n");
    assert.match(rows[0] ?? "", /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    assert.deepEqual(rows.slice(1).map((row) => row.split(/\s+/).slice(1, 4).join(" ")), [`Normal Started pod/ev-${v}`]);
  });

  test(`kubectl ${version} create namespace, then get namespaces lists it Active`, { skip }, async () => {
    const created = await agent.kubectl(version, ["create", "namespace", `team-${v}`]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, `namespace/team-${v} created\n`);
    const list = await agent.kubectl(version, ["get", "namespaces"]);
    assert.match(list.stdout, /^NAME\s+STATUS\s+AGE\n/);
    assert.match(list.stdout, new RegExp(`\\nteam-${v}\\s+Active\\s+\\d+s\\n`));
    assert.match(list.stdout, /\ndefault\s+Active\s/);
  });

  test(`kubectl ${version} create configmap and secret from a file; the Secret's value never reaches the agent's output or events`, { skip }, async () => {
    const secretValue = `s3cr3t-value-${v}-${process.pid}`;
    const file = await writeManifest(agent, `password-${v}.txt`, secretValue);
    const cm = await agent.kubectl(version, ["create", "configmap", `conf-${v}`, `--from-file=${file}`]);
    assert.equal(cm.code, 0, cm.stderr);
    const secret = await agent.kubectl(version, ["create", "secret", "generic", `cred-${v}`, `--from-file=${file}`]);
    assert.equal(secret.code, 0, secret.stderr);
    const cmYaml = await agent.kubectl(version, ["get", "configmap", `conf-${v}`, "-o", "yaml"]);
    assert.match(cmYaml.stdout, new RegExp(`\\ndata:\\n  password-${v}.txt: ${secretValue}\\nkind: ConfigMap\\n`));
    const secretYaml = await agent.kubectl(version, ["get", "secret", `cred-${v}`, "-o", "yaml"]);
    assert.match(secretYaml.stdout, new RegExp(`\\ndata:\\n  password-${v}.txt: ${Buffer.from(secretValue).toString("base64")}\\nkind: Secret\\n`));
    assert.match(secretYaml.stdout, /\ntype: Opaque\n/);
    const table = await agent.kubectl(version, ["get", "configmaps,secrets"]);
    assert.match(table.stdout, new RegExp(`\\nconfigmap/conf-${v}\\s+1\\s+\\d+s\\n`));
    assert.match(table.stdout, new RegExp(`\\nsecret/cred-${v}\\s+Opaque\\s+1\\s+\\d+s\\n`));
    const events = await agent.kubectl(version, ["get", "events", "-A", "-o", "json"]);
    assert.doesNotMatch(events.stdout, new RegExp(secretValue));
    assert.doesNotMatch(events.stdout, new RegExp(Buffer.from(secretValue).toString("base64")));
    assert.match(agent.agentOutput(), /"method":"POST","path":"\/api\/v1\/namespaces\/default\/secrets","status":201/, "the agent logged the request");
    assert.doesNotMatch(agent.agentOutput(), new RegExp(secretValue));
  });
}

test("kubectl 1.32 explain lists the fields and types of a pod's liveness probe from /openapi/v3", { skip }, async () => {
  const run = await agent.kubectl("1.32", ["explain", "pod.spec.containers.livenessProbe", "--recursive"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^KIND: {7}Pod\nVERSION: {4}v1\n\nFIELD: livenessProbe <Object>\n/);
  for (const field of ["exec\t<Object>", "  command\t<[]string>", "failureThreshold\t<integer>", "httpGet\t<Object>", "  port\t<string>", "periodSeconds\t<integer>", "terminationGracePeriodSeconds\t<integer>"]) {
    assert.ok(run.stdout.includes(`\n  ${field}\n`), `explain lists ${field}: ${run.stdout}`);
  }
});

test("kubectl 1.20 explain pod finds no schema in /openapi/v2, and says so", { skip }, async () => {
  const run = await agent.kubectl("1.20", ["explain", "pod"]);
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'error: couldn\'t find resource for "/v1, Kind=Pod"\n');
});
