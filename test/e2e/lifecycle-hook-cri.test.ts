// Node e2e "Container Lifecycle Hook" (upstream test/e2e/common/node/lifecycle_hook.go) on the
// CRI runtime: exec hooks run inside real containers (busybox wget), httpGet hooks from the agent;
// skipped with the reason when the private containerd is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { registerLifecycleHookCases } from "./lifecycle-hook-cases.js";
import { CRI_CASE_CONCURRENCY } from "./probe-case.js";

describe("Container Lifecycle Hook", { concurrency: CRI_CASE_CONCURRENCY }, () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerLifecycleHookCases(criRuntimeFactory);
});
