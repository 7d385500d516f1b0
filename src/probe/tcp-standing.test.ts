import assert from "node:assert/strict";
import { connect, createServer, type AddressInfo } from "node:net";
import { before, describe, test } from "node:test";
import { spawnNodeServer, startBlackholeServer, startTcpServer } from "../../test/servers/tcp-server.js";
import { waitFor } from "../../test/fixtures.js";
import { nativeSkipReason } from "../../test/probe-engines.js";
import type { StandingSchedule } from "./native-engine.js";
import { nativeEngine, useProbeEngine } from "./probe-engine.js";
import type { ProbeOutcome } from "./probe-result.js";
import { probeTcp } from "./tcp.js";
import { standTcp, type StandingTcpSink } from "./tcp-standing.js";

/** Recorder collects what a standing probe reports. */
class Recorder implements StandingTcpSink {
  readonly probes: { outcome: ProbeOutcome; startMs: number; endMs: number }[] = [];
  ended: number | undefined;

  onStandingProbe(outcome: ProbeOutcome, startMs: number, endMs: number): void {
    assert.equal(this.ended, undefined, "no probe is reported after the end");
    this.probes.push({ outcome, startMs, endMs });
  }

  onStandingEnded(nextTickMs: number): void {
    assert.equal(this.ended, undefined, "the end is reported once");
    this.ended = nextTickMs;
  }
}

/** grid builds a schedule whose first tick is `firstInMs` from now. */
function grid(periodMs: number, firstInMs: number, coalesceMs = 4): StandingSchedule {
  const baseMs = performance.now() + firstInMs - periodMs;
  return { baseMs, periodMs, nextMs: baseMs + periodMs, coalesceMs };
}

/** tickIndex places `t` on the schedule's grid: the tick it ran for (≥ 0 when on time). */
function tickIndex(s: StandingSchedule, t: number): number {
  return Math.floor((t - s.baseMs) / s.periodMs);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * startSlowAcceptServer: a child process that listens with a backlog of 1, does not accept for
 * `blockMs`, then accepts (and ends) every connection. With its backlog filled first, a dial's
 * SYN is dropped and retransmitted by the kernel after about 1 s, when it is accepted: a dial that
 * succeeds after about a second.
 */
async function startSlowAcceptServer(blockMs: number) {
  const script = `
    const net = require("node:net");
    const server = net.createServer((c) => c.end());
    server.listen({ host: "127.0.0.1", port: 0, backlog: 1 }, () => {
      process.stdout.write(server.address().port + "\\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${blockMs});
    });`;
  const spawned = await spawnNodeServer(["-e", script]);
  // A backlog of 1 admits up to two queued connections; a few more make sure it is full.
  const sockets = Array.from({ length: 4 }, () => connect({ host: "127.0.0.1", port: spawned.port }).on("error", () => undefined));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    port: spawned.port,
    async close() {
      for (const s of sockets) s.destroy();
      await spawned.close();
    },
  };
}

const nativeMissing = nativeSkipReason();

