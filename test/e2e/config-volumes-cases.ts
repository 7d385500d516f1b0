// ConfigMaps, Secrets and volumes end to end (docs/volumes.md): env from a ConfigMap and a
// Secret, envFrom with a prefix, configMap (items, defaultMode), secret, downwardAPI, projected,
// emptyDir shared by two containers and hostPath volumes seen from inside real containers; a
// ConfigMap update reaching the mounted file through the atomic writer; a missing ConfigMap
// holding the container in CreateContainerConfigError until it appears. The containers report
// through a hostPath volume. On the process runtime the mount cases need root and the
// supervisor (a private mount namespace per container); without them the pod must wait.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod, Volume } from "../../src/api/types.js";
import { ProcessRuntime } from "../../src/runtime/process/process-runtime.js";
import { defaultSupervisorPath } from "../../src/runtime/process/supervised-process.js";
import { MemoryConfigObjects } from "../../src/volumes/config-objects.js";
import { E2eEnv, NAMESPACE } from "./harness.js";
import { processRuntimeFactory, runtimeTest, type RuntimeFactory } from "./runtime-factory.js";
import { accessSync, constants as fsConstants } from "node:fs";

/**
 * supervisedProcessFactory is the process runtime with a state directory, so containers run
 * under the supervisor, which makes their mounts; it needs root.
 */
export const supervisedProcessFactory: RuntimeFactory = {
  name: "process",
  available() {
    const base = processRuntimeFactory.available();
    if (base !== undefined) return base;
    if (process.getuid?.() !== 0) return "volume mounts on the process runtime need root (a private mount namespace per container)";
    try {
      accessSync(defaultSupervisorPath(), fsConstants.X_OK);
    } catch {
      return `the supervisor helper ${defaultSupervisorPath()} is missing (npm run build with a C compiler)`;
    }
    return undefined;
  },
  async create() {
    const stateDir = await mkdtemp(join(tmpdir(), "probelet-e2e-runtime-"));
    const runtime = new ProcessRuntime({ stateDir });
    const close = runtime.close.bind(runtime);
    runtime.close = async () => {
      await close();
      await rm(stateDir, { recursive: true, force: true });
    };
    return runtime;
  },
};

function objects(): MemoryConfigObjects {
  const o = new MemoryConfigObjects();
  o.putConfigMap({ metadata: { name: "app-config", namespace: NAMESPACE }, data: { mode: "fast", "app.conf": "v1", level: "3" } });
  o.putSecret({ metadata: { name: "app-secret", namespace: NAMESPACE }, data: { password: Buffer.from("s3cret").toString("base64") } });
  return o;
}

/** mountAt places mount points: the container's own filesystem on CRI, under the case's dir on the process runtime (no image root). */
function mountAt(env: E2eEnv, name: string): string {
  return env.factory.name === "cri" ? `/${name}` : join(env.dir, "mnt", name);
}

function sh(env: E2eEnv, script: string): Pick<Container, "image" | "command" | "workingDir"> {
  const run = env.kit.busybox(["sh", "-c", script]);
  return { ...run, command: env.factory.name === "cri" ? ["sh", "-c", script] : ["/bin/sh", "-c", script] };
}

