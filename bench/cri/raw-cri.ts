// The "raw CRI" baseline client: @grpc/grpc-js and @grpc/proto-loader only, no probelet code.
// It loads the same proto/cri-api.proto subset (a schema file, not probelet logic) and makes
// plain unary calls with a deadline, the least any CRI client has to do. The baseline loops
// and the raw pod-start sequence use it; nothing under src/ is imported here.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { credentials, loadPackageDefinition, type Client, type ServiceError } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

/** RawMessage is a CRI request or response as proto-loader shapes it (snake_case, int64 as strings). */
export type RawMessage = Record<string, unknown>;

type UnaryMethod = (request: RawMessage, options: { deadline: number }, callback: (err: ServiceError | null, response?: RawMessage) => void) => unknown;

/** findProto locates proto/cri-api.proto at the package root, from bench/cri or dist/bench/cri. */
export function findProto(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, "proto", "cri-api.proto");
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error("proto/cri-api.proto not found above the bench");
}

/**
 * RawCri holds one RuntimeService and one ImageService stub on a single channel to the
 * runtime's unix socket (grpc-js shares the subchannel between stubs of the same target).
 */
export class RawCri {
  private readonly runtime: Client;
  private readonly images: Client;

  constructor(socket: string) {
    const loaded = loadPackageDefinition(loadSync(findProto(), { keepCase: true, longs: String, enums: String, defaults: true }));
    const pkg = (loaded["runtime"] as Record<string, unknown>)["v1"] as Record<string, new (target: string, creds: ReturnType<typeof credentials.createInsecure>) => Client>;
    const target = `unix://${socket}`;
    this.runtime = new pkg["RuntimeService"]!(target, credentials.createInsecure());
    this.images = new pkg["ImageService"]!(target, credentials.createInsecure());
  }

  /** call makes one unary RPC (RuntimeService, or ImageService for ImageStatus/ListImages) with a deadline. */
  call(method: string, request: RawMessage, timeoutMs = 10_000): Promise<RawMessage> {
    const stub = method === "ImageStatus" || method === "ListImages" ? this.images : this.runtime;
    const fn = (stub as unknown as Record<string, UnaryMethod>)[method];
    if (!fn) return Promise.reject(new Error(`no CRI method ${method}`));
    return new Promise((resolve, reject) => {
      fn.call(stub, request, { deadline: Date.now() + timeoutMs }, (err, response) => {
        if (err) reject(err);
        else resolve(response ?? {});
      });
    });
  }

  /** close closes both stubs' channel. */
  close(): void {
    this.runtime.close();
    this.images.close();
  }
}

/** isNotFound reports a gRPC NOT_FOUND (5), which teardown ignores. */
export function isNotFound(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 5;
}