describe("standing tcpSocket probes on the native engine", { skip: nativeMissing }, () => {
  before(() => useProbeEngine("native"));

  test("dial on every tick of the grid (within the coalescing window) until end(), which reports the grid's next tick", async (t) => {
    const server = await startTcpServer();
    t.after(() => server.close());
    const schedule = grid(100, 50);
    const sink = new Recorder();
    const probe = standTcp({ host: "127.0.0.1", port: server.port }, { timeoutMs: 1000 }, schedule, sink);
    assert.ok(probe, "an IP target stands");
    await waitFor("five probes", () => sink.probes.length >= 5, 5000);
    probe.end();
    await waitFor("the end", () => sink.ended !== undefined, 5000);
    const ticks = sink.probes.map((p) => tickIndex(schedule, p.startMs));
    assert.deepEqual(ticks, ticks.map((_, i) => i + 1), "one probe per tick, from the first");
    for (const [i, p] of sink.probes.entries()) {
      const due = schedule.baseMs + (i + 1) * schedule.periodMs;
      assert.ok(p.startMs >= due, `probe ${i} started before its tick`);
      // Late by the coalescing window at most, plus what a loaded machine adds.
      assert.ok(p.startMs - due < 150, `probe ${i} started ${(p.startMs - due).toFixed(1)} ms after its tick`);
      assert.deepEqual(p.outcome, { result: "success", output: "" });
      assert.ok(p.endMs >= p.startMs);
    }
    const last = sink.probes.at(-1)!;
    assert.equal(sink.ended! > last.startMs, true);
    const k = (sink.ended! - schedule.baseMs) / schedule.periodMs;
    assert.ok(Math.abs(k - Math.round(k)) < 1e-6, "the next tick is on the grid");
    assert.equal(nativeEngine()!.standingCount(), 0);
    await server.waitForEnds(sink.probes.length, 2000);
    assert.equal(server.accepted, sink.probes.length, "a connection per probe");
    assert.ok(server.ends.every((end) => end === "fin"), "closed gracefully (FIN)");
  });

  test("a refused dial ends the standing probe at once, with probeTcp's text", async () => {
    const port = await closedPort();
    const sink = new Recorder();
    const schedule = grid(100, 10);
    assert.ok(standTcp({ host: "127.0.0.1", port }, { timeoutMs: 1000 }, schedule, sink));
    await waitFor("the end", () => sink.ended !== undefined, 5000);
    assert.equal(sink.probes.length, 1);
    const expected = await probeTcp({ host: "127.0.0.1", port }, { timeoutMs: 1000 });
    assert.deepEqual(sink.probes[0]!.outcome, expected);
    assert.equal(expected.output, `dial tcp 127.0.0.1:${port}: connect: connection refused`);
    assert.equal(tickIndex(schedule, sink.ended!), 2, "the tick after the failed one comes next");
  });

  test("a dial that outlasts its timeout fails with Go's i/o timeout text after the timeout", async (t) => {
    const blackhole = await startBlackholeServer();
    t.after(() => blackhole.close());
    await blackhole.fillBacklog();
    const sink = new Recorder();
    assert.ok(standTcp({ host: "127.0.0.1", port: blackhole.port }, { timeoutMs: 300 }, grid(1000, 0), sink));
    await waitFor("the end", () => sink.ended !== undefined, 5000);
    const [p] = sink.probes;
    assert.deepEqual(p!.outcome, { result: "failure", output: `dial tcp 127.0.0.1:${blackhole.port}: i/o timeout` });
    const took = p!.endMs - p!.startMs;
    assert.ok(took >= 299 && took < 800, `took ${took.toFixed(0)} ms`);
  });

  test("a dial longer than the period keeps one late tick, run at once, and drops the rest (Go's ticker)", async (t) => {
    const server = await startSlowAcceptServer(400);
    t.after(() => server.close());
    const schedule = grid(200, 0);
    const sink = new Recorder();
    const probe = standTcp({ host: "127.0.0.1", port: server.port }, { timeoutMs: 5000 }, schedule, sink);
    assert.ok(probe);
    await waitFor("three probes", () => sink.probes.length >= 3, 8000);
    probe.end();
    await waitFor("the end", () => sink.ended !== undefined, 8000);
    const [slow, late, next] = sink.probes;
    assert.ok(slow!.endMs - slow!.startMs > schedule.periodMs, `the first dial took ${(slow!.endMs - slow!.startMs).toFixed(0)} ms`);
    assert.equal(slow!.outcome.result, "success");
    assert.ok(late!.startMs - slow!.endMs < 150, "the kept tick runs as soon as the slow dial ends");
    // The ticks that fell due during the slow dial are dropped: the next runs on the grid after the late one.
    const dueNext = schedule.baseMs + (Math.floor((slow!.endMs - schedule.baseMs) / schedule.periodMs) + 1) * schedule.periodMs;
    assert.ok(next!.startMs >= dueNext && next!.startMs - dueNext < 150, `the next probe ran ${(next!.startMs - dueNext).toFixed(1)} ms after its tick`);
  });

  test("end() during a dial reports that dial, then the end", async (t) => {
    const server = await startSlowAcceptServer(300);
    t.after(() => server.close());
    const sink = new Recorder();
    const probe = standTcp({ host: "127.0.0.1", port: server.port }, { timeoutMs: 5000 }, grid(10_000, 0), sink);
    assert.ok(probe);
    await new Promise((resolve) => setTimeout(resolve, 100));
    probe.end();
    probe.end(); // idempotent
    await waitFor("the end", () => sink.ended !== undefined, 8000);
    assert.equal(sink.probes.length, 1);
    assert.deepEqual(sink.probes[0]!.outcome, { result: "success", output: "" });
    assert.equal(nativeEngine()!.standingCount(), 0);
  });

  test("end() keeps the event loop alive until the end arrives, even with nothing else left to run", async (t) => {
    const blackhole = await startBlackholeServer();
    t.after(() => blackhole.close());
    await blackhole.fillBacklog();
    // In a child whose only work is the standing probe: its dial hangs until the 1 s timeout, and
    // end() during it must keep the process alive until the dial's failure and the end arrive.
    const url = (name: string): string => JSON.stringify(new URL(name, import.meta.url).href);
    const script = `
      import { useProbeEngine } from ${url("./probe-engine.js")};
      import { standTcp } from ${url("./tcp-standing.js")};
      useProbeEngine("native");
      const seen = [];
      const base = performance.now() - 1000;
      const probe = standTcp({ host: "127.0.0.1", port: ${blackhole.port} }, { timeoutMs: 1000 }, { baseMs: base, periodMs: 1000, nextMs: base + 1000, coalesceMs: 0 }, {
        onStandingProbe: (outcome) => seen.push(outcome.output),
        onStandingEnded: () => process.stdout.write(JSON.stringify(seen)),
      });
      setTimeout(() => probe.end(), 100);`;
    const { execFile } = await import("node:child_process");
    const out = await new Promise<{ failed: boolean; stdout: string }>((resolve) => {
      execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 20_000 }, (err, stdout) => resolve({ failed: err !== null, stdout }));
    });
    assert.deepEqual(out, { failed: false, stdout: JSON.stringify([`dial tcp 127.0.0.1:${blackhole.port}: i/o timeout`]) });
  });

  test("names, undialable ports and probes with a signal do not stand", () => {
    const sink = new Recorder();
    assert.equal(standTcp({ host: "localhost", port: 80 }, { timeoutMs: 1000 }, grid(1000, 0), sink), undefined);
    assert.equal(standTcp({ host: "127.0.0.1", port: 0 }, { timeoutMs: 1000 }, grid(1000, 0), sink), undefined);
    assert.equal(standTcp({ host: "127.0.0.1", port: 70000 }, { timeoutMs: 1000 }, grid(1000, 0), sink), undefined);
    assert.equal(standTcp({ host: "127.0.0.1", port: 80 }, { timeoutMs: 1000, signal: new AbortController().signal }, grid(1000, 0), sink), undefined);
  });
});

describe("standing tcpSocket probes on the JS engine", () => {
  test("never stand: the JS engine probes every tick itself", () => {
    useProbeEngine("js");
    try {
      const schedule = grid(1000, 0);
      assert.equal(standTcp({ host: "127.0.0.1", port: 80 }, { timeoutMs: 1000 }, schedule, new Recorder()), undefined);
    } finally {
      if (!nativeMissing) useProbeEngine("native");
    }
  });
});