async function waitForFile(env: E2eEnv, podName: string, path: string, what: string, accept: (text: string) => boolean = () => true): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (let i = 0; i < 300 && Date.now() < deadline; i++) {
    const text = await readFile(path, "utf8").catch(() => undefined);
    if (text !== undefined && accept(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}\n${env.describe(podName)}`);
}

/** registerConfigVolumeCases adds the cases for one runtime (`mounts`: the runtime can mount volumes). */
export function registerConfigVolumeCases(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] config volumes: env, envFrom, configMap, secret, downwardAPI, projected, emptyDir and hostPath volumes seen inside the containers; a ConfigMap update reaches the file`, { timeout: 90_000 }, async (t) => {
    const config = objects();
    const env = await E2eEnv.start(t, factory, { configObjects: config });
    const out = join(env.dir, "out");
    const at = (n: string) => mountAt(env, n);
    const volumes: Volume[] = [
      { name: "out", hostPath: { path: out, type: "DirectoryOrCreate" } },
      { name: "cfg", configMap: { name: "app-config", items: [{ key: "app.conf", path: "conf/app.conf" }, { key: "level", path: "level", mode: 0o600 }], defaultMode: 0o640 } },
      { name: "sec", secret: { secretName: "app-secret", defaultMode: 0o400 } },
      { name: "down", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
      { name: "proj", projected: { sources: [{ configMap: { name: "app-config", items: [{ key: "mode", path: "mode" }] } }, { secret: { name: "app-secret" } }, { downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } }] } },
      { name: "shared", emptyDir: {} },
    ];
    const report = [
      `echo "MODE=$MODE PW=$PW CFG_level=$CFG_level"`,
      `cat ${at("cfg")}/conf/app.conf; echo`,
      `stat -L -c %a ${at("cfg")}/conf/app.conf ${at("cfg")}/level ${at("sec")}/password`,
      `cat ${at("sec")}/password; echo`,
      `cat ${at("down")}/labels; echo`,
      `cat ${at("proj")}/mode ${at("proj")}/password ${at("proj")}/name; echo`,
      `for i in $(seq 1 100); do [ -f ${at("shared")}/msg ] && break; sleep 1; done; cat ${at("shared")}/msg`,
      `touch ${at("cfg")}/x 2>/dev/null && echo cfg-writable || echo cfg-read-only`,
    ].join("; ");
    const reader: Container = {
      name: "reader",
      ...sh(env, `(${report}) > ${at("out")}/report.tmp 2>&1; mv ${at("out")}/report.tmp ${at("out")}/report; while true; do cat ${at("cfg")}/conf/app.conf > ${at("out")}/live; sleep 1; done`),
      env: [
        { name: "MODE", valueFrom: { configMapKeyRef: { name: "app-config", key: "mode" } } },
        { name: "PW", valueFrom: { secretKeyRef: { name: "app-secret", key: "password" } } },
      ],
      envFrom: [{ configMapRef: { name: "app-config" }, prefix: "CFG_" }],
      volumeMounts: [
        { name: "out", mountPath: at("out") },
        { name: "cfg", mountPath: at("cfg") },
        { name: "sec", mountPath: at("sec") },
        { name: "down", mountPath: at("down") },
        { name: "proj", mountPath: at("proj") },
        { name: "shared", mountPath: at("shared") },
      ],
    };
    const writer: Container = { name: "writer", ...sh(env, `echo from-writer > ${at("shared")}/msg; while true; do sleep 1; done`), volumeMounts: [{ name: "shared", mountPath: at("shared") }] };
    const pod: Pod = { metadata: { name: `config-volumes-${Date.now()}`, namespace: NAMESPACE, labels: { app: "cv", tier: "e2e" } }, spec: { ...(env.kit.hostNetwork ? { hostNetwork: true } : {}), volumes, containers: [reader, writer] } };
    const name = env.create(pod).metadata.name ?? "";
    const text = await waitForFile(env, name, join(out, "report"), "the reader's report");
    assert.equal(
      text,
      [
        "MODE=fast PW=s3cret CFG_level=3",
        "v1",
        "640",
        "600",
        "400",
        "s3cret",
        'app="cv"\ntier="e2e"',
        `fasts3cret${name}`,
        "from-writer",
        "cfg-read-only",
        "",
      ].join("\n"),
      env.describe(name),
    );
    await waitForFile(env, name, join(out, "live"), "the first live read", (s) => s === "v1");
    config.putConfigMap({ metadata: { name: "app-config", namespace: NAMESPACE }, data: { mode: "fast", "app.conf": "v2", level: "3" } });
    await waitForFile(env, name, join(out, "live"), "the updated ConfigMap in the mounted file", (s) => s === "v2");
  });

  runtimeTest(factory, `[${factory.name}] config volumes: a missing ConfigMap is CreateContainerConfigError (configmap "x" not found) until it appears, then the container runs with it`, { timeout: 60_000 }, async (t) => {
    const config = new MemoryConfigObjects();
    const env = await E2eEnv.start(t, factory, { configObjects: config });
    const container: Container = { name: "app", ...sh(env, "echo ready; while true; do sleep 1; done"), env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "late-config", key: "mode" } } }] };
    const pod: Pod = { metadata: { name: `late-config-${Date.now()}`, namespace: NAMESPACE }, spec: { ...(env.kit.hostNetwork ? { hostNetwork: true } : {}), containers: [container] } };
    const name = env.create(pod).metadata.name ?? "";
    const waiting = await env.waitFor(name, "CreateContainerConfigError", 15_000, (p) => {
      const w = p?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "CreateContainerConfigError" ? w : undefined;
    });
    assert.equal(waiting.message, 'configmap "late-config" not found');
    config.putConfigMap({ metadata: { name: "late-config", namespace: NAMESPACE }, data: { mode: "ok" } });
    await env.waitFor(name, "running", 20_000, (p) => (p?.status?.containerStatuses?.[0]?.state?.running ? true : undefined));
  });
}

/** registerNoMountCase asserts that a process runtime that cannot mount keeps the pod waiting, with the reason. */
export function registerNoMountCase(): void {
  runtimeTest(processRuntimeFactory, "[process] config volumes: without mount support a pod with volume mounts waits in CreateContainerConfigError naming the reason, never runs", { timeout: 30_000 }, async (t) => {
    const env = await E2eEnv.start(t, processRuntimeFactory);
    const container: Container = { name: "app", ...env.kit.busybox(["/bin/sh", "-c", "while true; do sleep 1; done"]), volumeMounts: [{ name: "scratch", mountPath: join(env.dir, "mnt", "scratch") }] };
    const pod: Pod = { metadata: { name: `no-mounts-${Date.now()}`, namespace: NAMESPACE }, spec: { volumes: [{ name: "scratch", emptyDir: {} }], containers: [container] } };
    const name = env.create(pod).metadata.name ?? "";
    const waiting = await env.waitFor(name, "CreateContainerConfigError", 15_000, (p) => {
      const w = p?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "CreateContainerConfigError" ? w : undefined;
    });
    assert.match(waiting.message ?? "", /^volume mounts on the process runtime need (root|the supervisor helper)/);
    assert.ok(env.events(name).some((e) => e.type === "Warning" && e.reason === "Failed" && e.message === `Error: ${waiting.message}`), env.describe(name));
    assert.equal(env.get(name)?.status?.containerStatuses?.[0]?.containerID, undefined, "no container was created");
  });
}
