// Node e2e termination messages (upstream test/e2e/common/node/runtime.go "on terminated
// container") on the process runtime: real processes writing their message to the host file.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";
import { registerTerminationMessageCases } from "./termination-message-cases.js";

describe("Container Runtime termination message", { concurrency: true }, () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerTerminationMessageCases(factory);
});
