import { test } from "node:test";
import assert from "node:assert/strict";
import { compareRuns, countByGroup, formatCounts, formatDifferences, parseGinkgoReport } from "./ginkgo-report.js";

// The shape ginkgo v2 writes with --json-report (types.Report): one suite, its SpecReports with
// setup nodes beside the It nodes.
function report(specs: readonly { texts: string[]; leaf: string; state: string; message?: string; type?: string }[]): string {
  return JSON.stringify([
    {
      SuitePath: "/e2e",
      SpecReports: [
        { LeafNodeType: "SynchronizedBeforeSuite", State: "passed", ContainerHierarchyTexts: null, LeafNodeText: "" },
        ...specs.map((s) => ({
          LeafNodeType: s.type ?? "It",
          ContainerHierarchyTexts: s.texts,
          LeafNodeText: s.leaf,
          State: s.state,
          RunTime: 2_500_000_000,
          Failure: s.message === undefined ? undefined : { Message: s.message },
        })),
      ],
    },
  ]);
}

const PROBING = "[sig-node] Probing container";
const DOWNWARD = "[sig-storage] Downward API volume";

test("a report's It specs are counted per outermost container, specs left out by the focus are not", () => {
  const specs = parseGinkgoReport(
    report([
      { texts: [PROBING], leaf: "should be restarted with a exec liveness probe [NodeConformance]", state: "passed" },
      { texts: [PROBING], leaf: "with readiness probe should not be ready [NodeConformance]", state: "failed", message: "\n  Timed out after 60s.\n  Expected pod to be ready" },
      { texts: [DOWNWARD], leaf: "should provide podname only [NodeConformance]", state: "timedout", message: "A spec timeout occurred" },
      { texts: [DOWNWARD], leaf: "should set mode on item file [LinuxOnly]", state: "skipped", message: "Only supported for providers [gce]" },
      { texts: [DOWNWARD], leaf: "filtered out by --focus", state: "skipped" },
    ]),
  );
  assert.equal(specs.length, 4);
  const { groups, total } = countByGroup(specs);
  assert.deepEqual([...groups.keys()], [PROBING, DOWNWARD]);
  assert.equal(formatCounts(groups.get(PROBING)!), "1 passed, 1 failed, 0 skipped");
  assert.equal(formatCounts(groups.get(DOWNWARD)!), "0 passed, 1 failed, 1 skipped");
  assert.equal(formatCounts(total), "1 passed, 2 failed, 1 skipped");
  const failed = specs.find((s) => s.state === "failed" && s.group === PROBING)!;
  assert.equal(failed.name, `${PROBING} with readiness probe should not be ready [NodeConformance]`);
  assert.equal(failed.firstLine, "Timed out after 60s.", "the first non-empty line of the failure");
  assert.equal(failed.seconds, 2.5);
});

test("comparing runs lists the kubelet's passes that probelet fails, then the other differences", () => {
  const kubelet = parseGinkgoReport(
    report([
      { texts: [DOWNWARD], leaf: "should provide podname only", state: "passed" },
      { texts: [DOWNWARD], leaf: "should provide cpu limit", state: "failed", message: "no curl in the image" },
      { texts: [PROBING], leaf: "same on both", state: "passed" },
    ]),
  );
  const probelet = parseGinkgoReport(
    report([
      { texts: [DOWNWARD], leaf: "should provide podname only", state: "failed", message: "pod failed at once\nmore" },
      { texts: [DOWNWARD], leaf: "should provide cpu limit", state: "passed" },
      { texts: [PROBING], leaf: "same on both", state: "passed" },
    ]),
  );
  const diffs = compareRuns(probelet, kubelet);
  assert.deepEqual(diffs, [
    { name: `${DOWNWARD} should provide cpu limit`, probelet: "passed", kubelet: "failed", firstLine: "no curl in the image" },
    { name: `${DOWNWARD} should provide podname only`, probelet: "failed", kubelet: "passed", firstLine: "pod failed at once" },
  ]);
  assert.deepEqual(formatDifferences(diffs), [
    "specs the kubelet passes and probelet does not: 1",
    `  - ${DOWNWARD} should provide podname only [probelet failed]`,
    "      pod failed at once",
    "other differences: 1",
    `  - ${DOWNWARD} should provide cpu limit [probelet passed, kubelet failed]`,
    "      no curl in the image",
  ]);
});

test("a file that is not a ginkgo report is refused with the reason", () => {
  assert.throws(() => parseGinkgoReport('{"SpecReports": []}'), /not a ginkgo JSON report/);
  assert.throws(() => parseGinkgoReport("<testsuites/>"), SyntaxError);
});
