// Node e2e "Probing container" (upstream test/e2e/common/node/container_probe.go), cases
// 159–181, on every runtime factory. The cases mostly wait, so they run concurrently.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { LIVENESS_CASES } from "./liveness-cases.js";
import { registerCases } from "./probe-case.js";
import { READINESS_CASES } from "./readiness-cases.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Probing container", { concurrency: true }, () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerCases(factory, "container", [...READINESS_CASES, ...LIVENESS_CASES]);
});
