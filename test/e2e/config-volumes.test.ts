// ConfigMaps, Secrets and volumes against an agent on the process runtime: the mount cases run
// under the supervisor as root (skipped with the reason otherwise); the no-mount case runs on
// the plain process runtime, which cannot mount.
import { describe } from "node:test";
import { registerConfigVolumeCases, registerNoMountCase, supervisedProcessFactory } from "./config-volumes-cases.js";
import { assertNoDescendantsAfterAll } from "./harness.js";

describe("ConfigMaps, Secrets and volumes", () => {
  assertNoDescendantsAfterAll();
  registerConfigVolumeCases(supervisedProcessFactory);
  registerNoMountCase();
});
