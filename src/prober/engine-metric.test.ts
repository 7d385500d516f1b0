import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "prom-client";
import { registerProbeEngineInfo } from "./engine-metric.js";

test("probelet_probe_engine_info has one series, labelled with the engine in use, set to 1", async () => {
  const registry = new Registry();
  registerProbeEngineInfo(registry, { name: "js", reason: "PROBELET_PROBE_ENGINE=js" });
  registerProbeEngineInfo(registry, { name: "js", reason: "PROBELET_PROBE_ENGINE=js" }); // a second manager on the same registry
  const text = await registry.metrics();
  assert.match(text, /^probelet_probe_engine_info\{engine="js"\} 1$/m);
  assert.equal(text.match(/^probelet_probe_engine_info\{/gm)?.length, 1);
});
