// Node e2e "Container Lifecycle Hook" (upstream test/e2e/common/node/lifecycle_hook.go) on the
// process runtime: real processes, hooks calling a loopback handler.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerLifecycleHookCases } from "./lifecycle-hook-cases.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Container Lifecycle Hook", { concurrency: true }, () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerLifecycleHookCases(factory);
});
