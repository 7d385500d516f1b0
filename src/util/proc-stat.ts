// One reader of /proc/<pid>/stat (proc(5)) for the process runtime's reaper, the tests and the
// benchmarks. The command name (field 2) is in parentheses and may itself hold spaces and
// parentheses, so fields are counted from the last ')'.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** ProcStatFields gives one stat line's fields by their proc(5) numbers (3 = state, 22 = starttime). */
export interface ProcStatFields {
  /** text returns field n as written ("" when absent; fields 1 and 2 are not kept). */
  text(n: number): string;
  /** num returns field n as a number (NaN when absent). */
  num(n: number): number;
}

/** parseProcStat splits a /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat) line into fields. */
export function parseProcStat(line: string): ProcStatFields {
  const rest = line.slice(line.lastIndexOf(")") + 2).split(" ");
  const text = (n: number): string => rest[n - 3] ?? "";
  return { text, num: (n) => (text(n) === "" ? Number.NaN : Number(text(n))) };
}

/** readProcStatSync reads and parses a stat file; undefined once the process or thread is gone. */
export function readProcStatSync(path: string): ProcStatFields | undefined {
  try {
    return parseProcStat(readFileSync(path, "latin1"));
  } catch {
    return undefined;
  }
}

/** readProcStat is readProcStatSync without blocking the event loop. */
export async function readProcStat(path: string): Promise<ProcStatFields | undefined> {
  try {
    return parseProcStat(await readFile(path, "latin1"));
  } catch {
    return undefined;
  }
}
