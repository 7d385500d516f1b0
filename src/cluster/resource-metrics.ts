// GET /metrics/resource of the daemon endpoint: the kubelet's resource metrics collector
// (pkg/kubelet/metrics/collectors/resource_metrics.go CollectWithStability) over the stats
// summary, in the Prometheus text format its registry writes: families sorted by name, HELP
// prefixed with the stability level, node figures stamped with the time they were read.
// Metrics of figures the summary lacks (container and pod CPU and memory) are not written, as
// the collector skips a nil figure.
import type { Summary } from "./stats-summary.js";

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge";
  samples: string[];
}

/** labels renders a label set in the order Prometheus writes it (sorted by name), values escaped. */
function labels(set: Record<string, string>): string {
  const escape = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
  return `{${Object.keys(set).sort().map((k) => `${k}="${escape(set[k]!)}"`).join(",")}}`;
}

/** renderResourceMetrics writes the resource metrics of a summary; without one (it could not be read) only resource_scrape_error 1. */
export function renderResourceMetrics(summary: Summary | undefined): string {
  const families: Family[] = [
    { name: "container_start_time_seconds", help: "[STABLE] Start time of the container since unix epoch in seconds", type: "gauge", samples: [] },
    { name: "node_cpu_usage_seconds_total", help: "[STABLE] Cumulative cpu time consumed by the node in core-seconds", type: "counter", samples: [] },
    { name: "node_memory_working_set_bytes", help: "[STABLE] Current working set of the node in bytes", type: "gauge", samples: [] },
    { name: "node_swap_usage_bytes", help: "[ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems", type: "gauge", samples: [] },
    { name: "resource_scrape_error", help: "[STABLE] 1 if there was an error while getting container metrics, 0 otherwise", type: "gauge", samples: [summary === undefined ? "1" : "0"] },
  ];
  const family = (name: string): Family => families.find((f) => f.name === name)!;
  if (summary !== undefined) {
    const { node } = summary;
    if (node.cpu?.usageCoreNanoSeconds !== undefined) family("node_cpu_usage_seconds_total").samples.push(`${node.cpu.usageCoreNanoSeconds / 1e9} ${Date.parse(node.cpu.time)}`);
    if (node.memory !== undefined) family("node_memory_working_set_bytes").samples.push(`${node.memory.workingSetBytes} ${Date.parse(node.memory.time)}`);
    if (node.swap !== undefined) family("node_swap_usage_bytes").samples.push(`${node.swap.swapUsageBytes} ${Date.parse(node.swap.time)}`);
    for (const pod of summary.pods) {
      for (const c of pod.containers) {
        const start = Date.parse(c.startTime) / 1000;
        if (start > 0) family("container_start_time_seconds").samples.push(`${labels({ container: c.name, namespace: pod.podRef.namespace, pod: pod.podRef.name })} ${start}`);
      }
    }
  }
  return families
    .filter((f) => f.samples.length > 0)
    .map((f) => [`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`, ...f.samples.map((s) => (s.startsWith("{") ? `${f.name}${s}` : `${f.name} ${s}`))].join("\n"))
    .join("\n")
    .concat("\n");
}
