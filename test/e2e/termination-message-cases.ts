// Node e2e "Container Runtime blackbox test on terminated container" (upstream
// test/e2e/common/node/runtime.go, matchTerminationMessage): a pod with restartPolicy Never runs
// one busybox shell command, reaches the expected phase, and its terminated state carries the
// message from the file at terminationMessagePath or, with FallbackToLogsOnError after a
// failure, from the end of its log. The agent binds a host file at the path, as the kubelet does,
// on the CRI runtime and on the process runtime as root with the supervisor (in the container's
// mount namespace, with runAsUser applied); a process runtime that cannot bind it has the command
// write to the host file named by $PROBELET_TERMINATION_MESSAGE_PATH instead, and runs it as the
// agent's user. Beyond upstream: the message of a restarted container moves to
// lastState.terminated.message. Titled `[<runtime>] Container Runtime …` for every runtime factory.
import assert from "node:assert/strict";
import type { Container, Pod, PodPhase } from "../../src/api/types.js";
import { TERMINATION_MESSAGE_ENV } from "../../src/kuberuntime/container-start.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import type { PodKit } from "./pod-kit.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

const WAIT_MS = 30_000;
const CONTAINER = "termination-message-container";

/** nonRootUser is upstream's non-root user for the non-default path case. */
const NON_ROOT_USER = 10000;

/** TerminationCase is one upstream `It` of "on terminated container". */
interface TerminationCase {
  name: string;
  /** The shell script, with `$PATH_OF(<path>)` replaced by where the container writes <path>. */
  script: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: "File" | "FallbackToLogsOnError";
  runAsUser?: number;
  phase: PodPhase;
  message: string;
}

const CASES: readonly TerminationCase[] = [
  {
    name: "should report termination message if TerminationMessagePath is set",
    script: "/bin/echo -n DONE > $PATH_OF(/dev/termination-log)",
    terminationMessagePath: "/dev/termination-log",
    runAsUser: 0,
    phase: "Succeeded",
    message: "DONE",
  },
  {
    name: "should report termination message if TerminationMessagePath is set as non-root user and at a non-default path",
    script: "/bin/echo -n DONE > $PATH_OF(/dev/termination-custom-log)",
    terminationMessagePath: "/dev/termination-custom-log",
    runAsUser: NON_ROOT_USER,
    phase: "Succeeded",
    message: "DONE",
  },
  {
    name: "should report termination message from log output if TerminationMessagePolicy FallbackToLogsOnError is set",
    script: "/bin/echo -n DONE; /bin/false",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "FallbackToLogsOnError",
    phase: "Failed",
    message: "DONE",
  },
  {
    name: "should report termination message as empty when pod succeeds and TerminationMessagePolicy FallbackToLogsOnError is set",
    script: "/bin/echo -n DONE; /bin/true",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "FallbackToLogsOnError",
    phase: "Succeeded",
    message: "",
  },
  {
    name: "should report termination message from file when pod succeeds and TerminationMessagePolicy FallbackToLogsOnError is set",
    script: "/bin/echo -n OK > $PATH_OF(/dev/termination-log); /bin/echo DONE; /bin/true",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "FallbackToLogsOnError",
    phase: "Succeeded",
    message: "OK",
  },
];

/** scriptFor resolves `$PATH_OF(<path>)`: the path itself where the runtime binds the file, else the host file's variable. */
function scriptFor(binds: boolean, script: string): string {
  return script.replace(/\$PATH_OF\(([^)]+)\)/g, (_, path: string) => (binds ? path : `"$${TERMINATION_MESSAGE_ENV}"`));
}

/** terminationPod is upstream's ConformanceContainer: one container, restartPolicy Never unless given. */
function terminationPod(kit: PodKit, container: Container, restartPolicy: Pod["spec"]["restartPolicy"] = "Never"): Pod {
  const name = `termination-message-${Math.random().toString(36).slice(2, 10)}`;
  return { metadata: { name, namespace: NAMESPACE }, spec: { ...(kit.hostNetwork ? { hostNetwork: true } : {}), restartPolicy, containers: [container] } };
}

/** registerTerminationMessageCases declares the termination message cases for one runtime (call inside a describe). */
export function registerTerminationMessageCases(factory: RuntimeFactory): void {
  for (const c of CASES) {
    runtimeTest(factory, `[${factory.name}] Container Runtime blackbox test on terminated container ${c.name} [NodeConformance]`, { timeout: 60_000 }, async (t) => {
      const env = await E2eEnv.start(t, factory);
      const binds = (await env.runtime.mountsUnsupportedReason()) === undefined;
      const asUser = c.runAsUser !== undefined && (await env.runtime.securityUnsupportedReason({ runAsUser: c.runAsUser })) === undefined;
      const container: Container = {
        name: CONTAINER,
        ...env.kit.busybox(["/bin/sh", "-c", scriptFor(binds, c.script)]),
        ...(c.terminationMessagePath ? { terminationMessagePath: c.terminationMessagePath } : {}),
        ...(c.terminationMessagePolicy ? { terminationMessagePolicy: c.terminationMessagePolicy } : {}),
        ...(asUser ? { securityContext: { runAsUser: c.runAsUser } } : {}),
        // Another user may not enter the case's private scratch directory; "/" it may.
        ...(asUser && env.kit.kind !== "cri" ? { workingDir: "/" } : {}),
      };
      if (c.runAsUser !== undefined && !asUser) t.diagnostic(`runAsUser ${c.runAsUser} not set: this process runtime runs every container as the agent's user`);
      const name = env.create(terminationPod(env.kit, container)).metadata.name!;
      await env.waitFor(name, `phase ${c.phase}`, WAIT_MS, (p) => (p?.status?.phase === c.phase ? true : undefined));
      const terminated = containerStatusOf(env.get(name), CONTAINER)?.state?.terminated;
      assert.ok(terminated, `the container is terminated\n${env.describe(name)}`);
      assert.equal(terminated.message ?? "", c.message);
    });
  }

  runtimeTest(factory, `[${factory.name}] Container Runtime: a restarted container's termination message moves to lastState.terminated.message`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory, { backoff: { initialMs: 5_000, maxMs: 5_000 } });
    const binds = (await env.runtime.mountsUnsupportedReason()) === undefined;
    const script = `/bin/echo -n "bye from $HOSTNAME" > ${scriptFor(binds, "$PATH_OF(/dev/termination-log)")}; exit 3`;
    const container: Container = { name: CONTAINER, ...env.kit.busybox(["/bin/sh", "-c", script]), terminationMessagePath: "/dev/termination-log" };
    const name = env.create(terminationPod(env.kit, container, "Always")).metadata.name!;
    const status = await env.waitFor(name, "the first instance in lastState", WAIT_MS, (p) => (containerStatusOf(p, CONTAINER)?.lastState?.terminated ? containerStatusOf(p, CONTAINER) : undefined), 100);
    assert.equal(status?.lastState?.terminated?.exitCode, 3);
    assert.match(status?.lastState?.terminated?.message ?? "", /^bye from \S+$/);
  });
}
