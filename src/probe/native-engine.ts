// The native probe I/O engine (native/probe-engine.c, built by scripts/build-native.sh): the
// socket work of tcpSocket and plain-HTTP httpGet probes to IP addresses runs on the addon's
// own epoll thread, and its events come back here in batches. Responses are still parsed in
// JavaScript by the handlers; only the I/O moved. The engine is chosen once per process
// (probe-engine.ts) and the JS handlers stay the fallback.
import { createRequire } from "node:module";
import { isIP } from "node:net";
import { constants as osConstants } from "node:os";
import { fileURLToPath } from "node:url";
import type { CloseMode } from "./connection.js";

/** The addon's functions (native/probe-engine.c). */
interface EngineBinding {
  start(onEvents: (events: Int32Array, data: Buffer | null) => void): void;
  submit(kind: number, ip: string, port: number, request: Buffer | null, timeoutMs: number, reset: boolean): number;
  flush(): void;
  arm(handle: number, ms: number): void;
  close(handle: number, reset: boolean): void;
  stand(ip: string, port: number, timeoutMs: number, reset: boolean, nowMs: number, baseMs: number, nextMs: number, periodMs: number, coalesceMs: number): number;
  unstand(handle: number): boolean;
  hold(delta: number): void;
}

// Mirrors of the addon's constants.
const KIND_TCP = 0;
const KIND_HTTP = 1;
const EV_CONNECTED = 1;
const EV_ERROR = 2;
const EV_TIMEOUT = 3;
const EV_DATA = 4;
const EV_STAND_OK = 5; // then EV_STAND_ERROR, EV_STAND_TIMEOUT: STANDING_OUTCOMES's order
const EV_STAND_ENDED = 8;
const EVENT_FIELDS = 7;
const FLAG_EOF = 1;
const FLAG_FINAL = 2;
const SYSCALLS = ["connect", "read", "write"] as const;

/** NativeSyscall names the system call an engine error came from. */
export type NativeSyscall = (typeof SYSCALLS)[number];

/** NativeSocketError has the fields of a Node system error that the Go error renderers read. */
export interface NativeSocketError extends Error {
  code: string;
  errno: number;
  syscall: string;
}

/** NativeProbeSink receives the engine's events for one probe. */
export interface NativeProbeSink {
  onConnected(): void;
  /** onError: `errno` from `syscall`; `local` is the local "ip:port" once connected, else "". */
  onError(errno: number, syscall: NativeSyscall, local: string): void;
  onTimeout(): void;
  onData(buf: Buffer, eof: boolean): void;
}

/** StandingDialOutcome is how one dial of a standing probe ended. */
export type StandingDialOutcome = "connected" | "error" | "timeout";
const STANDING_OUTCOMES: readonly StandingDialOutcome[] = ["connected", "error", "timeout"];

/** NativeStandingSink receives a standing probe's records, in the order its dials finished. */
export interface NativeStandingSink {
  /** One dial: `errno` and `syscall` for "error"; times in the monotonic ms that stand() was given. */
  onStandingDial(outcome: StandingDialOutcome, errno: number, syscall: NativeSyscall, startMs: number, endMs: number): void;
  /** The standing probe ended (a dial failed, or unstand()); `nextTickMs` is its ticker's next tick. */
  onStandingEnded(nextTickMs: number): void;
}

/** StandingSchedule is a worker's tick grid, handed to the engine (monotonic ms, performance.now()). */
export interface StandingSchedule {
  /** The grid's origin and period: ticks fall at baseMs + k·periodMs. */
  baseMs: number;
  periodMs: number;
  /** The next tick the engine runs. */
  nextMs: number;
  /** How late a tick may run to share the engine thread's wake-up (the scheduler's window). */
  coalesceMs: number;
}

const ERRNO_CODES = new Map<number, string>(Object.entries(osConstants.errno).map(([code, errno]) => [errno, code]));

/** socketError builds the error Node would report for `errno` in `syscall` ("connect ECONNREFUSED 127.0.0.1:80"). */
export function socketError(errno: number, syscall: NativeSyscall, ip: string, port: number): NativeSocketError {
  const code = ERRNO_CODES.get(errno) ?? `E${errno}`;
  const err = new Error(`${syscall} ${code} ${ip}:${port}`) as NativeSocketError;
  err.code = code;
  err.errno = -errno;
  err.syscall = syscall;
  return err;
}

