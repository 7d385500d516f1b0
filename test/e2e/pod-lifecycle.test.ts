// The pod lifecycle on the process runtime: real processes for restart rules, sidecars at
// completion, the shared grace period and the final status of a deleted pod.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerPodLifecycleCases } from "./pod-lifecycle-cases.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Pod lifecycle", () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerPodLifecycleCases(factory);
});
