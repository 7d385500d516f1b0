// @internal For scripts/e2e-conformance.sh: `node dist/test/conformance/report-main.js DIR
// [BASELINE_DIR]` prints the summary of DIR/report.json (per group and in all) and, with a
// baseline (the kubelet's run), the specs whose results differ. Exit status: 1 when a spec the
// baseline passes fails here, or without a baseline when any spec failed; 2 on a usage error.
import { basename, join } from "node:path";
import { compareRuns, formatCounts, formatDifferences, formatSummary, readGinkgoReport, countByGroup } from "./ginkgo-report.js";

function main(args: readonly string[]): number {
  if (args.length < 1 || args.length > 2) {
    process.stderr.write("usage: report-main DIR [BASELINE_DIR] (directories holding ginkgo's report.json)\n");
    return 2;
  }
  const [dir, baselineDir] = args as [string, string | undefined];
  let ours;
  let theirs;
  try {
    ours = readGinkgoReport(join(dir, "report.json"));
    theirs = baselineDir === undefined ? undefined : readGinkgoReport(join(baselineDir, "report.json"));
  } catch (err) {
    process.stderr.write(`report-main: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const lines: string[] = [];
  // A run alone is named by its directory (<time>-[<instance>-]<target>).
  const label = theirs === undefined && basename(dir).endsWith("kubelet") ? "kubelet" : "probelet";
  if (theirs !== undefined) lines.push(...formatSummary(`kubelet (${baselineDir})`, theirs), "");
  lines.push(...formatSummary(`${label} (${dir})`, ours));
  let failed = countByGroup(ours).total.failed > 0;
  if (theirs !== undefined) {
    const diffs = compareRuns(ours, theirs);
    lines.push("", ...formatDifferences(diffs));
    failed = diffs.some((d) => d.kubelet === "passed");
    lines.push("", `kubelet: ${formatCounts(countByGroup(theirs).total)}`);
  }
  // The run's own closing line last: "N passed, N failed, N skipped".
  lines.push(`${label}: ${formatCounts(countByGroup(ours).total)}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
