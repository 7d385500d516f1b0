// Pod churn on the CRI runtime: real containers in the private containerd; skipped with the
// reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerPodChurnCase } from "./pod-churn-cases.js";

describe("Pod churn", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerPodChurnCase(criRuntimeFactory);
});
