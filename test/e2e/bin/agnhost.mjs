#!/usr/bin/env node
// agnhost.mjs: the stand-in for the upstream e2e images (registry.k8s.io/e2e-test-images/agnhost)
// that the node e2e probe cases run. The first argument picks the program, as with agnhost:
//
//   liveness --port P [--host H] [--healthy-seconds 10]
//       /healthz → 200 "ok" for the first N seconds after start, then 500 "error: <seconds>";
//       /redirect?loc=X → 302 to X with Go http.Redirect's body; /started → time since start;
//       anything else → Go's 404. (agnhost liveness/server.go)
//   test-webserver --port P [--host H]
//       200 on every path.
//   grpc-health-checking --port P --http-port Q [--host H]
//       grpc.health.v1 Health on P (SERVING for ""), HTTP on Q: /make-serving, /make-not-serving.
//   pause
//       sleeps until SIGTERM or SIGINT, then exits 0 (agnhost pause).
//
// Ports come from the arguments so that pods sharing the host network never collide. Like the
// Go programs, the servers keep the default SIGTERM disposition (they die at once); only pause
// catches it. The default host is 127.0.0.1 (tests stay on loopback).
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { clearInterval, setInterval } from "node:timers";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** parseFlags reads `--name value` pairs after the subcommand. */
function parseFlags(argv) {
  const flags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else flags.set(arg.slice(2), argv[++i] ?? "");
  }
  return flags;
}

function intFlag(flags, name, fallback) {
  const raw = flags.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name}: invalid value ${JSON.stringify(raw)}`);
  return value;
}

function listen(server, port, host, what) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      console.log(`${what} listening on ${host}:${port}`);
      resolve();
    });
  });
}

/** goNotFound answers as Go's http.NotFound does. */
function goNotFound(res) {
  res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  res.end("404 page not found\n");
}

const HTML_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" };

/**
 * goRedirect mirrors Go's http.Redirect for GET: a relative target is resolved against the
 * request path and cleaned; the body is `<a href="X">Found</a>.` plus "\n" written by Fprintln,
 * i.e. two newlines in all.
 */
function goRedirect(req, res, target, code) {
  let location = target;
  const hasScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(target);
  if (!hasScheme && !target.startsWith("//")) {
    const oldPath = new URL(req.url ?? "/", "http://x").pathname || "/";
    if (!location.startsWith("/")) location = oldPath.slice(0, oldPath.lastIndexOf("/") + 1) + location;
    const q = location.indexOf("?");
    const query = q >= 0 ? location.slice(q) : "";
    const path = q >= 0 ? location.slice(0, q) : location;
    let cleaned = posix.normalize(path);
    if (path.endsWith("/") && !cleaned.endsWith("/")) cleaned += "/";
    location = cleaned + query;
  }
  const escaped = location.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
  res.writeHead(code, { Location: location, "Content-Type": "text/html; charset=utf-8" });
  res.end(req.method === "GET" ? `<a href="${escaped}">Found</a>.\n\n` : undefined);
}

async function liveness(flags) {
  const started = performance.now();
  const healthyMs = intFlag(flags, "healthy-seconds", 10) * 1000;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const elapsedMs = performance.now() - started;
    if (url.pathname === "/healthz") {
      if (elapsedMs > healthyMs) {
        res.writeHead(500);
        res.end(`error: ${elapsedMs / 1000}`);
      } else {
        res.writeHead(200);
        res.end("ok");
      }
    } else if (url.pathname === "/redirect") {
      let loc;
      try {
        loc = decodeURIComponent((url.searchParams.get("loc") ?? "").replace(/\+/g, " "));
      } catch {
        res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" });
        res.end(`invalid redirect: ${JSON.stringify(url.searchParams.get("loc"))}\n`);
        return;
      }
      goRedirect(req, res, loc, 302);
    } else if (url.pathname === "/started") {
      res.writeHead(200);
      res.end(`${elapsedMs / 1000}s`);
    } else {
      goNotFound(res);
    }
  });
  await listen(server, intFlag(flags, "port", 8080), flags.get("host") ?? "127.0.0.1", "liveness");
}

async function testWebserver(flags) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("ok");
  });
  await listen(server, intFlag(flags, "port", 80), flags.get("host") ?? "127.0.0.1", "test-webserver");
}

function healthProtoPath() {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, "proto", "health.proto");
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error("proto/health.proto not found above " + fileURLToPath(import.meta.url));
}

async function grpcHealthChecking(flags) {
  const grpc = await import("@grpc/grpc-js");
  const { loadSync } = await import("@grpc/proto-loader");
  const host = flags.get("host") ?? "127.0.0.1";
  const definition = loadSync(healthProtoPath(), { keepCase: true, enums: String, defaults: true });
  const statuses = new Map([["", "SERVING"]]);
  const server = new grpc.Server();
  server.addService(definition["grpc.health.v1.Health"], {
    Check(call, callback) {
      const status = statuses.get(call.request.service);
      if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: "unknown service" });
      else callback(null, { status });
    },
    Watch(call) {
      call.end();
    },
  });
  const port = intFlag(flags, "port", 5000);
  await new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
  });
  console.log(`grpc-health-checking: gRPC listening on ${host}:${port}`);
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/make-serving" || path === "/make-not-serving") {
      statuses.set("", path === "/make-serving" ? "SERVING" : "NOT_SERVING");
      res.writeHead(200);
      res.end();
    } else {
      goNotFound(res);
    }
  });
  await listen(http, intFlag(flags, "http-port", 8080), host, "grpc-health-checking: HTTP");
}

function pause() {
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const stop = (signal) => {
    console.log(`pause: received ${signal}, exiting`);
    clearInterval(keepAlive);
    process.exit(0);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  console.log("pause: sleeping");
}

const PROGRAMS = {
  liveness,
  "test-webserver": testWebserver,
  "grpc-health-checking": grpcHealthChecking,
  pause: () => pause(),
};

const [name, ...rest] = process.argv.slice(2);
const program = name === undefined ? undefined : PROGRAMS[name];
if (program === undefined) {
  console.error(`usage: agnhost.mjs <${Object.keys(PROGRAMS).join("|")}> [--flag value]...`);
  process.exit(2);
}
try {
  await program(parseFlags(rest));
} catch (err) {
  console.error(`agnhost ${name}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
