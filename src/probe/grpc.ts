// The grpc handler (kubelet pkg/probe/grpc/grpc.go, spec §B.4): a blocking plaintext dial
// and one grpc.health.v1.Health/Check call, both under a single deadline. Every outcome is a
// success or a failure with the kubelet's message; the probe reports an error only when the
// health proto or grpc-js itself cannot be loaded (a packaging fault, not a target fault).
// grpc-js is loaded on the first gRPC probe (grpc-health-check.ts), not when this file is.
import type { Clock } from "../util/clock.js";
import type { CloseMode } from "./connection.js";
import type { HandlerOptions, ProbeOutcome } from "./probe-result.js";

export { goStatusErrorText } from "./grpc-status-text.js";

/** GrpcProbeTarget is the pod address and the service name sent in the HealthCheckRequest. */
export interface GrpcProbeTarget {
  host: string;
  port: number;
  /** The `service` field of the request; "" asks about the server as a whole. */
  service: string;
}

/** GrpcProbeOptions are the handler options plus the deadline clock and the socket close mode. */
export interface GrpcProbeOptions extends HandlerOptions {
  /** Source of the wall-clock deadline handed to grpc-js (default systemClock). */
  clock?: Clock;
  /**
   * How the probe's connection is closed (default "graceful": grpc-js closes the HTTP/2
   * session with GOAWAY and FIN). "reset" aborts the socket with RST so the prober keeps no
   * TIME-WAIT; see docs/connection-hygiene.md.
   */
  closeMode?: CloseMode;
}

type HealthCheck = typeof import("./grpc-health-check.js").checkHealth;
let healthCheck: HealthCheck | undefined;

/**
 * probeGrpc runs the kubelet's gRPC health probe against target.host:target.port (see
 * grpc-health-check.ts checkHealth). The first call loads grpc-js before the probe's deadline
 * starts, as the health proto has always been loaded. Never rejects.
 */
export async function probeGrpc(target: GrpcProbeTarget, options: GrpcProbeOptions): Promise<ProbeOutcome> {
  if (healthCheck === undefined) {
    try {
      healthCheck = (await import("./grpc-health-check.js")).checkHealth;
    } catch (err) {
      return { result: "unknown", output: "", error: err instanceof Error ? err : new Error(String(err)) };
    }
  }
  return healthCheck(target, options);
}
