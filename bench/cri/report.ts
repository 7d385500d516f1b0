// Text rendering of the CRI benchmark results: the tables run.ts prints (Markdown, so they can
// be pasted into docs/performance.md as they are).
import type { ExecCostResult } from "./exec-cost.js";
import type { PodStartResult, Quantiles } from "./pod-start.js";

/** EXEC_OVERHEAD_TARGET_MS is the budget: probelet's CPU per exec probe above a raw CRI client. */
export const EXEC_OVERHEAD_TARGET_MS = 2;

const f = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** formatExecCost renders benchmark 1: medians by arm, the overhead against the target, the agent's other calls. */
export function formatExecCost(r: ExecCostResult): string {
  const o = r.options;
  const lines = [
    `### Exec-probe cost: ${o.containers} containers × \`${o.command.join(" ")}\` every ${o.periodSeconds} s, ${o.durationSeconds} s windows, ${o.pairs} rounds (medians)`,
    "",
    "| arm | execs/s | client CPU/exec | containerd/exec | shims+children/exec | pod cgroups/exec | machine busy/exec | ExecSync p50 | p99 |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const arm of o.arms) {
    const m = r.medians[arm];
    if (!m) continue;
    lines.push(
      `| ${arm} | ${f(m.rate, 1)} | ${f(m.clientCpuPerExecMs)} ms | ${f(m.containerdPerExecMs)} ms | ${f(m.shimsPerExecMs)} ms | ${f(m.podsCgroupPerExecMs)} ms | ${f(m.machinePerExecMs)} ms | ${f(m.latencyP50Ms, 1)} ms | ${f(m.latencyP99Ms, 1)} ms |`,
    );
  }
  lines.push("");
  for (const [arm, ms] of Object.entries(r.overheadMs)) {
    const verdict = ms <= EXEC_OVERHEAD_TARGET_MS ? "meets" : "MISSES";
    lines.push(`- probelet overhead per exec probe (${arm} − raw, median of per-round differences): **${f(ms)} ms** — ${verdict} the ≤ ${EXEC_OVERHEAD_TARGET_MS} ms target`);
  }
  for (const [arm, calls] of Object.entries(r.otherCallsPerSecond)) {
    const list = (rpc: boolean): string => {
      const entries = Object.entries(calls)
        .filter(([k]) => k.startsWith("rpc:") === rpc)
        .sort((a, b) => b[1] - a[1]);
      return entries.length > 0 ? entries.map(([k, v]) => `${k.replace(/^rpc:/, "")} ${f(v, 1)}`).join(", ") : "none";
    };
    lines.push(`- ${arm}, per second besides the exec probes: Runtime calls ${list(false)}; CRI RPCs ${list(true)}`);
  }
  lines.push("", "Per round (client CPU per exec, ms):", "");
  lines.push(`| round | ${o.arms.join(" | ")} |`, `|---|${o.arms.map(() => "---").join("|")}|`);
  for (let round = 0; round < o.pairs; round++) {
    const cells = o.arms.map((arm) => f(r.runs.find((x) => x.arm === arm && x.round === round)?.clientCpuPerExecMs ?? Number.NaN));
    lines.push(`| ${round + 1} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

const q = (x: Quantiles): string => `${f(x.p50, 0)} / ${f(x.p99, 0)} ms`;

/** formatPodStart renders benchmark 2: p50/p99 of each step and the agent/raw ratios. */
export function formatPodStart(r: PodStartResult): string {
  const s = r.summary;
  return [
    `### Pod start latency: ${r.options.pods} pods, sequential, agent and raw alternated (p50 / p99)`,
    "",
    "| measure | agent | raw CRI | ratio p50 | ratio p99 |",
    "|---|---|---|---|---|",
    `| admit → container running (raw: RunPodSandbox+CreateContainer+StartContainer) | ${q(s.agentRunning)} | ${q(s.rawRunning)} | ${f(s.runningRatio.p50)} | ${f(s.runningRatio.p99)} |`,
    `| admit → Ready (raw: + one ExecSync of the probe) | ${q(s.agentReady)} | ${q(s.rawReady)} | ${f(s.readyRatio.p50)} | ${f(s.readyRatio.p99)} |`,
    `| agent: admit → first RunPodSandbox call | ${q(s.agentSandboxCallStart)} | | | |`,
    `| agent: admit → StartContainer returned | ${q(s.agentStartContainerDone)} | | | |`,
  ].join("\n");
}
