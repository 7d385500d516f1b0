// A loopback grpc.health.v1 server for the grpc handler tests and measurements. It answers
// Check with a configured status (optionally late, or with an error status), records each
// request's service name and user agent, and can leave the health service out entirely.
// Run this file directly to serve SERVING from a separate process (the port is printed).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { serveAsScript, spawnNodeServer, type SpawnedServer } from "./tcp-server.js";

/** ServingStatus is a grpc.health.v1 enum name, or a raw number for values outside the enum. */
export type ServingStatus = "UNKNOWN" | "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN" | number;

/** HealthServerOptions configure startGrpcHealthServer. */
export interface HealthServerOptions {
  /** The status Check answers with (default "SERVING"). */
  status?: ServingStatus;
  /** Delay before answering, in ms (the call is dropped if the client cancels first). */
  delayMs?: number;
  /** Answer with this error status instead of a response. */
  error?: { code: number; details: string };
  /** Register the Health service at all (default true); false gives UNIMPLEMENTED. */
  withHealthService?: boolean;
  /** Listen host (default 127.0.0.1). */
  host?: string;
}

/** RecordedCheck is what the server saw of one Check call. */
export interface RecordedCheck {
  service: string;
  userAgent: string | undefined;
}

/** GrpcHealthServer is a running health server. */
export interface GrpcHealthServer {
  host: string;
  port: number;
  readonly checks: readonly RecordedCheck[];
  close(): Promise<void>;
}

let healthService: ServiceDefinition | undefined;

function loadHealthService(): ServiceDefinition {
  if (healthService !== undefined) return healthService;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5 && !existsSync(join(dir, "proto", "health.proto")); depth++) dir = dirname(dir);
  const definition = loadSync(join(dir, "proto", "health.proto"), { keepCase: true, enums: String, defaults: true });
  healthService = definition["grpc.health.v1.Health"] as ServiceDefinition;
  return healthService;
}

/** startGrpcHealthServer binds a grpc-js server to host:0 and serves grpc.health.v1.Health/Check. */
export async function startGrpcHealthServer(options: HealthServerOptions = {}): Promise<GrpcHealthServer> {
  const host = options.host ?? "127.0.0.1";
  const checks: RecordedCheck[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = new Server();
  if (options.withHealthService ?? true) {
    const check = (call: ServerUnaryCall<{ service: string }, unknown>, callback: sendUnaryData<unknown>): void => {
      const agent = call.metadata.get("user-agent")[0];
      checks.push({ service: call.request.service, userAgent: typeof agent === "string" ? agent : undefined });
      const answer = (): void => {
        if (options.error !== undefined) callback({ code: options.error.code, details: options.error.details });
        else callback(null, { status: options.status ?? "SERVING" });
      };
      if (options.delayMs === undefined) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, options.delayMs);
      timers.add(timer);
      call.on("cancelled", () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
    };
    server.addService(loadHealthService(), { Check: check, Watch: (call: { end(): void }) => call.end() });
  }
  const bindHost = host.includes(":") ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${bindHost}:0`, ServerCredentials.createInsecure(), (err, boundPort) => (err ? reject(err) : resolve(boundPort)));
  });
  return {
    host,
    port,
    checks,
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.forceShutdown();
      return Promise.resolve();
    },
  };
}

/** spawnGrpcHealthServer runs this file as a separate process serving SERVING on 127.0.0.1. */
export function spawnGrpcHealthServer(): Promise<SpawnedServer> {
  return spawnNodeServer([fileURLToPath(import.meta.url)]);
}

// Run directly: serve SERVING on 127.0.0.1 (e.g. `node dist/test/servers/grpc-health-server.js &`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await serveAsScript(() => startGrpcHealthServer());
}
