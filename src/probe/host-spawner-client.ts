// The client of the long-lived C spawner helper (native/spawner.c, built to
// build/probelet-spawner). Every host command is one length-prefixed request over the helper's
// stdin and one response over its stdout; many requests are in flight at once. The helper
// does the posix_spawn (vfork-cheap, like the Go kubelet), the polling, the timeout, the group
// kill and the reaping, so a command costs Node one pipe write and one read.
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import type { Logger } from "../util/logger.js";
import { chdirErrorFor, errnoName, execErrorFor, HostSpawnError, type HostBackend, type HostCommand, type HostOutcome } from "./host-command.js";

const OP_RUN = 1;
const OP_KILL = 2;
const ST_EXITED = 0;
const ST_TIMEOUT = 1;
const ST_ABORTED = 2;
const ST_SPAWN_ERR = 3;
const ST_CWD_ERR = 4;
const MAX_U32 = 0xffff_ffff;

interface Pending {
  command: HostCommand;
  resolve: (outcome: HostOutcome) => void;
  reject: (err: Error) => void;
  onAbort?: () => void;
}

/**
 * SpawnerHelperBackend multiplexes host commands over one helper process. The helper is
 * started on first use and restarted on the next command if it dies; commands in flight when
 * it dies reject with a clear error (their outcome is unknown). `onCrash` lets the owner give
 * up on the helper after repeated crashes.
 */
export class SpawnerHelperBackend implements HostBackend {
  private helper: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private inbox: Buffer = Buffer.alloc(0);
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly binaryPath: string,
    private readonly logger: Logger,
    private readonly onCrash: (error: Error) => void = () => undefined,
  ) {}

  run(command: HostCommand): Promise<HostOutcome> {
    return new Promise((resolve, reject) => {
      if (command.signal?.aborted) {
        resolve({ kind: "aborted", stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) });
        return;
      }
      const helper = this.helper ?? this.start();
      const id = this.nextId;
      this.nextId = this.nextId >= MAX_U32 ? 1 : this.nextId + 1;
      const entry: Pending = { command, resolve, reject };
      if (command.signal) {
        entry.onAbort = () => helper.stdin?.write(frame(OP_KILL, id, []));
        command.signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.pending.set(id, entry);
      if (this.pending.size === 1) this.setRef(true);
      helper.stdin?.write(encodeRun(id, command));
    });
  }

  /** close ends the helper's stdin; the helper kills what still runs, reaps it and exits. */
  async close(): Promise<void> {
    const helper = this.helper;
    this.failAll(new Error("host command runner closed while the command was running"));
    this.helper = undefined;
    if (helper) {
      helper.ref(); // stay alive until the helper is reaped
      helper.stdin?.end();
      await this.exited;
    }
  }

  private start(): ChildProcess {
    const helper = spawn(this.binaryPath, [], { stdio: ["pipe", "pipe", "inherit"] });
    this.helper = helper;
    this.inbox = Buffer.alloc(0);
    this.exited = new Promise((resolve) => helper.once("close", () => resolve()));
    helper.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
    helper.stdin?.on("error", () => undefined); // EPIPE when the helper died; "exit" reports it
    const onGone = (reason: string): void => {
      if (this.helper !== helper) return;
      this.helper = undefined;
      const error = new Error(`exec spawner helper ${reason}; the command's outcome is unknown`);
      this.logger.warn("exec spawner helper died", { reason, inFlight: this.pending.size });
      this.failAll(error);
      this.onCrash(error);
    };
    helper.once("error", (err) => onGone(`failed: ${err.message}`));
    helper.once("exit", (code, signal) => onGone(`exited unexpectedly (code ${code ?? "none"}, signal ${signal ?? "none"})`));
    return helper;
  }

  private receive(chunk: Buffer): void {
    this.inbox = this.inbox.length === 0 ? chunk : Buffer.concat([this.inbox, chunk]);
    let at = 0;
    while (this.inbox.length - at >= 4) {
      const length = this.inbox.readUInt32LE(at);
      if (this.inbox.length - at - 4 < length) break;
      this.settle(this.inbox.subarray(at + 4, at + 4 + length));
      at += 4 + length;
    }
    this.inbox = at === this.inbox.length ? Buffer.alloc(0) : Buffer.from(this.inbox.subarray(at));
  }

  private settle(body: Buffer): void {
    const id = body.readUInt32LE(0);
    const entry = this.pending.get(id);
    if (!entry) return;
    this.forget(id, entry);
    const status = body.readUInt8(4);
    const code = body.readInt32LE(5);
    const outLength = body.readUInt32LE(9);
    const stdout = Buffer.from(body.subarray(13, 13 + outLength));
    const errEnd = 17 + outLength + body.readUInt32LE(13 + outLength);
    const stderr = Buffer.from(body.subarray(17 + outLength, errEnd));
    switch (status) {
      case ST_EXITED:
        return entry.resolve({ kind: "exited", exitCode: code, stdout, stderr, cpuSeconds: body.readUInt32LE(errEnd) / 1e6 });
      case ST_TIMEOUT:
        return entry.resolve({ kind: "timeout", stdout, stderr });
      case ST_ABORTED:
        return entry.resolve({ kind: "aborted", stdout, stderr });
      case ST_SPAWN_ERR:
        return void execErrorFor(entry.command, errnoName(code)).then(entry.reject, entry.reject);
      case ST_CWD_ERR:
        return entry.reject(chdirErrorFor(entry.command, errnoName(code)));
      default:
        return entry.reject(new HostSpawnError("exec spawner helper rejected the request", "EINVAL"));
    }
  }

  private forget(id: number, entry: Pending): void {
    this.pending.delete(id);
    if (entry.onAbort) entry.command.signal?.removeEventListener("abort", entry.onAbort);
    if (this.pending.size === 0) this.setRef(false);
  }

  private failAll(error: Error): void {
    for (const [id, entry] of [...this.pending]) {
      this.forget(id, entry);
      entry.reject(error);
    }
  }

  /**
   * setRef keeps the agent alive only while commands are in flight; an idle helper never does.
   * Called on the 0 → 1 and 1 → 0 transitions of the pending count only. The stdout read and
   * the helper's exit are what a command in flight waits for; the stdin pipe needs no ref (it
   * is never read, and a write still in progress holds the event loop by itself).
   */
  private setRef(active: boolean): void {
    const helper = this.helper;
    if (!helper) return;
    const stdout = helper.stdout as Socket | null;
    if (active) {
      helper.ref();
      stdout?.ref();
    } else {
      helper.unref();
      stdout?.unref();
    }
  }
}

