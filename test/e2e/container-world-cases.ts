// What a container sees and what it may do, end to end (issues 22.9, 23.2, 23.5): its
// securityContext applied to the container and to its exec probe (user, groups, capabilities,
// no_new_privs), runAsNonRoot refused with the kubelet's text, exec probes, postStart exec hooks
// and exec seeing the container's own mounts, and the termination message read from the path the
// spec names. On the process runtime these need root and the supervisor (supervisedProcessFactory).
import assert from "node:assert/strict";
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Container, Pod } from "../../src/api/types.js";
import type { ExecSession } from "../../src/runtime/runtime.js";
import { MemoryConfigObjects } from "../../src/volumes/config-objects.js";
import { containerStatusOf, E2eEnv, isPodRunningReady, NAMESPACE } from "./harness.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

/** readLog reads a container's whole log through the agent, as `logs` does. */
async function readLog(env: E2eEnv, name: string): Promise<string> {
  let text = "";
  for await (const line of env.agent.readLogs({ namespace: NAMESPACE, name, container: "app" })) text += line;
  return text;
}

/** shell runs `script` under the runtime's sh, from "/" (a directory every user may enter). */
function shell(env: E2eEnv, script: string): Pick<Container, "image" | "command" | "workingDir"> {
  return { image: env.kit.busybox(["sh"]).image ?? "", command: env.factory.name === "cri" ? ["sh", "-c", script] : ["/bin/sh", "-c", script], workingDir: "/" };
}

function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** collect reads an exec session to its end: stdout and the exit code. */
async function collect(session: ExecSession): Promise<{ stdout: string; code: number }> {
  let stdout = "";
  session.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  session.stderr.resume();
  const code = await session.exit;
  return { stdout, code };
}

