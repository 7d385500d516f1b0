// The CRI v1 gRPC client: one grpc-js channel over containerd's unix socket, a deadline on
// every call, int64 kept as decimal strings, and gRPC failures mapped to RuntimeError
// (kubelet pkg/kubelet/cri/remote: every RuntimeService/ImageService call carries a context
// deadline; ours default to 10 s instead of CRI's 2 min, since this is a local tool, except for the
// calls that change state, which get the kubelet's deadlines: cri-runtime.ts).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, credentials, Metadata, status, type ChannelOptions, type ServiceError } from "@grpc/grpc-js";
import { loadSync, type MethodDefinition, type PackageDefinition } from "@grpc/proto-loader";
import { systemClock, type Clock } from "../../util/clock.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import { RuntimeError } from "../runtime.js";
import { IMAGE_SERVICE_METHODS, type CriMethod, type CriMethods } from "./cri-types.js";

/** DEFAULT_CALL_TIMEOUT_MS is the per-call deadline when none is configured. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

/** MAX_MESSAGE_BYTES is the kubelet's CRI message size limit (16 MiB) in both directions. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** PROTO_LOADER_OPTIONS keep int64 exact (strings), enums as names and fill in defaults. */
export const PROTO_LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true } as const;

/** CriClientOptions configure a CriClient. */
export interface CriClientOptions {
  /** Path of the CRI runtime's unix socket (e.g. /run/containerd/containerd.sock). */
  socket: string;
  /** Default deadline of each call in milliseconds. */
  callTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** CriCallOptions bound one call. */
export interface CriCallOptions {
  /** Deadline of this call in milliseconds (default: the client's callTimeoutMs). */
  timeoutMs?: number;
  /** Cancels the call; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

let definition: PackageDefinition | undefined;

/** loadCriDefinition loads proto/cri-api.proto once (also used by the tests' fake CRI server). */
export function loadCriDefinition(): PackageDefinition {
  definition ??= loadSync(criProtoPath(), PROTO_LOADER_OPTIONS);
  return definition;
}

/** criProtoPath finds proto/cri-api.proto at the package root, from src/ or dist/src/. */
export function criProtoPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, "proto", "cri-api.proto");
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`proto/cri-api.proto not found above ${fileURLToPath(import.meta.url)}`);
}

/** criMethodDefinition returns the loaded definition of one RPC. */
export function criMethodDefinition(method: CriMethod): MethodDefinition<object, object> {
  const service = IMAGE_SERVICE_METHODS.has(method) ? "runtime.v1.ImageService" : "runtime.v1.RuntimeService";
  const methods = loadCriDefinition()[service] as Record<string, MethodDefinition<object, object>> | undefined;
  const found = methods?.[method];
  if (!found) throw new Error(`proto/cri-api.proto does not define ${service}/${method}`);
  return found;
}

/**
 * CriClient makes unary CRI calls. It never waits for the socket to appear (no waitForReady):
 * a missing socket or a server that is not CRI fails the call at once or at its deadline.
 * Reconnection back-off is capped at 2 s so a restarted containerd is found again quickly.
 */
export class CriClient {
  readonly socket: string;
  private readonly client: Client;
  private readonly callTimeoutMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(options: CriClientOptions) {
    this.socket = options.socket;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    const channelOptions: ChannelOptions = {
      "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
      "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 2_000,
    };
    this.client = new Client(`unix://${options.socket}`, credentials.createInsecure(), channelOptions);
  }

  /** call makes one RPC; it rejects with a RuntimeError (or the abort reason when cancelled). */
  call<M extends CriMethod>(method: M, request: CriMethods[M][0], options: CriCallOptions = {}): Promise<CriMethods[M][1]> {
    const def = criMethodDefinition(method);
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const started = this.clock.monotonic();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => call.cancel();
      const call = this.client.makeUnaryRequest(
        def.path,
        def.requestSerialize as (value: CriMethods[M][0]) => Buffer,
        def.responseDeserialize as (bytes: Buffer) => CriMethods[M][1],
        request,
        new Metadata(),
        { deadline: this.clock.now() + timeoutMs },
        (err, response) => {
          signal?.removeEventListener("abort", onAbort);
          if (this.logger.isEnabled("trace")) {
            this.logger.trace("cri call", { method, ms: Math.round(this.clock.monotonic() - started), code: err?.code ?? 0 });
          }
          if (signal?.aborted) reject(signal.reason as Error);
          else if (err) reject(criError(method, err, this.socket, timeoutMs));
          else resolve(response as CriMethods[M][1]);
        },
      );
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** close closes the channel; calls in flight fail with Unavailable. */
  close(): void {
    this.client.close();
  }
}

/**
 * criError maps a gRPC failure to a RuntimeError. containerd's codes are coarse (NOT_FOUND for
 * unknown IDs, DEADLINE_EXCEEDED for exec timeouts, UNKNOWN for almost everything else), so
 * NOT_FOUND and UNKNOWN keep the runtime's own text as the message, the way the kubelet shows it.
 */
export function criError(method: CriMethod, err: ServiceError, socket: string, timeoutMs: number): RuntimeError {
  const details = err.details || err.message;
  const options = { cause: err };
  switch (err.code) {
    case status.NOT_FOUND:
      return new RuntimeError("NotFound", details, options);
    case status.UNKNOWN:
      return new RuntimeError("Unknown", details, options);
    case status.DEADLINE_EXCEEDED: {
      // grpc-js's own deadline text lists its internal phases; the runtime's text is kept.
      const own = details.startsWith("Deadline exceeded after");
      return new RuntimeError("DeadlineExceeded", `CRI ${method} did not finish within ${timeoutMs} ms${own ? "" : `: ${details}`}`, options);
    }
    case status.UNAVAILABLE: {
      // Drop grpc-js's resolver note and timestamp: "… Last error: connect ENOENT /x.sock".
      const reason = details.replace(/\s*\(\d{4}-\d\d-\d\dT[^)]*\)/, "").replace(/\.?\s*Resolution note:.*$/s, "");
      return new RuntimeError("Unavailable", `cannot reach the CRI runtime at ${socket}: ${reason}`, options);
    }
    default:
      return new RuntimeError("Unknown", `CRI ${method} failed: ${status[err.code] ?? err.code}: ${details}`, options);
  }
}
