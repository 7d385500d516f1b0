// The pod lifecycle on the CRI runtime: real containers in the private containerd; skipped with
// the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerPodLifecycleCases } from "./pod-lifecycle-cases.js";

describe("Pod lifecycle", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerPodLifecycleCases(criRuntimeFactory);
});
