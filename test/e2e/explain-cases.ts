// `probelet explain` and the probe history in `describe`, end to end: an agent runs a pod whose
// liveness probe fails until the container is restarted and whose readiness probe never passes;
// the CLI, talking to the agent's status API, must say which probe failed, how many times, with
// what output, and show the probes in describe. Titled `[<runtime>] …` for every runtime factory.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import type { Container } from "../../src/api/types.js";
import { runDescribeCommand } from "../../src/cli/describe-command.js";
import { runExplainCommand } from "../../src/cli/explain-command.js";
import { defaultSpawnerPath } from "../../src/probe/host-runner.js";
import { captureContext, serveAgentApi } from "../cli-harness.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import { podWith } from "./pod-specs.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

const RESTART_WAIT_MS = 30_000;

/** registerExplainCases adds the explain/describe case for one runtime. */
export function registerExplainCases(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] explain says which probe restarted a container and why it is not Ready; describe shows the probe history`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const container: Container = {
      name: "app",
      ...env.kit.agnhost("pause"),
      livenessProbe: { exec: { command: ["cat", env.kit.tmp("healthy")] }, periodSeconds: 1, failureThreshold: 2 },
      readinessProbe: { exec: { command: ["cat", env.kit.tmp("ready")] }, periodSeconds: 1 },
    };
    const name = env.create(podWith(env.kit, "container", "explain", container)).metadata.name ?? "";
    await env.waitFor(name, "a restart", RESTART_WAIT_MS, (p) => ((containerStatusOf(p, "app")?.restartCount ?? 0) >= 1 ? true : undefined));
    const server = await serveAgentApi(t, env.agent);

    const explain = captureContext();
    assert.equal(await runExplainCommand(["pod", name, "-n", NAMESPACE, "--server", server.url], explain.ctx), 0, explain.err());
    const text = explain.out();
    assert.match(text, new RegExp(`^pod/${name} is not Ready \\(Running\\)\\.\\n`), text);
    assert.match(text, /\n {2}- container app (is running but not ready: the readiness probe fails \((failure \d of 3|\d+ times in a row), last|is in CrashLoopBackOff)/, text);
    assert.match(text, /\nRestarts:\n {2}- container app restarted \d+ times?; the last instance ended \d+s ago: its liveness probe failed 2 times in a row \(failureThreshold 2, period 1s\), last with "cat: [^"]*No such file or directory", so it was killed \(exit code \d+, \w+\) and started again\./, text);

    const describe = captureContext();
    assert.equal(await runDescribeCommand(["pod", name, "-n", NAMESPACE, "--server", server.url], describe.ctx), 0, describe.err());
    assert.match(describe.out(), /\nProbe History.*:\n {2}Container +Probe +Result +Latency +Age +Output\n/, describe.out());
    // The two liveness failures that led to the kill are one run.
    assert.match(describe.out(), /\n {2}app +liveness +failure ×2 \(2 of 2\) +\S+ +\d+s +cat: /, describe.out());
    // The readiness run restarts with the new container, so it may be one probe ("failure 1 of 3")
    // or several, below the threshold or past it ("failure ×2 (2 of 3)", "failure ×4").
    assert.match(describe.out(), /\n {2}app +readiness +failure( \d of 3| ×\d+( \(\d of 3\))?) +\S+ +\d+s +cat: /, describe.out());

    // The exec probes' command CPU: measured by the process runtime's spawner helper (wait4), in the
    // history and in /metrics; CRI's ExecSync does not report it, so neither shows it there.
    const measured = factory.name === "process" && existsSync(defaultSpawnerPath());
    const history = env.agent.probeHistory(NAMESPACE, name);
    assert.ok(history.length > 0);
    for (const entry of history) assert.equal(entry.cpuMs !== undefined, measured, JSON.stringify(entry));
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const count = Number(/^probelet_exec_probe_cpu_seconds_count\{probe_type="Liveness"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    assert.equal(count > 0, measured, metrics.split("\n").filter((l) => l.startsWith("probelet_exec")).join("\n"));
  });
}
