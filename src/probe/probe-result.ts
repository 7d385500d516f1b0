// The low-level probe verdict shared by every handler (kubelet pkg/probe/probe.go).
import type { LookupFunction } from "node:net";

/** ProbeResult is a handler's low-level verdict (kubelet probe.Result). */
export type ProbeResult = "success" | "warning" | "failure" | "unknown";

/**
 * ProbeOutcome is the kubelet handler triple (result, output, error).
 *
 * A handler resolves with `failure` plus explanatory output for anything the target did
 * (refused connection, timeout, bad status, non-zero exit, NOT_SERVING). It sets `error`
 * only when the probe could not be run at all (unresolvable port, runtime error, body
 * read error): the prober retries those and the worker discards them (kubelet prober.go).
 * Handlers never reject.
 */
export interface ProbeOutcome {
  result: ProbeResult;
  output: string;
  error?: Error;
  /** An exec probe's command CPU (user + system seconds), when its runner measured it. */
  cpuSeconds?: number;
}

/** MAX_OUTPUT_BYTES is the kubelet's 10 KiB cap on exec output and HTTP bodies. */
export const MAX_OUTPUT_BYTES = 10 * 1024;

/** HandlerOptions are passed to every handler call. */
export interface HandlerOptions {
  /**
   * The name lookup of the httpGet and tcpSocket dials (net.connect's `lookup`); default the
   * system's (dns.lookup). Tests use it to fail a lookup without sending a DNS query.
   */
  lookup?: LookupFunction;
  /** The probe's timeoutSeconds in milliseconds; covers the whole probe. */
  timeoutMs: number;
  /** Aborts the probe early (worker stopped); the outcome is then a failure. */
  signal?: AbortSignal;
}