/**
 * NativeProbeEngine submits probes to the addon and routes its event batches to each probe's
 * sink. A probe's sink is dropped with its final event (or when the probe closes it first).
 */
export class NativeProbeEngine {
  private readonly sinks = new Map<number, NativeProbeSink>();
  private readonly standingSinks = new Map<number, NativeStandingSink>();
  /** Standing probes asked to end whose end has not arrived: each holds the event loop alive. */
  private readonly ending = new Set<number>();
  private flushScheduled = false;
  private readonly flush = (): void => {
    this.flushScheduled = false;
    this.binding.flush();
  };

  constructor(private readonly binding: EngineBinding) {
    // A batch is handled in the check phase, after the I/O callbacks of the loop turn that
    // brought it: an in-process server then sees its side of a connection (the accept a
    // loopback connect() completed) before the probe's outcome is known, as with Node sockets.
    binding.start((events, data) => setImmediate(() => this.dispatch(events, data)));
  }

  /** inFlight counts the probes whose sockets the engine still holds. */
  inFlight(): number {
    return this.sinks.size;
  }

  /**
   * dialTcp connects to ip:port; the outcome is known as soon as the connection is made.
   * "reset" then closes it at once (SO_LINGER {1, 0}); "graceful" closes it 10 ms later, so
   * that a server that closes first keeps the TIME-WAIT (native/probe-engine.c
   * close_after_server). `timeoutMs` ≤ 0 means no deadline. Returns the
   * probe's handle, or a negative errno (ENOMEM) when the engine could not take it; socket()
   * and connect() errors arrive as events.
   */
  dialTcp(ip: string, port: number, timeoutMs: number, closeMode: CloseMode, sink: NativeProbeSink): number {
    const handle = this.binding.submit(KIND_TCP, ip, port, null, timeoutMs, closeMode === "reset");
    if (handle >= 0) this.submitted(handle, sink);
    return handle;
  }

  /** dialHttp connects, writes `request` and reads until paused, EOF, an error or the deadline. */
  dialHttp(ip: string, port: number, request: Buffer, timeoutMs: number, closeMode: CloseMode, sink: NativeProbeSink): number {
    const handle = this.binding.submit(KIND_HTTP, ip, port, request, timeoutMs, closeMode === "reset");
    if (handle >= 0) this.submitted(handle, sink);
    return handle;
  }

