import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilitySet, CAPABILITY_NAMES, DEFAULT_CAPABILITIES } from "./capabilities.js";

const bits = (...names: string[]): bigint => names.reduce((acc, n) => acc | (1n << BigInt(CAPABILITY_NAMES.indexOf(n as (typeof CAPABILITY_NAMES)[number]))), 0n);

test("capabilitySet starts from containerd's default set; ALL in drop empties it before the adds, ALL in add fills it before the drops", () => {
  assert.deepEqual(capabilitySet([], []), { ok: true, bits: bits(...DEFAULT_CAPABILITIES) });
  assert.deepEqual(capabilitySet(["NET_ADMIN"], ["ALL"]), { ok: true, bits: bits("CAP_NET_ADMIN") });
  assert.deepEqual(capabilitySet(["all"], ["CAP_SYS_ADMIN"]), { ok: true, bits: (1n << BigInt(CAPABILITY_NAMES.length)) - 1n - bits("CAP_SYS_ADMIN") });
  assert.deepEqual(capabilitySet(["cap_sys_time"], ["chown"]), { ok: true, bits: (bits(...DEFAULT_CAPABILITIES) | bits("CAP_SYS_TIME")) & ~bits("CAP_CHOWN") }, "names without case, with or without CAP_");
});

test("capabilitySet names an unknown capability", () => {
  assert.deepEqual(capabilitySet(["NET_ADMIN", "WIZARDRY"], []), { ok: false, message: 'unknown capability "WIZARDRY"' });
});
