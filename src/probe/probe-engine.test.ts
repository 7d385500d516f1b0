import assert from "node:assert/strict";
import { test } from "node:test";
import { nativeEngine, probeEngineInfo, useProbeEngine } from "./probe-engine.js";

test("useProbeEngine('js') routes probes to Node sockets: no native engine is handed out", () => {
  assert.deepEqual(useProbeEngine("js"), { name: "js", reason: "PROBELET_PROBE_ENGINE=js" });
  assert.equal(probeEngineInfo().name, "js");
  assert.equal(nativeEngine(), undefined);
});

test("useProbeEngine('native') either selects the addon or throws why it cannot load, leaving the engine unchanged", () => {
  useProbeEngine("js");
  try {
    assert.deepEqual(useProbeEngine("native"), { name: "native", reason: "" });
    assert.notEqual(nativeEngine(), undefined);
  } catch (err) {
    assert.match(String(err), /native probe engine is not available/);
    assert.equal(probeEngineInfo().name, "js");
  }
});
