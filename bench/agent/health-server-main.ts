// Child-process entry of the shared health server, so the scale bench's CPU and event-loop
// figures are the agent's alone. Prints "PORT <n>" once listening; answers a "stats" line on
// stdin with "STATS <connections> <requests>"; exits when stdin closes (the parent ended).
//
//   node dist/bench/agent/health-server-main.js [port]
import { createInterface } from "node:readline";
import { startHealthServer } from "./health-server.js";

const server = await startHealthServer(Number(process.argv[2] ?? "0"));
process.stdout.write(`PORT ${server.port}\n`);
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "stats") process.stdout.write(`STATS ${server.connections()} ${server.requests()}\n`);
});
lines.on("close", () => void server.close().then(() => process.exit(0)));
