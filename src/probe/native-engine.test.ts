import assert from "node:assert/strict";
import { test } from "node:test";
import { loadNativeEngine, nativeDialIp } from "./native-engine.js";

test("the native engine dials IP literals and the empty host (127.0.0.1); names and zoned IPv6 stay on Node sockets", () => {
  assert.equal(nativeDialIp("10.0.0.5"), "10.0.0.5");
  assert.equal(nativeDialIp("::1"), "::1");
  assert.equal(nativeDialIp(""), "127.0.0.1");
  assert.equal(nativeDialIp("localhost"), undefined);
  assert.equal(nativeDialIp("fe80::1%lo"), undefined);
});

test("a missing addon is an error that names what could not be loaded, not a crash", () => {
  assert.throws(() => loadNativeEngine("/nonexistent/probelet_probe_engine.node"), /nonexistent\/probelet_probe_engine\.node/);
});
