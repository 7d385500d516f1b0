// The end of a pod's life (terminal sandbox, readiness during termination) on the process runtime.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerPodEndCases } from "./pod-end-cases.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Pod end", { concurrency: true }, () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerPodEndCases(factory);
});
