// Start failures on the process runtime (the image case does not apply there: skipped with the reason).
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";
import { registerStartFailureCases } from "./start-failure-cases.js";

describe("Start failure", () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerStartFailureCases(factory);
});
