// Node e2e "Probing container" (upstream test/e2e/common/node/container_probe.go), cases
// 159–181, on the CRI runtime: real containers in the private containerd of
// scripts/containerd.sh, titled `[case N][cri] …`; skipped with the reason when it is not there.
import { describe } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { LIVENESS_CASES } from "./liveness-cases.js";
import { CRI_CASE_CONCURRENCY, registerCases } from "./probe-case.js";
import { READINESS_CASES } from "./readiness-cases.js";

describe("Probing container", { concurrency: CRI_CASE_CONCURRENCY }, () => {
  assertNoDescendantsAfterAll();
  assertNoCriLeftoversAfterAll();
  registerCases(criRuntimeFactory, "container", [...READINESS_CASES, ...LIVENESS_CASES]);
});
