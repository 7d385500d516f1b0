// The exec handler: runs a probe command through a CommandRunner and maps what happened to
// the kubelet's (result, output, error) triple (kubelet pkg/probe/exec/exec.go, spec §B.1).

import { goQuote } from "../api/field-errors.js";
import { CommandTimeoutError, type CommandRunner } from "./command-runner.js";
import { formatGoDuration } from "./go-duration.js";
import { MAX_OUTPUT_BYTES, type HandlerOptions, type ProbeOutcome } from "./probe-result.js";

/** ExecProbeOptions bound one exec probe. */
export interface ExecProbeOptions extends HandlerOptions {
  /**
   * execProbeTimeout mirrors the kubelet's ExecProbeTimeout feature gate (GA since 1.20, locked
   * on since 1.35): when true (the default) a timed-out command is a failure; when false it is
   * the legacy "unknown + error" outcome, which the worker discards.
   */
  execProbeTimeout?: boolean;
}

/**
 * probeExec runs `argv` (already expanded, see expand.ts) in container `containerId` and maps
 * the outcome exactly like the kubelet's exec prober:
 * - exit 0 → success with the output; non-zero exit → failure with the output;
 * - CommandTimeoutError → failure whose output is the timeout error's text (kubelet exec.go:
 *   "when exec probe timeout, data is empty", so the error text is used), or with the gate off
 *   unknown + the error;
 * - any other runner rejection → unknown, "", the error (the prober retries those).
 * Output is stdout followed by stderr (kubelet kuberuntime RunInContainer appends them, not
 * interleaved), cut at MAX_OUTPUT_BYTES by a limit writer, and decoded as UTF-8 with invalid
 * sequences replaced. An aborted probe (worker stopped) is a failure, per HandlerOptions.
 */
export async function probeExec(
  runner: CommandRunner,
  containerId: string,
  argv: readonly string[],
  options: ExecProbeOptions,
): Promise<ProbeOutcome> {
  const runOptions = options.signal ? { timeoutMs: options.timeoutMs, signal: options.signal } : { timeoutMs: options.timeoutMs };
  try {
    const { stdout, stderr, exitCode, cpuSeconds } = await runner.runInContainer(containerId, argv, runOptions);
    const output = decodeOutput(limitOutput(stdout, stderr));
    const result = exitCode === 0 ? "success" : "failure";
    return cpuSeconds === undefined ? { result, output } : { result, output, cpuSeconds };
  } catch (err) {
    const error = toError(err);
    if (error instanceof CommandTimeoutError) {
      if (options.execProbeTimeout ?? true) return { result: "failure", output: error.message };
      return { result: "unknown", output: "", error };
    }
    if (options.signal?.aborted) return { result: "failure", output: `exec probe aborted: ${error.message}` };
    return { result: "unknown", output: "", error };
  }
}

/**
 * limitOutput concatenates stdout and stderr and keeps at most MAX_OUTPUT_BYTES of the result;
 * extra bytes are dropped silently (kubelet ioutils.LimitWriter).
 */
export function limitOutput(stdout: Buffer, stderr: Buffer, limit: number = MAX_OUTPUT_BYTES): Buffer {
  if (stdout.length >= limit) return stdout.subarray(0, limit);
  if (stdout.length + stderr.length <= limit) return Buffer.concat([stdout, stderr]);
  return Buffer.concat([stdout, stderr.subarray(0, limit - stdout.length)]);
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** decodeOutput turns command bytes into text; invalid UTF-8 becomes U+FFFD, never an exception. */
export function decodeOutput(bytes: Buffer): string {
  return utf8.decode(bytes);
}

/**
 * execTimeoutMessage is the text of the error the kubelet's CRI client returns when ExecSync
 * hits its deadline (cri-client remote_runtime.go: the ErrCommandTimedOut sentinel "command
 * timed out" wrapped with the %q-quoted command joined by spaces and the Go duration), e.g.
 * `command timed out: "/bin/sh -c sleep 10" timed out after 1s`. Runners put it in the
 * CommandTimeoutError they throw; it becomes the probe's output.
 */
export function execTimeoutMessage(argv: readonly string[], timeoutMs: number): string {
  return `command timed out: ${goQuote(argv.join(" "))} timed out after ${formatGoDuration(timeoutMs)}`;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
