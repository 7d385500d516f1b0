import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
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

test("PROBELET_PROBE_ENGINE picks the engine at start; an unsupported value falls back to js and says why", () => {
  const moduleUrl = new URL("./probe-engine.js", import.meta.url).href;
  const infoWith = (value: string): unknown => {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", `import { probeEngineInfo } from ${JSON.stringify(moduleUrl)}; console.log(JSON.stringify(probeEngineInfo()));`], {
      env: { ...process.env, PROBELET_PROBE_ENGINE: value },
      encoding: "utf8",
      timeout: 10_000,
    });
    return JSON.parse(out) as unknown;
  };
  assert.deepEqual(infoWith("js"), { name: "js", reason: "PROBELET_PROBE_ENGINE=js" });
  assert.deepEqual(infoWith("bogus"), { name: "js", reason: 'PROBELET_PROBE_ENGINE: unsupported value "bogus": must be "native" or "js"' });
});
