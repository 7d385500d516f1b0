// What the worst server-side apply requests cost a real agent: `probelet run` (process runtime,
// no pods) gets each request on its Unix socket with its token, and for each the table gives the
// wall time, the agent's CPU time (/proc/PID/stat), the agent's peak RSS above its RSS before the
// request (VmHWM after clearing it through /proc/PID/clear_refs) and the answer. Cases: 3 MiB of
// malformed apply bodies (YAML, and JSON-looking), 1 MiB of malformed YAML, and a ConfigMap of
// 60,000 keys applied as JSON (created, applied again, applied by a second manager: the 409, then
// forced) and as YAML (refused by the token budget). Prints a Markdown table (docs/security.md).
//
//   npm run build && npm run bench:apply
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MAX_INPUT_BYTES, MAX_YAML_INPUT_BYTES } from "../src/api/bounded-parse.js";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const CONFIGMAP_PATH = "/api/v1/namespaces/default/configmaps/big";
/** Bound on the whole run. */
const DEADLINE_MS = 300_000;

interface Case {
  name: string;
  manager: string;
  force?: boolean;
  body: () => string;
}

const fill = (limit: number, unit: string, head = ""): string => head + unit.repeat(Math.floor((limit - head.length) / unit.length));
const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `k${i}`);
const configMapJson = (value: string): string => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data: Object.fromEntries(keys(60_000).map((k, i) => [k, `${value}${i}`])) });
const configMapYaml = (): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${keys(60_000).map((k) => `  ${k}: v\n`).join("")}`;

const CASES: Case[] = [
  { name: "3 MiB malformed YAML (tab-indented unclosed flow lines)", manager: "a", body: () => fill(MAX_INPUT_BYTES, "\tkey: [1, 2\n") },
  { name: "3 MiB malformed JSON-looking body (`{` then the same lines)", manager: "a", body: () => fill(MAX_INPUT_BYTES, "\tkey: [1, 2\n", "{") },
  { name: "1 MiB malformed YAML (within the YAML limit)", manager: "a", body: () => fill(MAX_YAML_INPUT_BYTES, "\tkey: [1, 2\n") },
  { name: "ConfigMap of 60,000 keys as YAML", manager: "a", body: configMapYaml },
  { name: "ConfigMap of 60,000 keys as JSON: created", manager: "a", body: () => configMapJson("v") },
  { name: "the same apply again (no change)", manager: "a", body: () => configMapJson("v") },
  { name: "another manager changes all 60,000 values: the 409", manager: "b", body: () => configMapJson("w") },
  { name: "the same, forced (takes the 60,000 fields)", manager: "b", force: true, body: () => configMapJson("w") },
];

interface Answer {
  status: number;
  bytes: number;
  text: string;
}

function apply(socketPath: string, token: string, item: Case, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const query = `?fieldManager=${item.manager}${item.force === true ? "&force=true" : ""}`;
    const req = request({ socketPath, path: CONFIGMAP_PATH + query, method: "PATCH", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/apply-patch+yaml" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, bytes: Buffer.byteLength(text), text });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function procFigures(pid: number): Promise<{ cpuMs: number; rssKb: number; hwmKb: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, "latin1")).split(") ")[1]!.split(" ");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
  return { cpuMs: ((Number(stat[11]) + Number(stat[12])) * 1000) / 100, rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
}

function outcome(answer: Answer): string {
  let message = "";
  try {
    message = String((JSON.parse(answer.text) as { message?: unknown }).message ?? "");
  } catch {
    message = "";
  }
  const short = message.length > 90 ? `${message.slice(0, 90)}…` : message;
  return `${answer.status}${short === "" ? "" : `: ${short.replace(/\|/g, "\\|").replace(/\n/g, " ")}`}`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-apply-bench-"));
  const stateDir = join(dir, "state");
  const manifests = join(dir, "manifests");
  await mkdir(manifests);
  const agent = spawn(process.execPath, ["--max-semi-space-size=2", CLI, "run", "-q", "--manifests", manifests, "--listen", "127.0.0.1:0", "--state-dir", stateDir], { stdio: ["ignore", "pipe", "inherit"] });
  const deadline = setTimeout(() => {
    agent.kill("SIGKILL");
    process.exit(2);
  }, DEADLINE_MS);
  try {
    let out = "";
    agent.stdout.on("data", (c: Buffer) => (out += c.toString()));
    for (let i = 0; i < 200 && !out.includes("agent running"); i++) await new Promise((r) => setTimeout(r, 100));
    if (!out.includes("agent running")) throw new Error(`the agent did not start: ${out}`);
    const token = (await readFile(join(stateDir, "agent-token"), "utf8")).trim();
    const socketPath = join(stateDir, "agent.sock");
    console.log("| request | body bytes | wall ms | agent CPU ms | agent peak RSS above before, MB | answer bytes | answer |");
    console.log("|---|---:|---:|---:|---:|---:|---|");
    for (const item of CASES) {
      const body = item.body();
      await writeFile(`/proc/${agent.pid}/clear_refs`, "5");
      const before = await procFigures(agent.pid!);
      const started = performance.now();
      const answer = await apply(socketPath, token, item, body);
      const wall = performance.now() - started;
      const after = await procFigures(agent.pid!);
      const peak = (after.hwmKb - before.rssKb) / 1024;
      console.log(`| ${item.name} | ${Buffer.byteLength(body)} | ${Math.round(wall)} | ${Math.round(after.cpuMs - before.cpuMs)} | ${Math.max(0, Math.round(peak))} | ${answer.bytes} | ${outcome(answer)} |`);
    }
  } finally {
    clearTimeout(deadline);
    const exited = new Promise((r) => agent.once("exit", r));
    agent.kill("SIGINT");
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
