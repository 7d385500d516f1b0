// What a day of probe history costs: WORKERS workers (default 50) each probed once a second for
// 24 h, in two patterns — steady (one result all day, with a short failure every 10 minutes)
// and flapping (the result changes every probe, the worst case for collapsing) — fed through
// ProbeHistory and ProbeHistoryFiles with a fake clock. Prints heap per worker, the
// history's disk use per pod (two workers), and both scaled to 500 pods × 2 probes.
//
//   npm run build && node --expose-gc dist/bench/probe-history-size.js [WORKERS]
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeClock } from "../test/fakes/fake-clock.js";
import { ProbeHistory, type ProbeHistoryEntry } from "../src/prober/probe-history.js";
import { HISTORY_DIR, ProbeHistoryFiles } from "../src/prober/probe-history-file.js";
import { silentLogger } from "../src/util/logger.js";

const WORKERS = Number(process.argv[2] ?? 50);
const DAY_S = 86_400;
const gc = (globalThis as { gc?: () => void }).gc;

async function measure(pattern: "steady" | "flapping"): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-history-bench-"));
  try {
    const clock = new FakeClock();
    const files = new ProbeHistoryFiles({ stateDir: dir, clock, logger: silentLogger, windowMs: DAY_S * 1000 });
    const history = new ProbeHistory({ sink: files });
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let s = 0; s < DAY_S; s++) {
      const time = new Date(clock.now()).toISOString();
      for (let w = 0; w < WORKERS; w++) {
        const failing = pattern === "flapping" ? s % 2 === 1 : s % 600 >= 597;
        const entry: ProbeHistoryEntry = { time, container: "app", probeType: w % 2 === 0 ? "liveness" : "readiness", containerID: "containerd://0123456789abcdef", result: failing ? "Failure" : "Success", output: failing ? "HTTP probe failed with statuscode: 503" : "", latencyMs: 1.234, run: 1, threshold: 3 };
        const uid = `pod-${Math.floor(w / 2)}`;
        history.addEntry(uid, entry);
        files.append(uid, { container: entry.container, probeType: entry.probeType }, entry);
      }
      await clock.advance(1000);
    }
    await files.flush();
    gc?.();
    const heap = process.memoryUsage().heapUsed - before;
    let disk = 0;
    for (const name of await readdir(join(dir, HISTORY_DIR))) disk += (await stat(join(dir, HISTORY_DIR, name))).size;
    const perWorker = heap / WORKERS;
    const perPod = disk / (WORKERS / 2);
    const sample = history.query("pod-0", {});
    console.log(
      `| ${pattern} | ${WORKERS} | ${sample.items.length} | ${sample.segments.length} | ${(perWorker / 1024).toFixed(0)} KiB | ${(perWorker * 1000 / 2 ** 20).toFixed(0)} MiB | ${(perPod / 1024).toFixed(0)} KiB | ${(perPod * 500 / 2 ** 20).toFixed(0)} MiB |`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

console.log("| pattern | workers | entries kept (pod-0) | segments kept (pod-0) | heap per worker | heap, 1000 workers | disk per pod | disk, 500 pods |");
console.log("|---|---|---|---|---|---|---|---|");
await measure("steady");
await measure("flapping");
