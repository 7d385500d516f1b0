// Opt-in probe extensions against an agent on the process runtime.
import { describe } from "node:test";
import { registerExtensionCases } from "./extensions-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Probe extensions", () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerExtensionCases(factory);
});
