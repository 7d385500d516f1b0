// Opt-in probe extensions against an agent on the CRI runtime: real containers in the private
// containerd; skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { registerExtensionCases } from "./extensions-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";

describe("Probe extensions", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerExtensionCases(criRuntimeFactory);
});
