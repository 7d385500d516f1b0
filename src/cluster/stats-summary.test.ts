import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { parseBootTime, parseMeminfo, parseProcStatCpu, parseRunningProcesses, type MachineSample } from "./node-stats.js";
import { renderResourceMetrics } from "./resource-metrics.js";
import { statsSummary } from "./stats-summary.js";

const procStat = "cpu  1000 20 300 50000 40 5 6 7 0 0\ncpu0 500 10 150 25000 20 2 3 3 0 0\nbtime 1764400000\n";
const meminfo = "MemTotal:        4000000 kB\nMemFree:         1000000 kB\nMemAvailable:    2500000 kB\nInactive(file):   500000 kB\nSwapTotal:       1000000 kB\nSwapFree:         900000 kB\n";

test("the machine as cadvisor reads its root container: non-idle CPU jiffies, working set = usage - inactive file, boot time, process count", () => {
  // user + nice + system + irq + softirq + steal = 1338 jiffies of 10 ms.
  assert.equal(parseProcStatCpu(procStat), 13_380_000_000n);
  assert.equal(parseBootTime(procStat), 1764400000_000);
  assert.deepEqual(parseMeminfo(meminfo), { totalBytes: 4096000000, usageBytes: 3072000000, workingSetBytes: 2560000000, swapTotalBytes: 1024000000, swapUsageBytes: 102400000 });
  assert.equal(parseRunningProcesses("0.52 0.58 0.59 3/412 98765\n"), 412);
  assert.equal(parseProcStatCpu("garbage"), undefined);
  assert.equal(parseMeminfo("MemTotal: x"), undefined);
});

const sample: MachineSample = {
  time: Date.UTC(2026, 10, 29, 8, 0, 0),
  bootTime: Date.UTC(2026, 10, 29, 6, 0, 0),
  usageCoreNanoSeconds: 13_380_000_000n,
  usageNanoCores: 250_000_000n,
  memory: { totalBytes: 4096000000, usageBytes: 3072000000, workingSetBytes: 2560000000, swapTotalBytes: 0, swapUsageBytes: 0 },
  fs: { capacityBytes: 100, availableBytes: 40, usedBytes: 50, inodes: 10, inodesFree: 4 },
  rlimit: { maxpid: 4194304, curproc: 412 },
};

const pod: Pod = {
  metadata: { name: "web", namespace: "shop", uid: "u-1" },
  spec: { containers: [{ name: "app" }, { name: "waiting" }] },
  status: {
    startTime: "2026-11-29T07:00:00Z",
    initContainerStatuses: [{ name: "proxy", ready: true, restartCount: 0, state: { running: { startedAt: "2026-11-29T07:00:01Z" } } }],
    containerStatuses: [
      { name: "app", ready: true, restartCount: 0, state: { running: { startedAt: "2026-11-29T07:00:02Z" } } },
      { name: "waiting", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } },
    ],
  },
};

test("Summary: the node from the machine (available = capacity - working set), pods with their running containers (sidecars too)", () => {
  const summary = statsSummary("probelet-a", sample, [pod, { metadata: { name: "new" }, spec: { containers: [] } }]);
  assert.deepEqual(summary.node, {
    nodeName: "probelet-a",
    startTime: "2026-11-29T06:00:00Z",
    cpu: { time: "2026-11-29T08:00:00Z", usageCoreNanoSeconds: 13380000000, usageNanoCores: 250000000 },
    memory: { time: "2026-11-29T08:00:00Z", availableBytes: 1536000000, usageBytes: 3072000000, workingSetBytes: 2560000000 },
    fs: { time: "2026-11-29T08:00:00Z", availableBytes: 40, capacityBytes: 100, usedBytes: 50, inodesFree: 4, inodes: 10, inodesUsed: 6 },
    rlimit: { time: "2026-11-29T08:00:00Z", maxpid: 4194304, curproc: 412 },
  });
  assert.deepEqual(summary.pods, [
    {
      podRef: { name: "web", namespace: "shop", uid: "u-1" },
      startTime: "2026-11-29T07:00:00Z",
      containers: [
        { name: "proxy", startTime: "2026-11-29T07:00:01Z" },
        { name: "app", startTime: "2026-11-29T07:00:02Z" },
      ],
    },
  ]);
});

test("resource metrics: node CPU and working set stamped with their time, container start times, resource_scrape_error; only scrape_error without a summary", () => {
  const text = renderResourceMetrics(statsSummary("probelet-a", sample, [pod]));
  assert.equal(
    text,
    [
      "# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds",
      "# TYPE container_start_time_seconds gauge",
      `container_start_time_seconds{container="proxy",namespace="shop",pod="web"} ${Date.UTC(2026, 10, 29, 7, 0, 1) / 1000}`,
      `container_start_time_seconds{container="app",namespace="shop",pod="web"} ${Date.UTC(2026, 10, 29, 7, 0, 2) / 1000}`,
      "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds",
      "# TYPE node_cpu_usage_seconds_total counter",
      `node_cpu_usage_seconds_total 13.38 ${sample.time}`,
      "# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes",
      "# TYPE node_memory_working_set_bytes gauge",
      `node_memory_working_set_bytes 2560000000 ${sample.time}`,
      "# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise",
      "# TYPE resource_scrape_error gauge",
      "resource_scrape_error 0",
      "",
    ].join("\n"),
  );
  assert.equal(renderResourceMetrics(undefined), "# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 1\n");
});
