// The gRPC anchor (bench/anchor-grpc/main.go): the kubelet's gRPC probe method under the same
// worker loop as the main anchor, and the gRPC health server it and probelet probe. The module
// proxy is not used, so it is built in GOPATH mode against Debian's packaged gRPC sources
// (golang-google-grpc-dev, /usr/share/gocode; scripts/bench-deps.sh installs them).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BENCH_DEPS_HINT, portAnswers } from "./anchor.js";

/** GOCODE is where Debian's golang-*-dev packages put their Go sources. */
export const GOCODE = "/usr/share/gocode";

/** GrpcAnchorBuild is the built binary or the reason the gRPC scenario has no anchor. */
export type GrpcAnchorBuild = { ok: true; binary: string } | { ok: false; reason: string };

/** buildGrpcAnchor builds bench/anchor-grpc into `outDir`/anchor-grpc (GOPATH mode, no network). */
export function buildGrpcAnchor(srcDir: string, outDir: string, log: (line: string) => void): GrpcAnchorBuild {
  const grpcSrc = join(GOCODE, "src/google.golang.org/grpc/health/grpc_health_v1");
  if (!existsSync(grpcSrc)) return { ok: false, reason: `${grpcSrc} is missing (${BENCH_DEPS_HINT})` };
  const binary = join(outDir, "anchor-grpc");
  log(`go build -o ${binary} .   (in ${srcDir}, GOPATH=${GOCODE} GO111MODULE=off GOPROXY=off)`);
  const r = spawnSync("go", ["build", "-o", binary, "."], {
    cwd: srcDir,
    encoding: "utf8",
    timeout: 600_000,
    env: { ...process.env, GOPATH: GOCODE, GO111MODULE: "off", GOFLAGS: "", GOPROXY: "off", GOTOOLCHAIN: "local" },
  });
  if (r.status !== 0) return { ok: false, reason: `go build (anchor-grpc) failed: ${r.stderr || r.error?.message || ""}`.trim() };
  return { ok: true, binary };
}

/** startGrpcTarget starts `anchor-grpc -serve host:port` and waits until it accepts connections. */
export async function startGrpcTarget(binary: string, host: string, port: number): Promise<{ stop(): Promise<void> }> {
  if (await portAnswers(host, port)) throw new Error(`${host}:${port} is already in use (a target left over from an earlier run?)`);
  const child: ChildProcess = spawn(binary, ["-serve", `${host}:${port}`, "-max-lifetime", "30m"], { stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exited, sleep(5000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  for (let i = 0; i < 100; i++) {
    if (await portAnswers(host, port)) return { stop };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  await stop();
  throw new Error("gRPC anchor target did not come up");
}
