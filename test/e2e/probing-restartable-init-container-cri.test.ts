// Node e2e "Probing restartable init container" (upstream container_probe.go, sidecar
// variants), cases 182–204, on the CRI runtime: the probed container is a restartable init
// container next to a main pause container, all real containers in the private containerd of
// scripts/containerd.sh, titled `[case N][cri] …`; skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { LIVENESS_CASES } from "./liveness-cases.js";
import { CRI_CASE_CONCURRENCY, registerCases } from "./probe-case.js";
import { READINESS_CASES } from "./readiness-cases.js";

describe("Probing restartable init container", { concurrency: CRI_CASE_CONCURRENCY }, () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerCases(criRuntimeFactory, "sidecar", [...READINESS_CASES, ...LIVENESS_CASES]);
});
