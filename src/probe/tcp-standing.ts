// A standing tcpSocket probe: the native engine runs the probe's ticker on its own thread and
// dials on every tick, and JavaScript hears each dial's outcome (successes in batches) with the
// texts probeTcp gives. It knows no pods: the prober starts it, the worker decides when.
import { DEFAULT_CLOSE_MODE } from "./connection.js";
import { nativeDialIp, type NativeProbeEngine, type NativeStandingSink, type NativeSyscall, type StandingDialOutcome, type StandingSchedule } from "./native-engine.js";
import { nativeEngine } from "./probe-engine.js";
import type { ProbeOutcome } from "./probe-result.js";
import { isDialablePort, type TcpProbeOptions, type TcpProbeTarget } from "./tcp.js";
import { tcpDialErrorText, tcpDialTimeoutText } from "./tcp-native.js";

/** StandingTcpSink hears a standing tcpSocket probe. */
export interface StandingTcpSink {
  /** One probe's outcome, as probeTcp would have resolved it; times are monotonic ms. */
  onStandingProbe(outcome: ProbeOutcome, startMs: number, endMs: number): void;
  /** The standing probe ended after a failed probe or end(); `nextTickMs` is the ticker's next tick. */
  onStandingEnded(nextTickMs: number): void;
}

/** SUCCESS is every successful dial's outcome (frozen, shared). */
const SUCCESS: ProbeOutcome = Object.freeze({ result: "success", output: "" });

/**
 * standTcp starts a standing probe of `target` on the native engine, or returns undefined when
 * the probe cannot stand there (the JS engine is in use, the host is a name, the port cannot be
 * dialled, or the engine is out of room); the caller then goes on probing itself.
 */
export function standTcp(target: TcpProbeTarget, options: TcpProbeOptions, schedule: StandingSchedule, sink: StandingTcpSink): StandingTcpProbe | undefined {
  const engine = nativeEngine();
  if (engine === undefined || options.signal !== undefined) return undefined;
  const ip = nativeDialIp(target.host);
  const { port } = target;
  // Port 0 is dialled and refused on the JS path, which reports it.
  if (ip === undefined || port === 0 || !isDialablePort(port)) return undefined;
  const probe = new StandingTcpProbe(engine, ip, target.host, port, sink);
  const handle = engine.stand(ip, port, options.timeoutMs, options.closeMode ?? DEFAULT_CLOSE_MODE, schedule, probe);
  if (handle < 0) return undefined;
  probe.handle = handle;
  return probe;
}

/** StandingTcpProbe is one standing probe: end() takes its ticker back. */
export class StandingTcpProbe implements NativeStandingSink {
  /** The engine's handle (set right after the engine took the probe). */
  handle = -1;
  private ending = false;

  constructor(
    private readonly engine: NativeProbeEngine,
    private readonly ip: string,
    private readonly host: string,
    private readonly port: number,
    private readonly sink: StandingTcpSink,
  ) {}

  /**
   * end asks the engine to stop after the dial in flight, if any; that dial's outcome and then
   * onStandingEnded still reach the sink. Idempotent.
   */
  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.engine.unstand(this.handle);
  }

  /** @internal (NativeStandingSink) */
  onStandingDial(outcome: StandingDialOutcome, errno: number, syscall: NativeSyscall, startMs: number, endMs: number): void {
    let result = SUCCESS;
    if (outcome === "timeout") result = { result: "failure", output: tcpDialTimeoutText(this.host, this.port) };
    else if (outcome === "error") result = { result: "failure", output: tcpDialErrorText(errno, syscall, this.ip, this.host, this.port) };
    this.sink.onStandingProbe(result, startMs, endMs);
  }

  /** @internal (NativeStandingSink) */
  onStandingEnded(nextTickMs: number): void {
    this.ending = true;
    this.sink.onStandingEnded(nextTickMs);
  }
}
