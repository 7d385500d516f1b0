// A small web app for the examples: /healthz (liveness), /ready (readiness), and two switches
// to try the kubelet's reactions by hand ($POD_IP: the pod IP, 127.0.0.1 on the host's network):
//   curl -X POST $POD_IP:$PORT/break     → /healthz answers 500: liveness fails, the container restarts
//   curl -X POST $POD_IP:$PORT/unready   → /ready answers 503: the pod goes NotReady (no restart)
//   curl -X POST $POD_IP:$PORT/ready     → ready again
// It listens on $POD_IP (the manifest sets it from status.podIP), else on 127.0.0.1.
// It exits cleanly on SIGTERM after finishing in-flight requests.
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 8080);
const host = process.env.POD_IP || "127.0.0.1";
const warmupMs = Number(process.env.WARMUP_MS ?? 0);
const started = Date.now();
let healthy = true;
let ready = true;

const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const reply = (code, body) => {
    res.writeHead(code, { "content-type": "text/plain" });
    res.end(body + "\n");
  };
  if (req.method === "POST" && path === "/break") return reply(200, (healthy = false, "healthz will now fail"));
  if (req.method === "POST" && path === "/unready") return reply(200, (ready = false, "ready will now fail"));
  if (req.method === "POST" && path === "/ready") return reply(200, (ready = true, "ready again"));
  if (path === "/healthz") return healthy ? reply(200, "ok") : reply(500, "broken");
  if (path === "/ready") return ready && Date.now() - started >= warmupMs ? reply(200, "ready") : reply(503, "not ready");
  return reply(200, `hello from ${process.env.HOSTNAME ?? "web"} (pid ${process.pid})`);
});

server.listen(port, host, () => console.log(`web: listening on ${host}:${port}`));
process.on("SIGTERM", () => {
  console.log("web: SIGTERM, shutting down");
  server.close(() => process.exit(0));
});
