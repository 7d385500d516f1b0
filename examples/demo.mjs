// The README's main job: watch a liveness probe with kubelet semantics against a real server.
//
// It starts a loopback HTTP server that behaves like Kubernetes' agnhost "liveness" image
// (/healthz answers 200 for the first 10 seconds, then 500), and runs
//   probelet probe --watch --type liveness --http-get http://127.0.0.1:PORT/healthz ...
// against it, so you see the probe succeed, fail twice, cross its threshold, and the kubelet's
// verdict: the container would be restarted. Ends by itself after --count probes.
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const healthyForMs = 10_000;
let startedAt = performance.now();

const server = createServer((req, res) => {
  const age = performance.now() - startedAt;
  if (req.url === "/healthz" && age < healthyForMs) {
    res.end("ok");
  } else {
    res.statusCode = 500;
    res.end(`error: ${Math.round(age / 1000)}`);
  }
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const cli = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
  const args = [
    cli, "probe", "--watch", "--count", "12",
    "--type", "liveness",
    "--http-get", `http://127.0.0.1:${port}/healthz`,
    "--period", "2", "--failure-threshold", "2", "--timeout", "1",
  ];
  console.log(`$ probelet ${args.slice(1).join(" ")}`);
  console.log(`(a loopback server on port ${port} answers /healthz with 200 for 10 s, then 500)\n`);
  startedAt = performance.now();
  const child = spawn(process.execPath, args, { stdio: "inherit" });
  const guard = setTimeout(() => child.kill("SIGINT"), 60_000);
  child.on("exit", (code) => {
    clearTimeout(guard);
    server.close();
    // 1 only means the last verdict was a failure, which is what this demo shows.
    process.exitCode = code === 0 || code === 1 ? 0 : (code ?? 1);
  });
});
