// @internal For scripts/e2e-conformance.sh. Reads the JSON report the ginkgo CLI writes
// (--json-report: an array of suite reports, each with its SpecReports), summarizes it per group
// (the outermost Describe, e.g. "[sig-node] Probing container") and compares a probelet run with
// a kubelet run of the same suite.
import { readFileSync } from "node:fs";

/** @internal One spec's outcome as the summary uses it. */
export interface SpecOutcome {
  /** The full name: containers and leaf joined by spaces, as ginkgo prints it. */
  readonly name: string;
  /** The outermost container's text. */
  readonly group: string;
  readonly state: "passed" | "failed" | "skipped";
  /** The first line of the failure message (or of the skip reason); "" when passed. */
  readonly firstLine: string;
  readonly seconds: number;
}

/** @internal Counts of one group or of the whole run. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

interface RawSpec {
  readonly LeafNodeType?: string;
  readonly LeafNodeText?: string;
  readonly ContainerHierarchyTexts?: readonly string[] | null;
  readonly State?: string;
  readonly RunTime?: number;
  readonly Failure?: { readonly Message?: string } | null;
}

// Ginkgo's spec states (types.SpecState): those that mean the spec ran and did not pass.
const FAILED_STATES = new Set(["failed", "panicked", "timedout", "interrupted", "aborted"]);
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * @internal parseGinkgoReport turns a report's text into one outcome per spec that was selected.
 * Specs left out by --focus/--skip come back from ginkgo as "skipped" with no message and are not
 * counted; a spec that skipped itself at run time (e2eskipper) carries its reason and is.
 */
export function parseGinkgoReport(text: string): SpecOutcome[] {
  const suites = JSON.parse(text) as unknown;
  if (!Array.isArray(suites)) throw new Error("not a ginkgo JSON report: the top level is not an array of suite reports");
  const out: SpecOutcome[] = [];
  for (const suite of suites as { SpecReports?: readonly RawSpec[] | null }[]) {
    for (const spec of suite.SpecReports ?? []) {
      if (spec.LeafNodeType !== "It") continue;
      const containers = spec.ContainerHierarchyTexts ?? [];
      const message = spec.Failure?.Message ?? "";
      const state = spec.State === "passed" ? "passed" : FAILED_STATES.has(spec.State ?? "") ? "failed" : "skipped";
      if (state === "skipped" && message === "") continue;
      out.push({
        name: [...containers, spec.LeafNodeText ?? ""].join(" "),
        group: containers[0] ?? spec.LeafNodeText ?? "",
        state,
        firstLine: firstLine(message),
        seconds: (spec.RunTime ?? 0) / 1e9,
      });
    }
  }
  return out;
}

/** @internal readGinkgoReport reads and parses a report file (at most 256 MiB). */
export function readGinkgoReport(path: string): SpecOutcome[] {
  const text = readFileSync(path, "utf8");
  if (text.length > MAX_REPORT_BYTES) throw new Error(`${path}: larger than ${MAX_REPORT_BYTES} bytes`);
  return parseGinkgoReport(text);
}

function firstLine(message: string): string {
  const line = message.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.trim().slice(0, 300);
}

/** @internal countByGroup counts outcomes per group (sorted by name) and in all. */
export function countByGroup(specs: readonly SpecOutcome[]): { groups: Map<string, Counts>; total: Counts } {
  const groups = new Map<string, Counts>();
  const total: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const spec of [...specs].sort((a, b) => a.group.localeCompare(b.group))) {
    let counts = groups.get(spec.group);
    if (counts === undefined) groups.set(spec.group, (counts = { passed: 0, failed: 0, skipped: 0 }));
    counts[spec.state]++;
    total[spec.state]++;
  }
  return { groups, total };
}

/** @internal formatCounts is the closing-line form: "N passed, N failed, N skipped". */
export function formatCounts(c: Counts): string {
  return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
}

/** @internal A spec whose result differs between the two runs. */
export interface Difference {
  readonly name: string;
  readonly probelet: SpecOutcome["state"] | "absent";
  readonly kubelet: SpecOutcome["state"] | "absent";
  /** The first failure line of the run that failed (probelet's when both did). */
  readonly firstLine: string;
}

/** @internal compareRuns lists the specs whose state differs, sorted by name. */
export function compareRuns(probelet: readonly SpecOutcome[], kubelet: readonly SpecOutcome[]): Difference[] {
  const ours = new Map(probelet.map((s) => [s.name, s]));
  const theirs = new Map(kubelet.map((s) => [s.name, s]));
  const names = [...new Set([...ours.keys(), ...theirs.keys()])].sort();
  const out: Difference[] = [];
  for (const name of names) {
    const a = ours.get(name);
    const b = theirs.get(name);
    if (a?.state === b?.state) continue;
    out.push({
      name,
      probelet: a?.state ?? "absent",
      kubelet: b?.state ?? "absent",
      firstLine: a?.state === "failed" ? a.firstLine : (b?.firstLine ?? ""),
    });
  }
  return out;
}

/** @internal formatSummary renders one run's counts per group, then the total line. */
export function formatSummary(title: string, specs: readonly SpecOutcome[]): string[] {
  const { groups, total } = countByGroup(specs);
  const lines = [`${title}:`];
  for (const [group, counts] of groups) lines.push(`  ${group}: ${formatCounts(counts)}`);
  lines.push(`  all: ${formatCounts(total)}`);
  return lines;
}

/** @internal formatDifferences renders the differences, the kubelet's passes that probelet fails first. */
export function formatDifferences(diffs: readonly Difference[]): string[] {
  const worse = diffs.filter((d) => d.kubelet === "passed");
  const other = diffs.filter((d) => d.kubelet !== "passed");
  const lines = [`specs the kubelet passes and probelet does not: ${worse.length}`];
  for (const d of worse) lines.push(`  - ${d.name} [probelet ${d.probelet}]`, `      ${d.firstLine}`);
  lines.push(`other differences: ${other.length}`);
  for (const d of other) lines.push(`  - ${d.name} [probelet ${d.probelet}, kubelet ${d.kubelet}]`, ...(d.firstLine ? [`      ${d.firstLine}`] : []));
  return lines;
}
