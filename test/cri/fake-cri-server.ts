// A fake CRI v1 server on a unix socket, for the CRI client and runtime tests that must run
// without containerd: each RPC answers from a handler (or UNIMPLEMENTED), and every request
// is recorded. Built on the same proto/cri-api.proto the client loads.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type ServiceDefinition } from "@grpc/grpc-js";
import { loadCriDefinition } from "../../src/runtime/cri/client.js";
import { IMAGE_SERVICE_METHODS, type CriMethod, type CriMethods } from "../../src/runtime/cri/cri-types.js";

/** FakeCriError makes a handler fail with a gRPC status code and details. */
export class FakeCriError {
  constructor(
    readonly code: status,
    readonly details: string,
  ) {}
}

/** FakeCriHandlers answer RPCs; a handler may return (or resolve with) a FakeCriError, or never settle. */
export type FakeCriHandlers = {
  [M in CriMethod]?: (request: CriMethods[M][0]) => unknown;
};

/** FakeCriCall is one recorded request. */
export interface FakeCriCall {
  method: CriMethod;
  request: Record<string, unknown>;
}

/** FakeCriServer is a started fake. */
export interface FakeCriServer {
  readonly socket: string;
  /** Every request received, in order. */
  readonly calls: FakeCriCall[];
  /** requests lists the requests received for one method. */
  requests<M extends CriMethod>(method: M): Record<string, unknown>[];
  /** close cancels pending calls, stops the server and removes its directory. */
  close(): Promise<void>;
}

/** startFakeCriServer listens on a fresh unix socket in a temporary directory. */
export async function startFakeCriServer(handlers: FakeCriHandlers): Promise<FakeCriServer> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-fake-cri-"));
  const socket = join(dir, "cri.sock");
  const calls: FakeCriCall[] = [];
  const definition = loadCriDefinition();
  const server = new Server();
  for (const service of ["runtime.v1.RuntimeService", "runtime.v1.ImageService"]) {
    const serviceDef = definition[service] as ServiceDefinition;
    const impl: Record<string, (call: ServerUnaryCall<object, object>, cb: sendUnaryData<object>) => void> = {};
    for (const name of Object.keys(serviceDef)) {
      const method = name as CriMethod;
      if (IMAGE_SERVICE_METHODS.has(method) !== service.endsWith("ImageService")) continue;
      impl[name] = (call, callback) => {
        calls.push({ method, request: call.request as Record<string, unknown> });
        const handler = handlers[method] as ((request: object) => unknown) | undefined;
        if (!handler) {
          callback({ code: status.UNIMPLEMENTED, details: `fake: ${method} not implemented` });
          return;
        }
        Promise.resolve()
          .then(() => handler(call.request))
          .then(
            (result) => {
              if (result instanceof FakeCriError) callback({ code: result.code, details: result.details });
              else callback(null, result as object);
            },
            (err: unknown) => callback({ code: status.INTERNAL, details: String(err) }),
          );
      };
    }
    server.addService(serviceDef, impl);
  }
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return {
    socket,
    calls,
    requests: (method) => calls.filter((c) => c.method === method).map((c) => c.request),
    close: async () => {
      server.forceShutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
