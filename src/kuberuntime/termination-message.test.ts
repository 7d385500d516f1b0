import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { formatCriLogLine } from "../runtime/log-format.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import {
  ANNOTATION_TERMINATION_MESSAGE_PATH,
  ANNOTATION_TERMINATION_MESSAGE_POLICY,
  readLastStringFromContainerLogs,
  readTerminationMessageFile,
  terminationMessageHostPath,
  truncateTerminationMessages,
  withTerminationMessage,
} from "./termination-message.js";

const TS = "2026-11-25T12:00:00.000000000Z";

async function scratch(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-termination-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function exited(logPath: string, over: Partial<ContainerInfo> = {}, policy = "File"): ContainerInfo {
  return {
    id: "c1", podSandboxId: "s1", name: "app", attempt: 0, state: "exited", image: "", createdAt: 1, startedAt: 1, finishedAt: 2,
    exitCode: 1, reason: "Error", message: "", labels: {},
    annotations: { [ANNOTATION_TERMINATION_MESSAGE_PATH]: "/dev/termination-log", [ANNOTATION_TERMINATION_MESSAGE_POLICY]: policy },
    logPath, ...over,
  };
}

test("termination message file: only its last 4096 bytes are read (kubelet tail.ReadAtMost of MaxContainerTerminationMessageLength)", async (t) => {
  const dir = await scratch(t);
  const file = join(dir, "msg");
  await writeFile(file, `${"a".repeat(1000)}${"b".repeat(4096)}`);
  const { message, checkLogs } = readTerminationMessageFile(file, true);
  assert.equal(message, "b".repeat(4096));
  assert.equal(checkLogs, false);
});

test("termination message file: a missing file is no message and lets the logs be read; an unreadable one is the message", async (t) => {
  const dir = await scratch(t);
  assert.deepEqual(readTerminationMessageFile(join(dir, "none"), true), { message: "", checkLogs: true });
  assert.deepEqual(readTerminationMessageFile(join(dir, "none"), false), { message: "", checkLogs: false });
  const file = join(dir, "locked");
  await writeFile(file, "secret");
  await chmod(file, 0o000);
  if (process.getuid?.() === 0) return; // root reads it anyway
  const { message, checkLogs } = readTerminationMessageFile(file, true);
  assert.equal(message, `Error on reading termination log ${file}: open ${file}: permission denied`);
  assert.equal(checkLogs, false);
});

test("log fallback: the last 80 lines of the log, partial lines joined, then the last 2048 bytes", async (t) => {
  const dir = await scratch(t);
  const log = join(dir, "0.log");
  const lines = Array.from({ length: 100 }, (_, i) => formatCriLogLine(TS, i % 2 ? "stderr" : "stdout", "F", `line ${i}`));
  await writeFile(log, Buffer.concat([...lines, formatCriLogLine(TS, "stdout", "P", "no newline")]));
  const text = readLastStringFromContainerLogs(log);
  assert.ok(text.startsWith("line 21\n"), text.slice(0, 20));
  assert.ok(text.endsWith("line 99\nno newline"));
  const long = Array.from({ length: 60 }, (_, i) => formatCriLogLine(TS, "stdout", "F", `${String(i).padStart(2, "0")}${"x".repeat(98)}`));
  await writeFile(log, Buffer.concat(long));
  const capped = readLastStringFromContainerLogs(log);
  assert.equal(Buffer.byteLength(capped), 2048);
  assert.ok(capped.endsWith(`59${"x".repeat(98)}\n`));
});

test("withTerminationMessage: the file's message is appended to the runtime's message with ': '", async (t) => {
  const dir = await scratch(t);
  const log = join(dir, "0.log");
  await writeFile(terminationMessageHostPath(log), "from file");
  assert.equal((withTerminationMessage(exited(log))).message, "from file");
  assert.equal((withTerminationMessage(exited(log, { message: "runtime said" }))).message, "runtime said: from file");
});

test("withTerminationMessage: FallbackToLogsOnError reads the log only after a failure with an empty file, never for ContainerCannotRun", async (t) => {
  const dir = await scratch(t);
  const log = join(dir, "0.log");
  await writeFile(log, formatCriLogLine(TS, "stdout", "P", "DONE"));
  await writeFile(terminationMessageHostPath(log), "");
  assert.equal((withTerminationMessage(exited(log, {}, "FallbackToLogsOnError"))).message, "DONE");
  assert.equal((withTerminationMessage(exited(log, { exitCode: 0, reason: "Completed" }, "FallbackToLogsOnError"))).message, "");
  assert.equal((withTerminationMessage(exited(log, { exitCode: 128, reason: "ContainerCannotRun" }, "FallbackToLogsOnError"))).message, "");
  assert.equal((withTerminationMessage(exited(log, {}, "File"))).message, "", "policy File never reads the log");
  const running = { ...exited(log, {}, "FallbackToLogsOnError"), state: "running" as const };
  assert.equal((withTerminationMessage(running)).message, "", "only exited instances get a message");
});

test("truncateTerminationMessages: a pod's messages share 12 KiB evenly per container (kubelet normalizeStatus)", () => {
  const statuses = [
    { state: { terminated: { message: "a".repeat(5000) } } },
    { lastState: { terminated: { message: "b".repeat(3000) } } },
    { state: { terminated: { message: "c".repeat(100) } } },
  ];
  truncateTerminationMessages(3, statuses);
  assert.equal(statuses[0]!.state!.terminated.message.length, 4096);
  assert.equal(statuses[1]!.lastState!.terminated.message.length, 3000);
  assert.equal(statuses[2]!.state!.terminated.message.length, 100);
  const many = [{ state: { terminated: { message: "d".repeat(1000) } } }];
  truncateTerminationMessages(16, many);
  assert.equal(many[0]!.state.terminated.message.length, 768);
});
