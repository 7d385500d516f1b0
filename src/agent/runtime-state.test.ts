import assert from "node:assert/strict";
import { test } from "node:test";
import { formatRuntimeErrors, RuntimeState } from "./runtime-state.js";

test("RuntimeState reports the kubelet's runtime errors by time since the last successful relist", () => {
  const t0 = 1_000_000;
  const cases: Array<{ name: string; synced: boolean; after: number; want: string[] }> = [
    { name: "never synced", synced: false, after: 0, want: ["container runtime status check may not have completed yet", "PLEG is not healthy: pleg has yet to be successful"] },
    { name: "just synced", synced: true, after: 0, want: [] },
    { name: "29.999 s: still up", synced: true, after: 29_999, want: [] },
    { name: "30 s: down (threshold not After now)", synced: true, after: 30_000, want: ["container runtime is down"] },
    { name: "3 min: PLEG still within its threshold", synced: true, after: 180_000, want: ["container runtime is down"] },
    { name: "3 min 0.5 s: PLEG unhealthy", synced: true, after: 180_500, want: ["container runtime is down", "PLEG is not healthy: pleg was last seen active 3m0.5s ago; threshold is 3m0s"] },
  ];
  for (const c of cases) {
    const state = new RuntimeState();
    if (c.synced) state.synced(t0);
    assert.deepEqual(state.errors(t0 + c.after), c.want, c.name);
  }
});

test("RuntimeState keeps the last relist error until a relist succeeds", () => {
  const state = new RuntimeState();
  state.failed("connection refused");
  assert.equal(state.lastErrorMessage, "connection refused");
  state.synced(5);
  assert.equal(state.lastErrorMessage, "");
});

test("formatRuntimeErrors prints one error bare and several as Go's aggregate", () => {
  assert.equal(formatRuntimeErrors(["a"]), "a");
  assert.equal(formatRuntimeErrors(["a", "b"]), "[a, b]");
});
