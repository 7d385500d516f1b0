// What the grpc handler (grpc.ts) runs once grpc-js is loaded: a blocking plaintext dial and
// one grpc.health.v1.Health/Check call under a single deadline (kubelet pkg/probe/grpc/grpc.go,
// spec §B.4). Only grpc.ts imports this file, on the first gRPC probe, so that a process with no
// gRPC probes never loads grpc-js and proto-loader (≈ 15 MB RSS).
import { existsSync } from "node:fs";
import { isIPv4, isIPv6, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CallCredentials,
  ChannelCredentials,
  Client,
  connectivityState,
  credentials,
  Metadata,
  status,
  type ChannelOptions,
  type ServiceError,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { dialHost, joinHostPort } from "./address.js";
import { DEFAULT_CLOSE_MODE } from "./connection.js";
import { formatGoDuration } from "./go-duration.js";
import type { GrpcProbeOptions, GrpcProbeTarget } from "./grpc.js";
import { goStatusErrorText } from "./grpc-status-text.js";
import type { ProbeOutcome } from "./probe-result.js";
import { PROBE_USER_AGENT } from "./user-agent.js";
import { systemClock } from "../util/clock.js";

/** HEALTH_CHECK_PATH is the full method name the kubelet calls. */
const HEALTH_CHECK_PATH = "/grpc.health.v1.Health/Check";

interface HealthCheckRequest {
  service: string;
}
interface HealthCheckResponse {
  /** The ServingStatus enum name; proto-loader yields the number for values it does not know. */
  status: string | number;
}
interface HealthCheckCodec {
  serialize(value: HealthCheckRequest): Buffer;
  deserialize(bytes: Buffer): HealthCheckResponse;
}

let healthCheckCodec: HealthCheckCodec | undefined;

/** loadHealthCheckCodec loads proto/health.proto once, on the first probe. */
function loadHealthCheckCodec(): HealthCheckCodec {
  if (healthCheckCodec !== undefined) return healthCheckCodec;
  const definition = loadSync(healthProtoPath(), { keepCase: true, enums: String, defaults: true });
  const method = (definition["grpc.health.v1.Health"] as Record<string, unknown> | undefined)?.["Check"];
  if (typeof method !== "object" || method === null || !("requestSerialize" in method) || !("responseDeserialize" in method)) {
    throw new Error("proto/health.proto does not define grpc.health.v1.Health/Check");
  }
  const { requestSerialize, responseDeserialize } = method as {
    requestSerialize: (value: HealthCheckRequest) => Buffer;
    responseDeserialize: (bytes: Buffer) => HealthCheckResponse;
  };
  healthCheckCodec = { serialize: requestSerialize, deserialize: responseDeserialize };
  return healthCheckCodec;
}

/** healthProtoPath finds proto/health.proto at the package root, from src/probe or dist/src/probe. */
function healthProtoPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(dir, "proto", "health.proto");
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`proto/health.proto not found above ${fileURLToPath(import.meta.url)}`);
}

/**
 * SocketTrackingCredentials are plaintext channel credentials that also remember the
 * sockets grpc-js connects, so that closeMode "reset" can abort them. grpc-js hands every
 * connected socket to the credentials' connector; this is its only socket-level hook.
 */
class SocketTrackingCredentials extends ChannelCredentials {
  readonly sockets = new Set<Socket>();

  _isSecure(): boolean {
    return false;
  }
  _equals(other: ChannelCredentials): boolean {
    return other === this;
  }
  _createSecureConnector(_target: unknown, _options: ChannelOptions, callCredentials?: CallCredentials) {
    const sockets = this.sockets;
    return {
      connect(socket: Socket) {
        sockets.add(socket);
        return Promise.resolve({ socket, secure: false });
      },
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => callCredentials ?? CallCredentials.createEmpty(),
      destroy: () => undefined,
    };
  }
  /** resetAll aborts every tracked socket (SO_LINGER 0: RST, no TIME-WAIT on our side). */
  resetAll(): void {
    for (const socket of this.sockets) if (!socket.destroyed) socket.resetAndDestroy();
    this.sockets.clear();
  }
}

// Channel options: one probe, one connection, nothing shared or kept afterwards.
const CHANNEL_OPTIONS: ChannelOptions = {
  // kubelet grpc.go: WithUserAgent("kube-probe/<major>.<minor>"); grpc-js appends its own token.
  "grpc.primary_user_agent": PROBE_USER_AGENT,
  // A private subchannel pool is torn down with the channel; the global one keeps a cleanup timer.
  "grpc.use_local_subchannel_pool": 1,
  "grpc.enable_channelz": 0,
  // Probes go straight to the pod address, never through grpc_proxy/https_proxy.
  "grpc.enable_http_proxy": 0,
  "grpc.service_config_disable_resolution": 1,
};

