// ConfigMaps, Secrets and volumes against an agent on the CRI runtime: real bind mounts in
// containers of the private containerd; skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { registerConfigVolumeCases } from "./config-volumes-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";

describe("ConfigMaps, Secrets and volumes", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerConfigVolumeCases(criRuntimeFactory);
});
