// `probelet explain` and describe's probe history against an agent on the CRI runtime: real
// containers in the private containerd; skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { registerExplainCases } from "./explain-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";

describe("Explain", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerExplainCases(criRuntimeFactory);
});