/** registerContainerWorldCases declares the cases for one runtime (call inside a describe). */
export function registerContainerWorldCases(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] Logs: rotated by size while the container writes (the runtime reopens its log), \`logs\` spans the rotated files, --tail reads the end, a follow goes on past a rotation`, { timeout: 90_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory, { containerLogs: { maxSize: 2048, maxFiles: 3, maxWorkers: 1, monitorIntervalMs: 1000 } });
    const name = uniqueName("rotation");
    const lines = 400;
    const script = `i=0; while [ $i -lt ${lines} ]; do echo "line $i"; i=$((i+1)); [ $((i % 20)) = 0 ] && sleep 0.25; done; sleep 600`;
    env.create({ metadata: { name, namespace: NAMESPACE }, spec: { hostNetwork: env.kit.hostNetwork, containers: [{ name: "app", ...shell(env, script) }] } });
    await env.waitFor(name, "running", 30_000, (p) => containerStatusOf(p, "app")?.state?.running);
    const followed: string[] = [];
    const stop = new AbortController();
    const following = (async () => {
      for await (const line of env.agent.readLogs({ namespace: NAMESPACE, name, container: "app", follow: true, signal: stop.signal })) followed.push(line);
    })().catch(() => undefined);
    const numbers = (text: string[]): number[] => text.join("").split("\n").filter(Boolean).map((l) => Number(/^line (\d+)$/.exec(l)?.[1]));
    await env.waitFor(name, "every line followed", 60_000, () => (numbers(followed).at(-1) === lines - 1 ? true : undefined), 250);
    stop.abort();
    await following;
    assert.deepEqual(numbers(followed), Array.from({ length: lines }, (_, k) => k), "the follow saw every line once, across the rotations");
    const all = numbers([await readLog(env, name)]);
    assert.equal(all.at(-1), lines - 1);
    assert.ok(all.length < lines, "the oldest rotated files are gone (containerLogMaxFiles 3)");
    assert.deepEqual(all, Array.from({ length: all.length }, (_, k) => lines - all.length + k), "what is kept is contiguous, in order");
    let tail = "";
    for await (const line of env.agent.readLogs({ namespace: NAMESPACE, name, container: "app", tailLines: 3 })) tail += line;
    assert.equal(tail, `line ${lines - 3}\nline ${lines - 2}\nline ${lines - 1}\n`);
  });

  runtimeTest(factory, `[${factory.name}] subPath: a symlink an init container planted in a shared emptyDir never makes the agent create anything outside the volume; a configMap key's subPath (a symlink inside the volume) still mounts`, { timeout: 60_000 }, async (t) => {
    const config = new MemoryConfigObjects();
    config.putConfigMap({ metadata: { name: "app-config", namespace: NAMESPACE }, data: { "app.conf": "from the configMap" } });
    const env = await E2eEnv.start(t, factory, { configObjects: config });
    const name = uniqueName("subpath");
    const outside = join(env.dir, "outside");
    await mkdir(outside);
    const at = (n: string): string => (env.factory.name === "cri" ? `/${n}` : join(env.dir, "mnt", n));
    const pod: Pod = {
      metadata: { name, namespace: NAMESPACE },
      spec: {
        hostNetwork: env.kit.hostNetwork,
        volumes: [{ name: "shared", emptyDir: {} }, { name: "cfg", configMap: { name: "app-config" } }],
        initContainers: [{ name: "plant", ...shell(env, `ln -s ${outside} ${at("shared")}/link`), volumeMounts: [{ name: "shared", mountPath: at("shared") }] }],
        containers: [
          { name: "app", ...shell(env, "sleep 600"), volumeMounts: [{ name: "shared", mountPath: at("escape"), subPath: "link/made" }] },
          { name: "good", ...shell(env, `cat ${at("conf")}; echo; sleep 600`), volumeMounts: [{ name: "cfg", mountPath: at("conf"), subPath: "app.conf" }] },
        ],
      },
    };
    env.create(pod);
    const waiting = await env.waitFor(name, "app waiting", 30_000, (p) => containerStatusOf(p, "app")?.state?.waiting?.reason === "CreateContainerConfigError" ? containerStatusOf(p, "app")?.state?.waiting : undefined);
    assert.equal(waiting.message, 'failed to create subPath directory for volumeMount "shared" of container "app"');
    await assert.rejects(stat(join(outside, "made")), "nothing was created through the planted symlink");
    await env.waitFor(name, "good running", 30_000, (p) => containerStatusOf(p, "good")?.state?.running);
    let log = "";
    for (let i = 0; i < 100 && !log.includes("\n"); i++) {
      log = "";
      for await (const line of env.agent.readLogs({ namespace: NAMESPACE, name, container: "good" })) log += line;
      if (!log.includes("\n")) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(log, "from the configMap\n");
  });

  runtimeTest(factory, `[${factory.name}] Security context: runAsUser (container over pod), runAsGroup, supplementalGroups, capabilities and allowPrivilegeEscalation apply to the container and to its exec probe`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const name = uniqueName("security");
    const report = `echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"; grep -E '^(CapBnd|NoNewPrivs):' /proc/self/status; while true; do sleep 1; done`;
    const probe = `test "$(id -u):$(id -g)" = 65534:3000 && grep -q '^NoNewPrivs:.1' /proc/self/status && grep -q '^CapBnd:.0000000000000400' /proc/self/status`;
    const pod: Pod = {
      metadata: { name, namespace: NAMESPACE },
      spec: {
        hostNetwork: env.kit.hostNetwork,
        securityContext: { runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [4000], runAsNonRoot: true },
        containers: [
          {
            name: "app",
            ...shell(env, report),
            securityContext: { runAsUser: 65534, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] }, allowPrivilegeEscalation: false },
            readinessProbe: { exec: { command: ["sh", "-c", probe] }, periodSeconds: 1, failureThreshold: 1 },
          },
        ],
      },
    };
    env.create(pod);
    await env.waitFor(name, "Ready (the exec probe runs as the container's user)", 30_000, (p) => (p && isPodRunningReady(p) ? true : undefined));
    const log = await readLog(env, name);
    assert.match(log, /^uid=65534 gid=3000 groups=.*\b4000\b/m, log);
    assert.match(log, /^CapBnd:\s+0000000000000400$/m, log);
    assert.match(log, /^NoNewPrivs:\s+1$/m, log);
  });

  runtimeTest(factory, `[${factory.name}] Security context: runAsNonRoot with an image that runs as root waits in CreateContainerConfigError with the kubelet's text`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const name = uniqueName("nonroot");
    const admitted = env.create({ metadata: { name, namespace: NAMESPACE }, spec: { hostNetwork: env.kit.hostNetwork, securityContext: { runAsNonRoot: true }, containers: [{ name: "app", ...shell(env, "sleep 600") }] } });
    const text = `container has runAsNonRoot and image will run as root (pod: "${name}_${NAMESPACE}(${admitted.metadata.uid ?? ""})", container: app)`;
    const waiting = await env.waitFor(name, "CreateContainerConfigError", 30_000, (p) => containerStatusOf(p, "app")?.state?.waiting?.reason === "CreateContainerConfigError" ? containerStatusOf(p, "app")?.state?.waiting : undefined);
    assert.equal(waiting.message, text);
    const events = env.events(name).map((e) => `${e.type} ${e.reason} ${e.message}`);
    assert.ok(events.includes(`Warning Failed Error: ${text}`), events.join("\n"));
  });

  runtimeTest(factory, `[${factory.name}] Exec in the container's world: a readiness exec probe, a postStart exec hook and exec see the configMap mounted at its path`, { timeout: 60_000 }, async (t) => {
    const config = new MemoryConfigObjects();
    config.putConfigMap({ metadata: { name: "app-config", namespace: NAMESPACE }, data: { "app.conf": "port=8080" } });
    const env = await E2eEnv.start(t, factory, { configObjects: config });
    const name = uniqueName("exec-world");
    // The process runtime has no image root: the mount path is one the host does not have.
    const at = env.factory.name === "cri" ? "/etc/app" : join(env.dir, "etc", "app");
    const pod: Pod = {
      metadata: { name, namespace: NAMESPACE },
      spec: {
        hostNetwork: env.kit.hostNetwork,
        volumes: [{ name: "cfg", configMap: { name: "app-config" } }, { name: "scratch", emptyDir: {} }],
        containers: [
          {
            name: "app",
            ...shell(env, "while true; do sleep 1; done"),
            volumeMounts: [{ name: "cfg", mountPath: at }, { name: "scratch", mountPath: `${at}-scratch` }],
            readinessProbe: { exec: { command: ["test", "-f", `${at}/app.conf`] }, periodSeconds: 1, failureThreshold: 1 },
            lifecycle: { postStart: { exec: { command: ["sh", "-c", `cp ${at}/app.conf ${at}-scratch/seen-by-hook`] } } },
          },
        ],
      },
    };
    env.create(pod);
    const ready = await env.waitFor(name, "Ready", 30_000, (p) => (p && isPodRunningReady(p) ? p : undefined));
    const id = (containerStatusOf(ready, "app")?.containerID ?? "").replace(/^[a-z]+:\/\//, "");
    const seen = await collect(await env.runtime.execStream(id, ["sh", "-c", `cat ${at}/app.conf; echo; cat ${at}-scratch/seen-by-hook`], { stdin: false, tty: false }));
    assert.deepEqual(seen, { stdout: "port=8080\nport=8080", code: 0 });
  });

  runtimeTest(factory, `[${factory.name}] Termination message: what the container writes at the default terminationMessagePath becomes state.terminated.message`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const name = uniqueName("message");
    env.create({ metadata: { name, namespace: NAMESPACE }, spec: { hostNetwork: env.kit.hostNetwork, restartPolicy: "Never", containers: [{ name: "app", ...shell(env, "printf 'done: 42 items' > /dev/termination-log; exit 3") }] } });
    const terminated = await env.waitFor(name, "terminated", 30_000, (p) => containerStatusOf(p, "app")?.state?.terminated);
    assert.equal(terminated.exitCode, 3);
    assert.equal(terminated.message, "done: 42 items");
    if (env.factory.name === "process") assert.equal(await readFile("/dev/termination-log", "utf8").catch(() => ""), "", "the host's file is only the mount point");
  });
}

