// A gRPC server implementing grpc.health.v1.Health (SERVING), for the grpc probe example.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";

const port = Number(process.env.PORT ?? 5000);
const protoPath = fileURLToPath(new URL("../../proto/health.proto", import.meta.url));
const definition = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { keepCase: true, enums: String }));
const server = new grpc.Server();
server.addService(definition.grpc.health.v1.Health.service, {
  Check: (_call, callback) => callback(null, { status: "SERVING" }),
  Watch: (call) => call.end(),
});
server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    console.error(`grpc-health: ${err.message}`);
    process.exit(1);
  }
  console.log(`grpc-health: serving on 127.0.0.1:${port}`);
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
