import assert from "node:assert/strict";
import { test } from "node:test";
import { parseProcStat, readProcStat, readProcStatSync } from "./proc-stat.js";

test("parseProcStat counts fields after the last ')' so a command with spaces and parentheses is safe", () => {
  const cases: Array<{ name: string; line: string; state: string; pgrp: number; starttime: number }> = [
    { name: "plain", line: "42 (sleep) S 1 42 42 0 -1 4194304 1 2 3 4 5 6 7 8 20 0 1 0 987 0 0", state: "S", pgrp: 42, starttime: 987 },
    { name: "spaces and parens", line: "7 (a (b) c) Z 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0", state: "Z", pgrp: 9, starttime: 55 },
  ];
  for (const c of cases) {
    const f = parseProcStat(c.line);
    assert.equal(f.text(3), c.state, c.name);
    assert.equal(f.num(5), c.pgrp, c.name);
    assert.equal(f.num(22), c.starttime, c.name);
    assert.ok(Number.isNaN(f.num(99)), c.name);
    assert.equal(f.text(99), "", c.name);
  }
});

test("readProcStat reads this process and gives undefined for one that does not exist", async () => {
  assert.equal(readProcStatSync("/proc/self/stat")?.num(4), process.ppid);
  assert.match((await readProcStat(`/proc/${process.pid}/stat`))?.text(3) ?? "", /^[RS]$/);
  assert.equal(readProcStatSync("/proc/0/stat"), undefined);
  assert.equal(await readProcStat("/proc/0/stat"), undefined);
});
