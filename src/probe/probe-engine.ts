// Which probe I/O engine this process uses for tcpSocket and httpGet probes: "native" (the
// addon's epoll thread, native-engine.ts) when it was built and loads, else "js" (Node
// sockets). Chosen once, at the first probe or the first call here, from the environment
// variable PROBELET_PROBE_ENGINE ("native", "js"; unset: native if available).
import { loadNativeEngine, type NativeProbeEngine } from "./native-engine.js";

/** ProbeEngineName names a probe I/O engine. */
export type ProbeEngineName = "native" | "js";

/** ProbeEngineInfo says which engine runs probes and why. */
export interface ProbeEngineInfo {
  readonly name: ProbeEngineName;
  /** Why the JS engine was chosen (addon missing, not loadable, or asked for); "" for native. */
  readonly reason: string;
}

/** PROBE_ENGINE_ENV is the environment variable that picks the engine. */
export const PROBE_ENGINE_ENV = "PROBELET_PROBE_ENGINE";

let selected: { info: ProbeEngineInfo; native: NativeProbeEngine | undefined } | undefined;
let loaded: NativeProbeEngine | undefined;

function choose(wanted: string | undefined): { info: ProbeEngineInfo; native: NativeProbeEngine | undefined } {
  if (wanted === "js") return { info: { name: "js", reason: `${PROBE_ENGINE_ENV}=js` }, native: undefined };
  if (wanted !== undefined && wanted !== "" && wanted !== "native") {
    return { info: { name: "js", reason: `${PROBE_ENGINE_ENV}: unsupported value ${JSON.stringify(wanted.slice(0, 32))}: must be "native" or "js"` }, native: undefined };
  }
  try {
    loaded ??= loadNativeEngine();
    return { info: { name: "native", reason: "" }, native: loaded };
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    return { info: { name: "js", reason: `the native probe engine is not available: ${why}` }, native: undefined };
  }
}

/** probeEngineInfo returns the engine in use, choosing it on the first call. */
export function probeEngineInfo(): ProbeEngineInfo {
  selected ??= choose(process.env[PROBE_ENGINE_ENV]);
  return selected.info;
}

/** nativeEngine returns the native engine when it is the one in use. */
export function nativeEngine(): NativeProbeEngine | undefined {
  selected ??= choose(process.env[PROBE_ENGINE_ENV]);
  return selected.native;
}

/**
 * useProbeEngine switches this process to `name` (tests run the handler suites on both, the
 * bench driver compares them); it throws when the native engine cannot be loaded.
 */
export function useProbeEngine(name: ProbeEngineName): ProbeEngineInfo {
  const next = choose(name);
  if (next.info.name !== name) throw new Error(next.info.reason);
  selected = next;
  return next.info;
}