/** ID_OFFSET is where a request's id sits in its frame: after the u32 length and the u8 op. */
const ID_OFFSET = 5;

/** RunTemplate is a RUN request encoded once with id 0, and the command it encodes. */
interface RunTemplate {
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string | undefined;
  timeoutMs: number;
  capBytes: number;
  bytes: Buffer;
}

/**
 * runTemplates holds the last request encoded for each argv array: a probe sends the same
 * command every period, so its request is encoded once and then only copied with a new id.
 */
const runTemplates = new WeakMap<readonly string[], RunTemplate>();

/** encodeRun builds a RUN request, from the argv array's template when the command is unchanged. */
function encodeRun(id: number, command: HostCommand): Buffer {
  let template = runTemplates.get(command.argv);
  if (!template || !sameCommand(template, command)) {
    template = {
      argv: [...command.argv],
      env: command.env,
      cwd: command.cwd,
      timeoutMs: command.timeoutMs,
      capBytes: command.capBytes,
      bytes: encodeRunFrame(command),
    };
    runTemplates.set(command.argv, template);
  }
  const out = Buffer.allocUnsafe(template.bytes.length);
  template.bytes.copy(out);
  out.writeUInt32LE(id, ID_OFFSET);
  return out;
}

/** sameCommand compares by value, so an argv array changed in place is encoded afresh. */
function sameCommand(template: RunTemplate, command: HostCommand): boolean {
  if (template.env !== command.env || template.cwd !== command.cwd) return false;
  if (template.timeoutMs !== command.timeoutMs || template.capBytes !== command.capBytes) return false;
  const { argv } = command;
  if (template.argv.length !== argv.length) return false;
  for (let i = 0; i < argv.length; i++) if (template.argv[i] !== argv[i]) return false;
  return true;
}

/** encodeRunFrame encodes a RUN request with id 0: timeout, cap, argv, "K=V" env entries and optional cwd. */
function encodeRunFrame(command: HostCommand): Buffer {
  const env = encodedEnv(command.env);
  const tail = [...command.argv.map(encodeString), env.blob, ...(command.cwd !== undefined ? [encodeString(command.cwd)] : [])];
  const header = [
    clampU32(Math.ceil(command.timeoutMs)),
    clampU32(command.capBytes),
    command.argv.length,
    env.count,
    command.cwd !== undefined ? 1 : 0,
  ];
  return frame(OP_RUN, 0, header, tail);
}

/** envCache holds each env object's encoded entries; env objects are treated as immutable. */
const envCache = new WeakMap<object, { count: number; blob: Buffer }>();

function encodedEnv(env: Readonly<Record<string, string>>): { count: number; blob: Buffer } {
  let cached = envCache.get(env);
  if (!cached) {
    const entries = Object.entries(env).map(([key, value]) => encodeString(`${key}=${value}`));
    cached = { count: entries.length, blob: Buffer.concat(entries) };
    envCache.set(env, cached);
  }
  return cached;
}

/** encodeString is one protocol string: a u32 byte length, then the UTF-8 bytes. */
function encodeString(s: string): Buffer {
  const bytes = Buffer.from(s, "utf8");
  const out = Buffer.allocUnsafe(4 + bytes.length);
  out.writeUInt32LE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

/** frame prefixes a request body (op, id, u32 words, pre-encoded strings) with its length. */
function frame(op: number, id: number, words: readonly number[], tail: readonly Buffer[] = []): Buffer {
  const length = 1 + 4 + 4 * words.length + tail.reduce((sum, b) => sum + b.length, 0);
  const out = Buffer.allocUnsafe(4 + length);
  let at = out.writeUInt32LE(length, 0);
  at = out.writeUInt8(op, at);
  at = out.writeUInt32LE(id, at);
  for (const word of words) at = out.writeUInt32LE(word, at);
  for (const bytes of tail) at += bytes.copy(out, at);
  return out;
}

function clampU32(n: number): number {
  return Math.min(MAX_U32, Math.max(0, Math.floor(n)));
}
