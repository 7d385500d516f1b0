// A gRPC server implementing grpc.health.v1.Health for the grpc probe example: the server as a
// whole (service "") and the "ready" service are SERVING; any other service is NOT_FOUND, as in
// the reference health server.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";

const port = Number(process.env.PORT ?? 5000);
// The pod IP (the manifest sets it from status.podIP), else loopback on the host's network.
const host = process.env.POD_IP || "127.0.0.1";
const protoPath = fileURLToPath(new URL("../../proto/health.proto", import.meta.url));
const definition = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { keepCase: true, enums: String }));
const server = new grpc.Server();
server.addService(definition.grpc.health.v1.Health.service, {
  Check: (call, callback) => {
    const service = call.request.service ?? "";
    if (service === "" || service === "ready") callback(null, { status: "SERVING" });
    else callback({ code: grpc.status.NOT_FOUND, details: "unknown service" });
  },
  Watch: (call) => call.end(),
});
server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    console.error(`grpc-health: ${err.message}`);
    process.exit(1);
  }
  console.log(`grpc-health: serving on ${host}:${port}`);
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
