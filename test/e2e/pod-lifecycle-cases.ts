// The pod lifecycle end to end (issue 12): per-container restart policies and restartPolicyRules
// (kubelet podutil.ContainerShouldRestart, getPhase), sidecars stopped when the pod completes
// (computePodActions KillPod), one grace period shared by regular containers and sidecars
// (kuberuntime_termination_order.go), and the final status of a deleted pod (SyncTerminatingPod).
// Titled `[<runtime>] Pod lifecycle: …` for every runtime factory.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Container, Pod } from "../../src/api/types.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import type { PodKit } from "./pod-kit.js";
import type { RuntimeFactory } from "./runtime-factory.js";

const WAIT_MS = 30_000;

/** lifecyclePod names a pod `<prefix>-<random>` with the given containers. */
function lifecyclePod(kit: PodKit, prefix: string, containers: Container[], spec: Partial<Pod["spec"]> = {}): Pod {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  return { metadata: { name, namespace: NAMESPACE }, spec: { ...(kit.hostNetwork ? { hostNetwork: true } : {}), containers, ...spec } };
}

/** IGNORE_SIGTERM runs until killed: SIGTERM is ignored by the shell and inherited by its children. */
const IGNORE_SIGTERM = "trap '' TERM; while true; do sleep 1; done";

