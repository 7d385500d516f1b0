// The supervisor (native/supervisor.c) and the agent's own writer (cri-line-splitter.ts) must cut
// the same output into the same CRI entries, whatever the chunking.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parseCriLogLine } from "../log-format.js";
import { CriLineSplitter } from "./cri-line-splitter.js";
import { defaultSupervisorPath, supervisorAvailable } from "./supervised-process.js";
import { encodeSupervisorSpec, parseExitRecord, parseSupervisorReply } from "./supervisor-protocol.js";
import { seededRandom } from "../../util/seeded-random.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-supervisor-log-"));
after(() => rm(dir, { recursive: true, force: true }));
const skip = (await supervisorAvailable()) ? false : "the supervisor helper is not built (no C compiler)";

/** output builds bytes rich in the splitter's edge cases: CR before LF, lone CRs, lines around maxLen. */
function output(seed: number, size: number): Buffer {
  const random = seededRandom(seed);
  const alphabet = [0x61, 0x62, 0x0d, 0x0a, 0x61, 0x61, 0x0d];
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = alphabet[Math.floor(random() * alphabet.length)]!;
  return bytes;
}

function expectedEntries(bytes: Buffer, maxLen: number): string[] {
  const splitter = new CriLineSplitter(maxLen);
  const out: string[] = [];
  const emit = (tag: string, content: Buffer): void => void out.push(`${tag} ${JSON.stringify(content.toString("latin1"))}`);
  splitter.push(bytes, emit);
  splitter.end(emit);
  return out;
}

async function supervisedEntries(name: string, bytes: Buffer, maxLen: number): Promise<{ entries: string[]; exitCode: number | undefined }> {
  const input = join(dir, `${name}.in`);
  const logPath = join(dir, `${name}.log`);
  const statePath = join(dir, `${name}.exit`);
  await writeFile(input, bytes);
  const spec = encodeSupervisorSpec({ launch: { file: "/bin/cat", argv: ["cat", input], env: {}, cwd: dir }, logPath, statePath, maxLineSize: maxLen });
  const child = spawn(defaultSupervisorPath(), [], { stdio: ["pipe", "pipe", "ignore"] });
  let reply = "";
  child.stdout.on("data", (d: Buffer) => (reply += d.toString()));
  child.stdin.end(spec);
  await new Promise((r) => child.once("exit", r));
  assert.equal(parseSupervisorReply(reply).kind, "started");
  const log = await readFile(logPath);
  const entries: string[] = [];
  let start = 0;
  for (let nl = log.indexOf(0x0a); nl >= 0; start = nl + 1, nl = log.indexOf(0x0a, start)) {
    const entry = parseCriLogLine(log.subarray(start, nl));
    assert.equal(entry.stream, "stdout");
    entries.push(`${entry.tag} ${JSON.stringify(entry.content.toString("latin1"))}`);
  }
  assert.equal(start, log.length, "every entry ends with a newline");
  return { entries, exitCode: parseExitRecord(await readFile(statePath, "utf8"))?.exitCode };
}

test("the supervisor cuts output into the same CRI entries as CriLineSplitter (CR/LF, lines around the size limit, an unfinished last line)", { skip }, async () => {
  for (const [seed, size, maxLen] of [
    [1, 4000, 5],
    [2, 20000, 1],
    [3, 300000, 7],
    [4, 1000, 64],
  ] as const) {
    const bytes = output(seed, size);
    const { entries, exitCode } = await supervisedEntries(`case-${seed}`, bytes, maxLen);
    assert.deepEqual(entries, expectedEntries(bytes, maxLen), `seed ${seed}, maxLen ${maxLen}`);
    assert.equal(exitCode, 0);
  }
});
