// Pod churn on the process runtime: real processes, probes against a loopback server.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerPodChurnCase } from "./pod-churn-cases.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Pod churn", () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerPodChurnCase(factory);
});
