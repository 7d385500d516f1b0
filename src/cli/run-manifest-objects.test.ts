// `probelet run -f` with a ConfigMap, a Secret and a pod that reads both in one file, on a real
// agent (process runtime): the pod prints both values, a Deployment in the file is skipped with
// a warning, a bad ConfigMap is refused while the rest runs, and the Secret's value is in no
// output of the agent and in no event.
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { agentSandbox } from "../../test/agent-process.js";
import { getJson, getText } from "../../test/cri/agent-cli.js";

const SECRET_VALUE = "pa55-only-in-the-pod";

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
data: {greeting: hello-from-configmap}
---
apiVersion: v1
kind: Secret
metadata: {name: app-secret}
stringData: {password: ${SECRET_VALUE}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-deploy}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: bad-config}
data: {"bad key": x}
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "echo \\"greeting=$GREETING password=$PASSWORD\\"; exec sleep 300"]
    env:
    - name: GREETING
      valueFrom: {configMapKeyRef: {name: app-config, key: greeting}}
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: app-secret, key: password}}
`;

test("run -f: a pod reads a ConfigMap and a Secret of its own file; other kinds are skipped with a warning, a bad ConfigMap is refused, the Secret's value stays out of output and events", async (t) => {
  const { dir, start } = await agentSandbox(t, "probelet-manifest-objects-");
  const state = join(dir, "state");
  await writeFile(join(dir, "app.yaml"), MANIFEST);
  const agent = await start(["-f", join(dir, "app.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state, "--log-level", "debug"]);
  const logUrl = `${agent.url}/api/v1/namespaces/default/pods/app/log`;
  let log: string | undefined;
  for (let i = 0; i < 100 && !log?.includes("\n"); i++) {
    log = await getText(logUrl, state);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(log, `greeting=hello-from-configmap password=${SECRET_VALUE}\n`);
  assert.match(agent.stderr(), /Warning: .*app\.yaml: skipping Deployment "app-deploy" \(apps\/v1\)/);
  assert.match(agent.stderr(), /error: .*app\.yaml: ConfigMap "bad-config" is invalid:\n {2}\* data\[bad key\]: Invalid value: "bad key": a valid config key/);
  const secret = await getJson<{ data: Record<string, string> }>(`${agent.url}/api/v1/namespaces/default/secrets/app-secret`, state);
  assert.deepEqual(secret?.data, { password: Buffer.from(SECRET_VALUE).toString("base64") }, "the Secret is in the store as the API would have stored it");
  const events = await getJson<unknown>(`${agent.url}/api/v1/namespaces/default/events`, state);
  assert.ok(events !== undefined);
  assert.doesNotMatch(JSON.stringify(events), new RegExp(SECRET_VALUE));
  assert.doesNotMatch(agent.stdout() + agent.stderr(), new RegExp(SECRET_VALUE), "no log line of the agent (debug level) names the value");
});

test("--manifests DIR: editing a file updates its ConfigMap in the agent's store, removing the file deletes it", async (t) => {
  const { dir, start } = await agentSandbox(t, "probelet-manifest-dir-objects-");
  const state = join(dir, "state");
  const manifests = join(dir, "manifests");
  await mkdir(manifests);
  const file = join(manifests, "cfg.yaml");
  const configMap = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched}\ndata: {value: ${value}}\n`;
  await writeFile(file, configMap("one"));
  const agent = await start(["--manifests", manifests, "--listen", "127.0.0.1:0", "--state-dir", state]);
  const url = `${agent.url}/api/v1/namespaces/default/configmaps/watched`;
  const valueNow = async () => (await getJson<{ data: { value: string } }>(url, state))?.data.value;
  const until = async (what: string, want: string | undefined): Promise<void> => {
    // fs.watch sees the change at once; the directory is also rescanned every 20 s.
    for (let i = 0; i < 250; i++) {
      if ((await valueNow()) === want) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what}`);
  };
  await until("the file's ConfigMap", "one");
  await writeFile(file, configMap("two"));
  await until("the edited value", "two");
  await rm(file);
  await until("the ConfigMap deleted with its file", undefined);
});
