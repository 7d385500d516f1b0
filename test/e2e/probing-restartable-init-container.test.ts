// Node e2e "Probing restartable init container" (upstream container_probe.go, sidecar
// variants), cases 182–204: the probed container is an init container with restartPolicy
// Always next to a main agnhost pause container; restarts are counted on the sidecar.
import { describe } from "node:test";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { LIVENESS_CASES } from "./liveness-cases.js";
import { registerCases } from "./probe-case.js";
import { READINESS_CASES } from "./readiness-cases.js";
import { RUNTIME_FACTORIES } from "./runtime-factory.js";

describe("Probing restartable init container", { concurrency: true }, () => {
  assertNoDescendantsAfterAll();
  for (const factory of RUNTIME_FACTORIES) registerCases(factory, "sidecar", [...READINESS_CASES, ...LIVENESS_CASES]);
});
