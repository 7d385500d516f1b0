import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { newNamespace } from "../apiserver/resources/namespaces.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { NO_OBJECTS_MESSAGE } from "../api/bounded-parse.js";
import type { Pod } from "../api/types.js";
import { startStatusServer } from "../server/server.js";
import { UsageError } from "./args.js";
import { runApplyCommand, sameDesiredState } from "./apply-command.js";
import type { CommandContext } from "./probe-command.js";
import { InvalidInputError } from "./probe-spec.js";

const WEB = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: app
    image: busybox
    readinessProbe:
      httpGet: {port: 8080}
`;

const DB = `---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: data}
spec:
  containers: [{name: db, image: postgres}]
`;

/** setup serves a fake agent that removes a deleted pod shortly after (the fake only marks it). */
async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  // The API refuses pods in a namespace that does not exist (NamespaceLifecycle).
  api.store.create("namespaces", newNamespace("data"));
  const timers = new Set<NodeJS.Timeout>();
  const off = api.watchPods((e) => {
    const { namespace = "default", name = "", deletionTimestamp } = e.object.metadata;
    if (e.type !== "MODIFIED" || deletionTimestamp === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      api.removePod(namespace, name);
    }, 100);
    timers.add(timer);
  });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  const dir = await mkdtemp(join(tmpdir(), "probelet-apply-"));
  t.after(async () => {
    off();
    for (const timer of timers) clearTimeout(timer);
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const file = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  return { api, server, file };
}

function capture(stdin = "") {
  let out = "";
  let err = "";
  const ctx: CommandContext = {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readStdin: () => Promise.resolve(stdin),
    signal: new AbortController().signal,
  };
  return { ctx, out: () => out, err: () => err };
}

test("apply creates, then leaves an identical pod unchanged, then replaces a changed one", async (t) => {
  const { api, server, file } = await setup(t);
  const path = await file("web.yaml", WEB);
  const first = capture();
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], first.ctx), 0);
  assert.equal(first.out(), "pod/web created\n");
  const uid = api.getPod("default", "web").metadata.uid;

  const again = capture();
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], again.ctx), 0);
  assert.equal(again.out(), "pod/web unchanged\n");
  assert.equal(api.getPod("default", "web").metadata.uid, uid);

  const changed = capture();
  await file("web.yaml", WEB.replace("port: 8080", "port: 9090"));
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], changed.ctx), 0);
  assert.equal(changed.out(), "pod/web configured\n");
  assert.equal(changed.err(), "");
  const now = api.getPod("default", "web");
  assert.notEqual(now.metadata.uid, uid);
  assert.equal(now.spec.containers[0]?.readinessProbe?.httpGet?.port, 9090);
  assert.deepEqual(api.calls.deletePod, [{ namespace: "default", name: "web", gracePeriodSeconds: 30 }]);
});

test("apply reads several files and stdin, multi-document; each pod lands in its namespace", async (t) => {
  const { api, server, file } = await setup(t);
  const path = await file("db.yaml", DB);
  const { ctx, out } = capture(WEB + DB.replace(/db/g, "cache").replace("postgres", "redis"));
  assert.equal(await runApplyCommand(["-f", path, "-f", "-", "--server", server.url], ctx), 0);
  assert.equal(out(), "pod/db created\npod/web created\npod/cache created\n");
  assert.deepEqual(api.calls.createPod.map((c) => c.namespace), ["data", "default", "data"]);
  assert.deepEqual(api.listPods().map((p) => `${p.metadata.namespace}/${p.metadata.name}`), ["data/cache", "data/db", "default/web"]);
});

test("apply: the server's validation errors are printed as kubectl does, the other pods still apply, exit 1", async (t) => {
  const { api, server, file } = await setup(t);
  const bad = WEB.replace("readinessProbe:", "livenessProbe:\n      successThreshold: 2\n      tcpSocket: {port: 1}\n    readinessProbe:");
  const path = await file("two.yaml", `${bad}---\n${DB}`);
  const { ctx, out, err } = capture();
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], ctx), 1);
  assert.equal(err(), 'The Pod "web" is invalid: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1\n');
  assert.equal(out(), "pod/db created\n");
  assert.deepEqual(api.listPods().map((p) => p.metadata.name), ["db"]);
});

test("apply never deletes a running pod for an invalid replacement: it is validated first", async (t) => {
  const { api, server, file } = await setup(t);
  const path = await file("web.yaml", WEB);
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], capture().ctx), 0);
  await file("web.yaml", WEB.replace("httpGet: {port: 8080}", "httpGet: {port: 8080}\n      periodSeconds: -1\n      failureThreshold: -2"));
  const { ctx, out, err } = capture();
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], ctx), 1);
  assert.equal(out(), "");
  assert.equal(
    err(),
    'The Pod "web" is invalid: \n' +
      "* spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0\n" +
      "* spec.containers[0].readinessProbe.failureThreshold: Invalid value: -2: must be greater than or equal to 0\n",
  );
  assert.deepEqual(api.calls.deletePod, []);
  assert.equal(api.calls.createPod.length, 1);
});

test("apply refuses bad manifests before sending anything (exit 2 via InvalidInputError)", async (t) => {
  const { api, server, file } = await setup(t);
  const good = await file("good.yaml", WEB);
  const bad = await file("bad.yaml", WEB.replace("image: busybox", "image: busybox\n    imag: typo"));
  const { ctx } = capture();
  await assert.rejects(runApplyCommand(["-f", good, "-f", bad, "--server", server.url], ctx), (err: unknown) => {
    assert.ok(err instanceof InvalidInputError);
    assert.equal(err.message, `error validating "${bad}"`);
    assert.match(err.details.join("\n"), /imag/);
    return true;
  });
  assert.deepEqual(api.calls.createPod, []);
});

test("apply: usage errors and a namespace that contradicts -n", async (t) => {
  const { server, file } = await setup(t);
  const { ctx } = capture();
  await assert.rejects(runApplyCommand([], ctx), new UsageError("must specify -f FILE"));
  await assert.rejects(runApplyCommand(["x.yaml"], ctx), new UsageError('unexpected argument "x.yaml": give manifests with -f FILE'));
  await assert.rejects(runApplyCommand(["-f", "/nonexistent/x.yaml"], ctx), new UsageError('the path "/nonexistent/x.yaml" does not exist'));
  const path = await file("db.yaml", DB);
  await assert.rejects(
    runApplyCommand(["-f", path, "-n", "prod", "--server", server.url], ctx),
    new UsageError(`the namespace from the provided object "data" does not match the namespace "prod". You must pass '--namespace=data' to perform this operation.`),
  );
  const empty = await file("empty.yaml", "---\n");
  await assert.rejects(runApplyCommand(["-f", empty, "--server", server.url], ctx), new InvalidInputError(`error validating "${empty}"`, [NO_OBJECTS_MESSAGE]));
});

test("sameDesiredState compares the defaulted spec, labels and annotations, not status or key order", () => {
  const base: Pod = { metadata: { name: "web", labels: { a: "1" } }, spec: { containers: [{ name: "app", image: "busybox", readinessProbe: { tcpSocket: { port: 1 } } }] } };
  const served: Pod = {
    metadata: { uid: "u", labels: { a: "1" }, name: "web", namespace: "default" },
    spec: {
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      containers: [{ image: "busybox", name: "app", readinessProbe: { tcpSocket: { port: 1 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, initialDelaySeconds: 0 } }],
    },
    status: { phase: "Running" },
  };
  assert.equal(sameDesiredState(served, base), true);
  assert.equal(sameDesiredState(served, { ...base, metadata: { ...base.metadata, labels: { a: "2" } } }), false);
  assert.equal(sameDesiredState(served, { ...base, metadata: { ...base.metadata, annotations: { x: "y" } } }), false);
  assert.equal(sameDesiredState(served, { ...base, spec: { ...base.spec, terminationGracePeriodSeconds: 5 } }), false);
});

test("apply prints the probe linter's findings as warnings and still creates the pod", async (t) => {
  const { api, server, file } = await setup(t);
  const path = await file("risky.yaml", WEB.replace("readinessProbe:", "livenessProbe:\n      tcpSocket: {port: 8080}\n      failureThreshold: 1\n    readinessProbe:"));
  const { ctx, out, err } = capture();
  assert.equal(await runApplyCommand(["-f", path, "--server", server.url], ctx), 0);
  assert.equal(out(), "pod/web created\n");
  assert.equal(err(), "Warning: pod/web: spec.containers[0].livenessProbe.failureThreshold: 1 restarts the container after a single failed probe; one slow answer (a GC pause, a busy disk) is enough\n");
  assert.equal(api.listPods().length, 1);
});
