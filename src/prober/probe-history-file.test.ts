import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { createLogger } from "../util/logger.js";
import { ProbeHistory, RECENT_ENTRIES, type ProbeHistoryEntry } from "./probe-history.js";
import { HISTORY_DIR, ProbeHistoryFiles } from "./probe-history-file.js";

const UID = "pod-uid-1";

function entry(clock: FakeClock, result: ProbeHistoryEntry["result"], run: number, output = ""): ProbeHistoryEntry {
  return { time: new Date(clock.now()).toISOString(), container: "app", probeType: "liveness", containerID: "process://1", result, output, latencyMs: 2.5, run, threshold: 3 };
}

async function stateDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-history-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** store builds a history with its files, recording what the files log. */
function store(dir: string, clock: FakeClock, options: { windowMs?: number; maxFileBytes?: number; recentLength?: number; flushIntervalMs?: number } = {}) {
  const log: string[] = [];
  const windowMs = options.windowMs ?? 24 * 3600_000;
  const files = new ProbeHistoryFiles({ stateDir: dir, clock, logger: createLogger({ write: (l) => log.push(l), level: "warn" }), windowMs, flushIntervalMs: options.flushIntervalMs ?? 10_000, ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}) });
  const history = new ProbeHistory({ windowMs, sink: files, ...(options.recentLength ? { recentLength: options.recentLength } : {}) });
  return { files, history, log };
}

/** probe records one entry through the history and its sink, as the probe manager's hook does. */
function probe(s: ReturnType<typeof store>, e: ProbeHistoryEntry): void {
  s.history.addEntry(UID, e);
  s.files.append(UID, { container: e.container, probeType: e.probeType }, e);
}

test("probe history survives a restart: a new store loads the same entries and segments from the state directory", async (t) => {
  const dir = await stateDir(t);
  const clock = new FakeClock();
  const first = store(dir, clock, { recentLength: 5 });
  for (let i = 0; i < 40; i++) {
    probe(first, entry(clock, i % 20 < 17 ? "Success" : "Failure", (i % 20) + 1, `probe ${i}`));
    await clock.advance(1000);
  }
  await first.files.flush();
  const before = first.history.query(UID, {});
  const second = store(dir, clock, { recentLength: 5 });
  await second.files.load(second.history);
  const after = second.history.query(UID, {});
  const covered = (r: typeof before) => r.items.length + r.segments.reduce((n, s) => n + s.count, 0);
  assert.equal(covered(before), 40);
  assert.equal(covered(after), 40, "every probe is in an entry or a segment after the restart");
  assert.deepEqual(after.items.at(-1), before.items.at(-1), "the newest probe is whole, for describe and explain");
  assert.deepEqual(second.log, []);
});

test("probe history keeps only its window: older segments and entries are dropped, old files removed at load", async (t) => {
  const dir = await stateDir(t);
  const clock = new FakeClock();
  const s = store(dir, clock, { windowMs: 60_000, recentLength: 3 });
  for (let i = 0; i < 200; i++) {
    probe(s, entry(clock, i % 2 === 0 ? "Success" : "Failure", 1));
    await clock.advance(1000);
  }
  const range = s.history.query(UID, {});
  const oldest = Math.min(...range.items.map((e) => Date.parse(e.time)), ...range.segments.map((x) => Date.parse(x.end)));
  assert.ok(clock.now() - oldest <= 61_000, `the oldest kept probe is ${clock.now() - oldest} ms old`);
  await s.files.flush();
  await clock.advance(120_000);
  // The files' mtime is real time: age them past the window by loading with a clock far ahead.
  const later = new FakeClock(Date.now() + 120_000);
  const reloaded = store(dir, later, { windowMs: 60_000 });
  await reloaded.files.load(reloaded.history);
  assert.deepEqual(reloaded.history.query(UID, {}), { items: [], segments: [] });
  assert.deepEqual(await readdir(join(dir, HISTORY_DIR)), []);
});

test("probe history is bounded: six hours of one result at 1 s are 5-minute segments, and each file stays under its cap", async (t) => {
  const dir = await stateDir(t);
  const clock = new FakeClock();
  const s = store(dir, clock, { maxFileBytes: 64 * 1024, flushIntervalMs: 300_000 });
  for (let i = 0; i < 6 * 3600; i++) {
    probe(s, entry(clock, "Success", i + 1, "ok"));
    await clock.advance(1000);
  }
  await s.files.flush();
  const range = s.history.query(UID, {});
  assert.equal(range.items.length, RECENT_ENTRIES);
  assert.ok(range.segments.length <= 6 * 12 + 1, `${range.segments.length} segments`);
  for (const name of await readdir(join(dir, HISTORY_DIR))) {
    const size = (await stat(join(dir, HISTORY_DIR, name))).size;
    assert.ok(size <= 64 * 1024, `${name} is ${size} bytes`);
  }
});

test("a corrupt or other-version history file starts an empty history and says so in the log", async (t) => {
  for (const [what, text] of [
    ["another version", `{"probeHistory":99,"uid":"${UID}"}\n`],
    ["a torn line", `{"probeHistory":1,"uid":"${UID}"}\n{"e":{"time":"2026-01-01T00:00:00Z"`],
    ["not JSON", "\u0000\u0001garbage\n"],
  ] as const) {
    const dir = await stateDir(t);
    const clock = new FakeClock(Date.now());
    const first = store(dir, clock);
    probe(first, entry(clock, "Failure", 1, "first"));
    await first.files.flush();
    const [name] = await readdir(join(dir, HISTORY_DIR));
    assert.ok(name);
    await writeFile(join(dir, HISTORY_DIR, name), text);
    const second = store(dir, clock);
    await second.files.load(second.history);
    assert.deepEqual(second.history.query(UID, {}), { items: [], segments: [] }, what);
    assert.equal(second.log.length, 1, what);
    assert.match(second.log[0] ?? "", /empty probe history/, what);
    assert.deepEqual(await readdir(join(dir, HISTORY_DIR)), [], `${what}: the bad file is removed`);
  }
});

test("forgetting a deleted pod removes its history files; an agent shutdown keeps them", async (t) => {
  const dir = await stateDir(t);
  const clock = new FakeClock();
  const s = store(dir, clock);
  probe(s, entry(clock, "Success", 1));
  await s.files.flush();
  s.history.forget(UID, true);
  await s.files.flush();
  assert.equal((await readdir(join(dir, HISTORY_DIR))).length, 1);
  s.history.forget(UID);
  await s.files.flush();
  assert.deepEqual(await readdir(join(dir, HISTORY_DIR)), []);
});
