// Probes and hooks name containers by their status containerID ("<type>://<id>"); runtimes take
// the bare ID.
import type { CommandRunner } from "../probe/command-runner.js";
import type { Runtime } from "../runtime/runtime.js";

/** fullIdRunner adapts a runtime to CommandRunner calls made with "<type>://<id>" container IDs. */
export function fullIdRunner(runtime: Runtime): CommandRunner {
  const prefix = `${runtime.type}://`;
  return {
    runInContainer: (id, argv, options) => runtime.runInContainer(id.startsWith(prefix) ? id.slice(prefix.length) : id, argv, options),
  };
}
