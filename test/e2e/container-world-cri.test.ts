// What a container sees and what it may do, on the CRI runtime (the private containerd);
// skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { registerContainerWorldCases } from "./container-world-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";

describe("Container world", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerContainerWorldCases(criRuntimeFactory);
});
