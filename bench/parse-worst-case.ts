// The worst inputs we can build for the bounded manifest parser (src/api/bounded-parse.ts), each
// at or just under its input limit (1 MiB for YAML, 3 MiB for JSON; and one YAML text of 3 MiB,
// which is refused unparsed), parsed once per case in a fresh child process so the
// peak-RSS figure belongs to that case alone. Prints a Markdown table: time of parseBounded, the
// peak RSS above the process's RSS before parsing, and how the parse ended.
//
//   npm run build && npm run bench:parse
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MAX_INPUT_BYTES, MAX_YAML_INPUT_BYTES, parseBounded, type InputFormat } from "../src/api/bounded-parse.js";

interface WorstCase {
  name: string;
  format: InputFormat;
  build: () => string;
}

// fill repeats `unit` to just under `limit` bytes (units are ASCII, so characters are bytes).
function fill(limit: number, unit: string, head = "", tail = ""): string {
  const room = limit - head.length - tail.length;
  return head + unit.repeat(Math.floor(room / unit.length)) + tail;
}

const yaml = (unit: string, head = "", tail = ""): string => fill(MAX_YAML_INPUT_BYTES, unit, head, tail);
const json = (unit: string, head = "", tail = ""): string => fill(MAX_INPUT_BYTES, unit, head, tail);

// A billion-laughs stream: 9 levels, each a list of 9 aliases to the level before.
function aliasBomb(): string {
  const lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let level = 1; level <= 9; level++) lines.push(`l${level}: &l${level} [${Array.from({ length: 9 }, () => `*l${level - 1}`).join(", ")}]`);
  return `${lines.join("\n")}\n`;
}

function deepBlockYaml(): string {
  const lines: string[] = [];
  let size = 0;
  for (let depth = 0; size < MAX_YAML_INPUT_BYTES - 2048; depth++) {
    const line = `${" ".repeat(depth)}k:\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

function manyJsonKeys(): string {
  const pairs: string[] = [];
  let size = 2;
  for (let i = 0; size < MAX_INPUT_BYTES - 32; i++) {
    const pair = `"k${i}":0`;
    pairs.push(pair);
    size += pair.length + 1;
  }
  return `{${pairs.join(",")}}`;
}

const CASES: readonly WorstCase[] = [
  { name: "YAML of 3 MiB (over the 1 MiB YAML limit)", format: "yaml", build: () => fill(MAX_INPUT_BYTES, "\tkey: [1, 2\n") },
  { name: "malformed YAML: tab-indented unclosed flow lines", format: "yaml", build: () => yaml("\tkey: [1, 2\n") },
  { name: "malformed YAML: bad indentation on every line", format: "yaml", build: () => yaml("a:\n  b: 1\n c: 2\n") },
  { name: "malformed YAML: one unclosed flow sequence", format: "yaml", build: () => yaml("x, ", "a: [") },
  { name: "deep YAML flow [[[[…", format: "yaml", build: () => yaml("[") },
  { name: "deep YAML block maps", format: "yaml", build: deepBlockYaml },
  { name: "deep YAML block sequences - - - …", format: "yaml", build: () => yaml("- ") },
  { name: "YAML alias bomb (9 levels × 9)", format: "yaml", build: aliasBomb },
  { name: "many small YAML documents", format: "yaml", build: () => yaml("---\na: 1\n") },
  { name: "many YAML keys", format: "yaml", build: () => yaml("k: 1\n") },
  { name: "YAML map just under the token budget (accepted)", format: "yaml", build: () => Array.from({ length: 14_000 }, (_, i) => `k${i}: 1\n`).join("") },
  { name: "YAML plain scalar on one line", format: "yaml", build: () => yaml("x", "a: ", "\n") },
  { name: "YAML plain scalar over many lines", format: "yaml", build: () => yaml("xxxxxxx\n  ", "a: ", "\n") },
  { name: "YAML single-quoted scalar of '' escapes", format: "yaml", build: () => yaml("x''", "a: '", "'\n") },
  { name: "YAML double-quoted scalar on one line", format: "yaml", build: () => yaml("x", 'a: "', '"\n') },
  { name: "YAML double-quoted scalar of \\n escapes", format: "yaml", build: () => yaml("\\n", 'a: "', '"\n') },
  { name: "YAML double-quoted scalar over many lines", format: "yaml", build: () => yaml("xxxxxxx\n  ", 'a: "', '"\n') },
  { name: "YAML literal block scalar", format: "yaml", build: () => yaml("  xxxxxxx\n", "a: |\n") },
  { name: "YAML folded block scalar", format: "yaml", build: () => yaml("  xxxxxxx\n", "a: >\n") },
  { name: "deep JSON [[[[…", format: "json", build: () => json("[") },
  { name: "JSON many distinct keys", format: "json", build: manyJsonKeys },
  { name: "JSON long array of numbers", format: "json", build: () => json("0,", "[", "0]") },
  { name: "JSON array just under the value budget (accepted)", format: "json", build: () => `[${"0,".repeat(199_998)}0]` },
  { name: "JSON single 3 MiB string", format: "json", build: () => json("x", '"', '"') },
  { name: "JSON 3 MiB string of \\n escapes", format: "json", build: () => json("\\n", '"', '"') },
  { name: "malformed JSON at the very end", format: "json", build: () => json("x", '{"a":"', '",}') },
];

function runCase(index: number): void {
  const c = CASES[index];
  if (c === undefined) throw new Error(`no case ${index}`);
  const text = c.build();
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const result = parseBounded(text, c.format, "bench");
  const ms = performance.now() - start;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const outcome = result.ok ? `ok, ${result.documents.length} documents` : `${result.reason}: ${(result.errors[0] ?? "").slice(0, 70)}`;
  process.stdout.write(`${JSON.stringify({ bytes: Buffer.byteLength(text), ms, rssMB: Math.max(0, peakRss - rssBefore) / 2 ** 20, outcome })}\n`);
}

function main(): void {
  const caseArg = process.argv[2];
  if (caseArg !== undefined) {
    runCase(Number(caseArg));
    return;
  }
  const self = fileURLToPath(import.meta.url);
  process.stdout.write("| input | bytes | parse ms | peak RSS delta MB | outcome |\n|---|---:|---:|---:|---|\n");
  CASES.forEach((c, i) => {
    const child = spawnSync(process.execPath, ["--expose-gc", self, String(i)], { encoding: "utf8", timeout: 120_000 });
    const line = child.stdout.trim().split("\n").pop() ?? "";
    if (child.status !== 0 || line === "") {
      process.stdout.write(`| ${c.name} | | | | child failed: ${child.error?.message ?? child.stderr.trim().split("\n").pop() ?? ""} |\n`);
      return;
    }
    const r = JSON.parse(line) as { bytes: number; ms: number; rssMB: number; outcome: string };
    process.stdout.write(`| ${c.name} | ${r.bytes} | ${r.ms.toFixed(0)} | ${r.rssMB.toFixed(0)} | ${r.outcome.replace(/\|/g, "\\|")} |\n`);
  });
}

main();
