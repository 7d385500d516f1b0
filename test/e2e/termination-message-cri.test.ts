// Node e2e termination messages (upstream test/e2e/common/node/runtime.go "on terminated
// container") on the CRI runtime: real containers in the private containerd, the message file
// bound at terminationMessagePath; skipped with the reason when containerd is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerTerminationMessageCases } from "./termination-message-cases.js";

describe("Container Runtime termination message", () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerTerminationMessageCases(criRuntimeFactory);
});
