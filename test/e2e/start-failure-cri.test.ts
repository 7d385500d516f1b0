// Start failures on the CRI runtime: real containerd without the image; skipped with the reason
// when containerd is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerStartFailureCases } from "./start-failure-cases.js";

describe("Start failure", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerStartFailureCases(criRuntimeFactory);
});
