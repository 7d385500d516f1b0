// Building and starting the Go anchor (/work/shared/anchors/kubelet-probe-method): the driver
// that re-creates the kubelet's probe method, and the loopback target both drivers probe.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** AnchorBinaries are the built anchor programs. */
export interface AnchorBinaries {
  driver: string;
  target: string;
  goVersion: string;
}

/** AnchorBuild is either the built binaries or the reason the anchor is skipped. */
export type AnchorBuild = { ok: true; binaries: AnchorBinaries } | { ok: false; reason: string };

type Log = (line: string) => void;

function goVersion(): string | undefined {
  const r = spawnSync("go", ["version"], { encoding: "utf8", timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * BENCH_DEPS_HINT tells the user how to install what the anchors need (scripts/bench-deps.sh
 * installs Debian's golang-go and golang-google-grpc-dev as root, or prints the command).
 */
export const BENCH_DEPS_HINT = "run `sudo sh scripts/bench-deps.sh`";

/**
 * installBenchDeps runs scripts/bench-deps.sh, which installs what is missing when we are root
 * and otherwise prints the command; it reports whether everything is there afterwards.
 */
export function installBenchDeps(root: string): boolean {
  const r = spawnSync("sh", [join(root, "scripts", "bench-deps.sh")], { stdio: "inherit", timeout: 900_000 });
  return r.status === 0;
}

/** buildAnchor builds anchor-driver and anchor-target from `anchorsDir` into `outDir`. */
export function buildAnchor(anchorsDir: string, outDir: string, log: Log): AnchorBuild {
  const src = join(anchorsDir, "kubelet-probe-method");
  if (!existsSync(join(src, "go.mod"))) return { ok: false, reason: `no Go module at ${src}` };
  const version = goVersion();
  if (version === undefined) return { ok: false, reason: `\`go\` is not installed (${BENCH_DEPS_HINT})` };
  const binaries = { driver: join(outDir, "anchor-driver"), target: join(outDir, "anchor-target"), goVersion: version };
  for (const [pkg, out] of [["./driver", binaries.driver], ["./target", binaries.target]] as const) {
    log(`go build -o ${out} ${pkg}   (in ${src})`);
    const r = spawnSync("go", ["build", "-o", out, pkg], {
      cwd: src,
      encoding: "utf8",
      timeout: 600_000,
      env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" },
    });
    if (r.status !== 0) return { ok: false, reason: `go build ${pkg} failed: ${r.stderr || r.error?.message || ""}`.trim() };
  }
  return { ok: true, binaries };
}

/** portAnswers reports whether something accepts TCP connections on host:port (bounded by 1 s). */
export function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** RunningTarget is a started anchor target; stop() ends it and waits for its exit. */
export interface RunningTarget {
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * startTarget starts `anchor-target -http H:P -tcp H:P -max-lifetime 30m` and waits until both
 * ports accept connections. It refuses to start when a port is already taken.
 */
export async function startTarget(binary: string, host: string, httpPort: number, tcpPort: number): Promise<RunningTarget> {
  for (const port of [httpPort, tcpPort]) {
    if (await portAnswers(host, port)) throw new Error(`${host}:${port} is already in use (a target left over from an earlier run?)`);
  }
  const child: ChildProcess = spawn(binary, ["-http", `${host}:${httpPort}`, "-tcp", `${host}:${tcpPort}`, "-max-lifetime", "30m"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exited, sleep(5000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  for (let i = 0; i < 100; i++) {
    if ((await portAnswers(host, httpPort)) && (await portAnswers(host, tcpPort))) return { pid: child.pid, stop };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  await stop();
  throw new Error("anchor target did not come up");
}
