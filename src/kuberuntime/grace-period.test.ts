import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Container, Pod } from "../api/types.js";
import type { ProbeKillReason } from "./container-actions.js";
import { killGracePeriodSeconds, MINIMUM_GRACE_PERIOD_SECONDS, remainingGraceAfterPreStop } from "./grace-period.js";

interface Row {
  name: string;
  podGrace?: number;
  deletionGrace?: number;
  container: Container;
  reason?: ProbeKillReason;
  want: number;
}

const probe = (grace?: number) => (grace === undefined ? { exec: { command: ["true"] } } : { exec: { command: ["true"] }, terminationGracePeriodSeconds: grace });

const rows: Row[] = [
  { name: "pod 500 / liveness probe 5 → 5", podGrace: 500, container: { name: "c", livenessProbe: probe(5) }, reason: "liveness", want: 5 },
  { name: "pod 500 / startup probe 7 → 7", podGrace: 500, container: { name: "c", startupProbe: probe(7) }, reason: "startup", want: 7 },
  { name: "pod 500 / no probe value → 500", podGrace: 500, container: { name: "c", livenessProbe: probe() }, reason: "liveness", want: 500 },
  { name: "deletion grace 10 set → 10 regardless of probe value", podGrace: 500, deletionGrace: 10, container: { name: "c", livenessProbe: probe(5) }, reason: "liveness", want: 10 },
  { name: "deletion grace 0 is used as is", podGrace: 500, deletionGrace: 0, container: { name: "c" }, want: 0 },
  {
    name: "readiness never participates (liveness kill without a liveness value)",
    podGrace: 500,
    container: { name: "c", readinessProbe: probe(3), livenessProbe: probe() },
    reason: "liveness",
    want: 500,
  },
  { name: "only the probe that caused the kill counts", podGrace: 500, container: { name: "c", livenessProbe: probe(5), startupProbe: probe(9) }, reason: "startup", want: 9 },
  { name: "a kill not caused by a probe uses the pod value", podGrace: 500, container: { name: "c", livenessProbe: probe(5) }, want: 500 },
  { name: "a probe value above the pod value still wins", podGrace: 30, container: { name: "c", livenessProbe: probe(60) }, reason: "liveness", want: 60 },
  { name: "no pod value → 2", container: { name: "c", livenessProbe: probe(5) }, reason: "liveness", want: 2 },
];

function podWith(row: Row): Pod {
  const p: Pod = { metadata: { name: "p", uid: "u" }, spec: { containers: [row.container] } };
  if (row.podGrace !== undefined) p.spec.terminationGracePeriodSeconds = row.podGrace;
  if (row.deletionGrace !== undefined) p.metadata.deletionGracePeriodSeconds = row.deletionGrace;
  return p;
}

describe("killGracePeriodSeconds", () => {
  for (const row of rows) {
    test(`[case 156] grace period: ${row.name}`, () => {
      assert.equal(killGracePeriodSeconds(podWith(row), row.container, row.reason), row.want);
    });
  }
});

describe("remainingGraceAfterPreStop", () => {
  const cases = [
    { grace: 30, elapsed: 0, want: 30 },
    { grace: 30, elapsed: 10.9, want: 20 }, // whole seconds are subtracted
    { grace: 30, elapsed: 29, want: 2 },
    { grace: 30, elapsed: 45, want: 2 },
    { grace: 5, elapsed: 4, want: 2 },
    { grace: 0, elapsed: 3, want: 2 }, // no hook runs without grace; still the minimum
  ];
  for (const c of cases) {
    test(`[case 156] grace period: result floored at 2 s — grace ${c.grace}, preStop ${c.elapsed}s → ${c.want}`, () => {
      assert.equal(remainingGraceAfterPreStop(c.grace, c.elapsed), c.want);
    });
  }

  test("the minimum is 2 seconds", () => {
    assert.equal(MINIMUM_GRACE_PERIOD_SECONDS, 2);
  });
});
