// `probelet explain` and describe's probe history against an agent on the process runtime.
import { describe } from "node:test";
import { registerExplainCases } from "./explain-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Explain", () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerExplainCases(factory);
});
