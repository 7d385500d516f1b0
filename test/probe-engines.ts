// Runs a handler suite once per probe I/O engine: Node sockets ("js") and the native addon
// ("native", when it was built), so both paths give the same verdicts, texts and timings.
import { before, describe, test } from "node:test";
import { useProbeEngine, type ProbeEngineName } from "../src/probe/probe-engine.js";

/**
 * nativeSkipReason is a test's `skip` option for what needs the native engine: false when this
 * process now uses it, else why it cannot.
 */
export function nativeSkipReason(): string | false {
  const unavailable = nativeUnavailable();
  return unavailable === undefined ? false : `the native probe engine is not built: ${unavailable}`;
}

/** nativeUnavailable says why the native engine cannot run here, or undefined when it can. */
function nativeUnavailable(): string | undefined {
  try {
    useProbeEngine("native");
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * forEachProbeEngine defines the tests of `define` in one suite per engine, switching the
 * process to that engine before the suite runs. Without the addon, the native suite is one
 * skipped test that says why.
 */
export function forEachProbeEngine(define: (engine: ProbeEngineName) => void): void {
  const unavailable = nativeUnavailable();
  for (const engine of ["js", "native"] as const) {
    if (engine === "native" && unavailable !== undefined) {
      test("native engine", { skip: `the native probe engine is not built: ${unavailable}` }, () => undefined);
      continue;
    }
    describe(`${engine} engine`, () => {
      before(() => useProbeEngine(engine));
      define(engine);
    });
  }
}