/**
 * checkHealth runs the kubelet's gRPC health probe against target.host:target.port. A fresh
 * channel is dialled and waited on until READY (refused connections are retried with
 * grpc-js back-off, as a Go blocking dial does), then Health/Check is called with the
 * remaining time of the same deadline; the channel is closed before the promise resolves.
 * Outputs are the kubelet's texts, with the timeout in Go duration format. Never rejects.
 */
export async function checkHealth(target: GrpcProbeTarget, options: GrpcProbeOptions): Promise<ProbeOutcome> {
  const addr = joinHostPort(target.host, target.port);
  const timeout = formatGoDuration(options.timeoutMs);
  let codec: HealthCheckCodec;
  try {
    codec = loadHealthCheckCodec();
  } catch (err) {
    return { result: "unknown", output: "", error: err instanceof Error ? err : new Error(String(err)) };
  }
  const connectFailed = (reason: string): ProbeOutcome => failure(`error: failed to connect service at ${goQuote(addr)}: ${reason}`);
  const signal = options.signal;
  if (signal?.aborted) return connectFailed("context canceled");

  const deadline = (options.clock ?? systemClock).now() + options.timeoutMs;
  const closeMode = options.closeMode ?? DEFAULT_CLOSE_MODE;
  const tracking = closeMode === "reset" ? new SocketTrackingCredentials() : undefined;
  let client: Client;
  try {
    client = new Client(channelTarget(dialHost(target.host), target.port), tracking ?? credentials.createInsecure(), CHANNEL_OPTIONS);
  } catch (err) {
    return connectFailed(err instanceof Error ? err.message : String(err));
  }

  return new Promise<ProbeOutcome>((resolve) => {
    let settled = false;
    let cancelCall: (() => void) | undefined;
    const settle = (outcome: ProbeOutcome): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      cancelCall?.();
      tracking?.resetAll();
      client.close();
      resolve(outcome);
    };
    const onAbort = (): void => {
      if (cancelCall === undefined) settle(connectFailed("context canceled"));
      else settle(failure(`error: health rpc probe failed: ${goStatusErrorText(status.CANCELLED, "context canceled")}`));
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    const check = (): void => {
      // Assigned before the call's callback can run (it never runs synchronously).
      const call = client.makeUnaryRequest<HealthCheckRequest, HealthCheckResponse>(
        HEALTH_CHECK_PATH,
        codec.serialize,
        codec.deserialize,
        { service: target.service },
        new Metadata(),
        { deadline },
        (err, response) => {
          cancelCall = undefined;
          if (err !== null) settle(rpcFailure(err, timeout));
          else settle(healthVerdict(response));
        },
      );
      cancelCall = () => call.cancel();
    };

    // A blocking dial: watch the channel until READY or the deadline. The settled check comes
    // first, so closing the channel (which notifies watchers) never restarts a connection.
    const channel = client.getChannel();
    const awaitReady = (): void => {
      if (settled) return;
      try {
        const state = channel.getConnectivityState(true);
        if (state === connectivityState.READY) {
          check();
          return;
        }
        channel.watchConnectivityState(state, deadline, (err) => {
          if (settled) return;
          if (err !== undefined) settle(failure(`timeout: failed to connect service ${goQuote(addr)} within ${timeout}: context deadline exceeded`));
          else awaitReady();
        });
      } catch (err) {
        // Not expected from grpc-js; kept so that the probe can never reject.
        settle(connectFailed(err instanceof Error ? err.message : String(err)));
      }
    };
    awaitReady();
  });
}

/**
 * channelTarget names the resolver explicitly: IP literals use grpc-js' ipv4:/ipv6: resolvers
 * (no DNS machinery per channel), anything else "dns:", which also keeps a host such as
 * "unix" from being read as a URI scheme.
 */
function channelTarget(host: string, port: number): string {
  const hostPort = joinHostPort(host, port);
  if (isIPv4(host)) return `ipv4:${hostPort}`;
  if (isIPv6(host)) return `ipv6:${hostPort}`;
  return `dns:${hostPort}`;
}

/** rpcFailure maps a failed Check call to the kubelet's text for its status code. */
function rpcFailure(err: ServiceError, timeout: string): ProbeOutcome {
  switch (err.code) {
    case status.UNIMPLEMENTED:
      return failure(`error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${err.details}`);
    case status.DEADLINE_EXCEEDED:
      return failure(`timeout: health rpc did not complete within ${timeout}`);
    default:
      return failure(`error: health rpc probe failed: ${goStatusErrorText(err.code, err.details)}`);
  }
}

/** healthVerdict: only SERVING passes (kubelet grpc.go prints the enum name with %q otherwise). */
function healthVerdict(response: HealthCheckResponse | undefined): ProbeOutcome {
  const served = String(response?.status ?? "UNKNOWN");
  if (served === "SERVING") return { result: "success", output: "service healthy" };
  return failure(`service unhealthy (responded with ${goQuote(served)})`);
}

/** goQuote is Go's %q for the printable ASCII strings used here (addresses, enum names). */
function goQuote(text: string): string {
  return JSON.stringify(text);
}

function failure(output: string): ProbeOutcome {
  return { result: "failure", output };
}
