// What a container sees and what it may do, on the process runtime: the cases need root and the
// supervisor (a mount namespace and a user per container); skipped with the reason otherwise. The
// plain process runtime (no supervisor) shows what happens where nothing can be bound.
import { describe } from "node:test";
import { supervisedProcessFactory } from "./config-volumes-cases.js";
import { registerContainerWorldCases, registerUnboundMessageCase } from "./container-world-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";
import { processRuntimeFactory } from "./runtime-factory.js";
import { registerTerminationMessageCases } from "./termination-message-cases.js";

describe("Container world", () => {
  assertNoDescendantsAfterAll();
  registerContainerWorldCases(supervisedProcessFactory);
  registerUnboundMessageCase(processRuntimeFactory);
  // Upstream's termination message cases with the file bound at its path and runAsUser applied.
  registerTerminationMessageCases(supervisedProcessFactory);
});