  /**
   * submitted routes a queued probe's events to its sink and wakes the engine thread once, in
   * the check phase of this loop turn, after every probe the turn submits: a thread woken at
   * the first submission would take the engine's lock (connect, write, read) while the event
   * loop still submits, and each further submission would wait for it (≈ 10 % of an HTTP
   * probe's CPU and ≈ 15 % of a TCP probe's, docs/performance.md).
   */
  private submitted(handle: number, sink: NativeProbeSink): void {
    this.sinks.set(handle, sink);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flush);
  }

  /** arm sets a probe's deadline `ms` from now and resumes reading if a delivery paused it. */
  arm(handle: number, ms: number): void {
    this.binding.arm(handle, ms);
  }

  /**
   * stand hands a tcpSocket probe's ticker to the engine thread: it dials ip:port (closing as
   * dialTcp does) on every tick of `schedule`, with Go's late-tick rule, until a dial fails or
   * unstand() is called, and reports every dial and then the end to `sink`. Records of
   * successful dials reach JavaScript in batches, up to 100 ms late; a failure and the end come at
   * once. Returns the handle, or a negative errno (ENOMEM) when the engine could not take it.
   */
  stand(ip: string, port: number, timeoutMs: number, closeMode: CloseMode, schedule: StandingSchedule, sink: NativeStandingSink): number {
    const { baseMs, nextMs, periodMs, coalesceMs } = schedule;
    const handle = this.binding.stand(ip, port, timeoutMs, closeMode === "reset", performance.now(), baseMs, nextMs, periodMs, coalesceMs);
    if (handle >= 0) this.standingSinks.set(handle, sink);
    return handle;
  }

  /**
   * unstand ends a standing probe after its dial in flight; its sink still hears that dial and
   * the end. Until the end arrives the event loop stays alive (a standing probe alone does not
   * keep it so, as a worker's wait does not), so that whoever waits for it is not cut short.
   */
  unstand(handle: number): void {
    if (!this.standingSinks.has(handle) || this.ending.has(handle)) return;
    this.ending.add(handle);
    this.binding.hold(1);
    this.binding.unstand(handle);
  }

  /** standingCount counts the standing probes whose end has not been delivered. */
  standingCount(): number {
    return this.standingSinks.size;
  }

  /** close closes a probe's socket (RST with "reset") and drops its sink; no event follows. */
  close(handle: number, closeMode: CloseMode): void {
    if (this.sinks.delete(handle)) this.binding.close(handle, closeMode === "reset");
  }

  private dispatch(events: Int32Array, data: Buffer | null): void {
    for (let i = 0; i < events.length; i += EVENT_FIELDS) {
      const handle = events[i]!;
      const flags = events[i + 6]!;
      if (events[i + 1]! >= EV_STAND_OK) {
        this.dispatchStanding(events, i, data!);
        continue;
      }
      const sink = this.sinks.get(handle);
      if (sink === undefined) continue; // closed by its probe before this batch arrived
      if ((flags & FLAG_FINAL) !== 0) this.sinks.delete(handle);
      const type = events[i + 1]!;
      if (type === EV_CONNECTED) {
        sink.onConnected();
      } else if (type === EV_TIMEOUT) {
        sink.onTimeout();
      } else if (type === EV_DATA) {
        const start = events[i + 4]!;
        sink.onData(data === null ? EMPTY : data.subarray(start, start + events[i + 5]!), (flags & FLAG_EOF) !== 0);
      } else if (type === EV_ERROR) {
        const start = events[i + 4]!;
        const local = data === null ? "" : data.toString("latin1", start, start + events[i + 5]!);
        sink.onError(events[i + 2]!, SYSCALLS[events[i + 3]!] ?? "connect", local);
      }
    }
  }

  /** dispatchStanding hands one standing probe's record (event `i`) to its sink. */
  private dispatchStanding(events: Int32Array, i: number, data: Buffer): void {
    const handle = events[i]!;
    const sink = this.standingSinks.get(handle);
    if (sink === undefined) return;
    const type = events[i + 1]!;
    const at = events[i + 4]!;
    if (type === EV_STAND_ENDED) {
      this.standingSinks.delete(handle);
      if (this.ending.delete(handle)) this.binding.hold(-1);
      sink.onStandingEnded(data.readDoubleLE(at));
      return;
    }
    const outcome = STANDING_OUTCOMES[type - EV_STAND_OK] ?? "error";
    sink.onStandingDial(outcome, events[i + 2]!, SYSCALLS[events[i + 3]!] ?? "connect", data.readDoubleLE(at), data.readDoubleLE(at + 8));
  }
}

const EMPTY = Buffer.alloc(0);

/** ADDON_PATH is where scripts/build-native.sh leaves the addon (node-gyp's build/Release). */
export const ADDON_PATH = fileURLToPath(new URL("../../../build/Release/probelet_probe_engine.node", import.meta.url));

/** loadNativeEngine loads and starts the addon; it throws when it is missing or cannot start. */
export function loadNativeEngine(path = ADDON_PATH): NativeProbeEngine {
  if (process.platform !== "linux") throw new Error("the native probe engine is Linux-only");
  const binding = createRequire(import.meta.url)(path) as EngineBinding;
  return new NativeProbeEngine(binding);
}

/** nativeDialIp maps a probe host to the IP the engine dials, or undefined for names (the JS path resolves those). */
export function nativeDialIp(host: string): string | undefined {
  if (host === "") return "127.0.0.1"; // Go dials an empty host as the local system (address.ts dialHost)
  // IPv6 zones ("fe80::1%eth0") need if_nametoindex: Node sockets handle those.
  return isIP(host) === 0 || host.includes("%") ? undefined : host;
}
