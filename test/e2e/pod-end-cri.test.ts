// The end of a pod's life (terminal sandbox, readiness during termination) on the CRI runtime:
// real containers in the private containerd; skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerPodEndCases } from "./pod-end-cases.js";

describe("Pod end", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerPodEndCases(criRuntimeFactory);
});
