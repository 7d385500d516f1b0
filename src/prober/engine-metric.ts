// Which probe I/O engine runs tcpSocket and httpGet probes, as an info metric beside the
// prober's metrics: probelet_probe_engine_info{engine="native"|"js"} 1.
import { Gauge, type Registry } from "prom-client";
import type { ProbeEngineInfo } from "../probe/probe-engine.js";

/** PROBE_ENGINE_METRIC is the info metric's name. */
export const PROBE_ENGINE_METRIC = "probelet_probe_engine_info";

/** registerProbeEngineInfo sets the engine's series to 1 in `registry` (once per registry; the engine never changes). */
export function registerProbeEngineInfo(registry: Registry, engine: ProbeEngineInfo): void {
  if (registry.getSingleMetric(PROBE_ENGINE_METRIC) !== undefined) return;
  const gauge = new Gauge({
    name: PROBE_ENGINE_METRIC,
    help: "The probe I/O engine of tcpSocket and httpGet probes: native (epoll thread addon) or js (Node sockets).",
    labelNames: ["engine"],
    registers: [registry],
  });
  gauge.set({ engine: engine.name }, 1);
}