/** registerPodLifecycleCases declares the lifecycle cases for one runtime (call inside a describe). */
export function registerPodLifecycleCases(factory: RuntimeFactory): void {
  const skip = factory.available();
  const options = (timeout: number) => ({ timeout, ...(skip !== undefined ? { skip } : {}) });

  test(`[${factory.name}] Pod lifecycle: restartPolicyRules restart exit 42 in a pod Never; a container Never fails a pod Always on exit 1 and the phase stays Failed`, options(90_000), async (t) => {
    const env = await E2eEnv.start(t, factory, { backoff: { initialMs: 200, maxMs: 400 } });
    const ruled: Container = { name: "ruled", ...env.kit.bash("sleep 0.3; exit 42"), restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] };
    const byRule = env.create(lifecyclePod(env.kit, "restart-rule", [ruled], { restartPolicy: "Never" })).metadata.name!;
    const never: Container = { name: "never", ...env.kit.bash("sleep 0.3; exit 1"), restartPolicy: "Never" };
    const failing = env.create(lifecyclePod(env.kit, "container-never", [never], { restartPolicy: "Always" })).metadata.name!;

    await env.waitFor(byRule, "a restart by the rule", WAIT_MS, (p) => ((containerStatusOf(p, "ruled")?.restartCount ?? 0) >= 2 ? true : undefined));
    assert.equal(env.get(byRule)?.status?.phase, "Running");
    await env.waitFor(failing, "phase Failed", WAIT_MS, (p) => (p?.status?.phase === "Failed" ? true : undefined));
    await sleep(2000);
    const after = env.get(failing)!;
    assert.equal(after.status?.phase, "Failed", "a terminal phase never changes");
    assert.equal(containerStatusOf(after, "never")?.restartCount, 0);
    assert.equal(containerStatusOf(after, "never")?.state?.terminated?.exitCode, 1);
    const phases = env.podLog.filter((e) => e.object.metadata.name === byRule).map((e) => e.object.status?.phase);
    assert.ok(!phases.includes("Failed") && !phases.includes("Succeeded"), `phases of ${byRule}: ${phases.join(",")}`);
  });

  test(`[${factory.name}] Pod lifecycle: RestartAllContainers (KEP-5532): an exit matching the rule restarts the whole pod in place, its init container first, with AllContainersRestarting True meanwhile`, options(90_000), async (t) => {
    const env = await E2eEnv.start(t, factory);
    const setup: Container = { name: "setup", ...env.kit.bash("exit 0") };
    const main: Container = { name: "main", ...env.kit.agnhost("pause") };
    const trigger: Container = { name: "trigger", ...env.kit.bash("sleep 2; exit 42"), restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }] };
    const name = env.create(lifecyclePod(env.kit, "restart-all", [main, trigger], { initContainers: [setup], terminationGracePeriodSeconds: 5 })).metadata.name!;
    const firstMain = await env.waitFor(name, "main to run", WAIT_MS, (p) => {
      const s = containerStatusOf(p, "main");
      return s?.state?.running ? s.containerID : undefined;
    });
    // The init container ran again, and the main container was replaced, not merely restarted by its own policy.
    await env.waitFor(name, "the pod restarted in place", WAIT_MS, (p) => {
      const init = p?.status?.initContainerStatuses?.find((c) => c.name === "setup");
      const m = containerStatusOf(p, "main");
      return (init?.restartCount ?? 0) >= 1 && m?.state?.running && m.containerID !== firstMain ? true : undefined;
    });
    const seen = env.podLog.filter((e) => e.object.metadata.name === name);
    const restarting = seen.find((e) => e.object.status?.conditions?.some((c) => c.type === "AllContainersRestarting" && c.status === "True"));
    assert.ok(restarting, "AllContainersRestarting True was stored");
    assert.ok(seen.some((e) => containerStatusOf(e.object, "main")?.state?.waiting?.reason === "RestartingAllContainers"), "the removed main container waited as RestartingAllContainers");
    assert.ok(seen.every((e) => e.object.status?.phase !== "Failed" && e.object.status?.phase !== "Succeeded"), "never terminal");
    const killing = env.agent.listEvents(NAMESPACE).filter((e) => e.involvedObject.name === name && e.reason === "Killing").map((e) => e.message);
    assert.ok(killing.includes("killing"), killing.join("; "));
  });

  test(`[${factory.name}] Pod lifecycle: when the regular container completes, the sidecar is stopped at once and the pod goes Running → Succeeded`, options(60_000), async (t) => {
    const env = await E2eEnv.start(t, factory);
    const sidecar: Container = { name: "sidecar", ...env.kit.agnhost("pause"), restartPolicy: "Always" };
    const main: Container = { name: "main", ...env.kit.bash("sleep 2; exit 0") };
    const name = env.create(lifecyclePod(env.kit, "sidecar-done", [main], { restartPolicy: "Never", initContainers: [sidecar], terminationGracePeriodSeconds: 10 })).metadata.name!;
    const mainExited = await env.waitFor(name, "main to exit", WAIT_MS, (p) => (containerStatusOf(p, "main")?.state?.terminated ? Date.now() : undefined), 100);
    await env.waitFor(name, "phase Succeeded", 15_000, (p) => (p?.status?.phase === "Succeeded" ? true : undefined), 100);
    t.diagnostic(`Succeeded ${Date.now() - mainExited} ms after main exited`);
    const pod = env.get(name)!;
    assert.ok(containerStatusOf(pod, "sidecar")?.state?.terminated, "the sidecar was stopped");
    assert.equal(containerStatusOf(pod, "sidecar")?.restartCount, 0, "and not restarted");
    const phases = env.podLog.filter((e) => e.object.metadata.name === name).map((e) => e.object.status?.phase);
    assert.ok(phases.indexOf("Running") < phases.indexOf("Succeeded"), phases.join(","));
  });

  test(`[${factory.name}] Pod lifecycle: deleting a pod whose sidecar and main container ignore SIGTERM takes one grace period plus the 2 s floor, not two`, options(60_000), async (t) => {
    const env = await E2eEnv.start(t, factory);
    const grace = 4;
    const sidecar: Container = { name: "sidecar", ...env.kit.bash(IGNORE_SIGTERM), restartPolicy: "Always" };
    const main: Container = { name: "main", ...env.kit.bash(IGNORE_SIGTERM) };
    const name = env.create(lifecyclePod(env.kit, "shared-grace", [main], { initContainers: [sidecar], terminationGracePeriodSeconds: grace })).metadata.name!;
    await env.waitFor(name, "main to run", WAIT_MS, (p) => (containerStatusOf(p, "main")?.state?.running ? true : undefined));
    const started = Date.now();
    await env.agent.deletePodAndWait(NAMESPACE, name);
    const took = Date.now() - started;
    t.diagnostic(`deletion took ${took} ms with terminationGracePeriodSeconds ${grace}`);
    assert.ok(took >= grace * 1000, `the main container had its grace period (${took} ms)`);
    assert.ok(took < (2 * grace - 0.5) * 1000, `one shared grace period (+2 s floor for the sidecar), not two: ${took} ms`);
  });

  test(`[${factory.name}] Pod lifecycle: a deleted pod's final status (terminated containers, terminal phase, Ready False) is published before DELETED`, options(60_000), async (t) => {
    const env = await E2eEnv.start(t, factory);
    const sidecar: Container = { name: "sidecar", ...env.kit.agnhost("pause"), restartPolicy: "Always" };
    const main: Container = { name: "main", ...env.kit.agnhost("pause") };
    const name = env.create(lifecyclePod(env.kit, "final-status", [main], { initContainers: [sidecar], terminationGracePeriodSeconds: 5 })).metadata.name!;
    await env.waitFor(name, "main to run", WAIT_MS, (p) => (containerStatusOf(p, "main")?.state?.running ? true : undefined));
    await env.agent.deletePodAndWait(NAMESPACE, name);
    const events = env.podLog.filter((e) => e.object.metadata.name === name);
    assert.equal(events.at(-1)?.type, "DELETED");
    const final = events.at(-2)!;
    assert.equal(final.type, "MODIFIED");
    const status = final.object.status!;
    const exits = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].map((c) => c.state?.terminated?.exitCode);
    t.diagnostic(`final phase ${status.phase}, exit codes ${exits.join(",")}`);
    assert.ok(exits.every((code) => code !== undefined), `every container terminated: ${JSON.stringify(status)}`);
    assert.ok(status.containerStatuses?.every((c) => c.ready === false && c.state?.terminated?.reason !== undefined));
    assert.equal(status.phase, status.containerStatuses!.every((c) => c.state?.terminated?.exitCode === 0) ? "Succeeded" : "Failed");
    assert.equal(status.conditions?.find((c) => c.type === "Ready")?.status, "False");
  });
}