/**
 * registerUnboundMessageCase declares the case of a process runtime that cannot bind files into
 * containers (no supervisor, or not root): the message comes from $PROBELET_TERMINATION_MESSAGE_PATH
 * and a spec naming another path than the default is warned about once, however often it restarts.
 */
export function registerUnboundMessageCase(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] Termination message without mounts: read from $PROBELET_TERMINATION_MESSAGE_PATH, one warning event for a path the runtime cannot bind`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory, { backoff: { initialMs: 200, maxMs: 200 } });
    assert.notEqual(await env.runtime.mountsUnsupportedReason(), undefined, "this runtime cannot mount");
    const name = uniqueName("unbound");
    const script = 'printf "attempt $(cat count 2>/dev/null)" > "$PROBELET_TERMINATION_MESSAGE_PATH"; echo x >> count; exit 1';
    env.create({ metadata: { name, namespace: NAMESPACE }, spec: { restartPolicy: "OnFailure", containers: [{ name: "app", ...env.kit.busybox(["/bin/sh", "-c", script]), terminationMessagePath: "/var/run/app/termination" }] } });
    const last = await env.waitFor(name, "two restarts", 30_000, (p) => ((containerStatusOf(p, "app")?.restartCount ?? 0) >= 2 ? containerStatusOf(p, "app")?.lastState?.terminated : undefined));
    assert.match(last.message ?? "", /^attempt x/);
    const warnings = env.events(name).filter((e) => e.reason === "TerminationMessagePathUnbound");
    assert.equal(warnings.length, 1, env.describe(name));
    assert.equal(warnings[0]?.count, 1);
    assert.match(warnings[0]?.message ?? "", /^terminationMessagePath "\/var\/run\/app\/termination" cannot be bound into the container on this runtime .* \$PROBELET_TERMINATION_MESSAGE_PATH$/);
  });
}
