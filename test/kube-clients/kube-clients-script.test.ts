// scripts/kube-clients.sh: the cached kubectl binaries are the versions the project tests
// against, `path` finds them, and a cache the user cannot write is reported with what to run.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../cri/containerd-script.js";
import { kubectlEnv, kubectlPath } from "./kubectl-env.js";

const { skip } = kubectlEnv();
const script = join(repoRoot(), "scripts", "kube-clients.sh");

function runScript(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync("bash", [script, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
  return { status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
}

/** clientVersion runs `kubectl version --client -o json` and returns clientVersion.gitVersion. */
function clientVersion(path: string): string {
  const out = execFileSync(path, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 30_000 });
  const parsed = JSON.parse(out) as { clientVersion?: { gitVersion?: string } };
  return parsed.clientVersion?.gitVersion ?? "";
}

test("the cached kubectl 1.20 reports client version v1.20.2", { skip }, () => {
  assert.equal(clientVersion(kubectlPath("1.20")), "v1.20.2");
});

test("the cached kubectl 1.32 reports a client version v1.32.x", { skip }, () => {
  assert.match(clientVersion(kubectlPath("1.32")), /^v1\.32\.\d+$/);
});

test("path prints the cached binary of each version", { skip }, () => {
  for (const version of ["1.20", "1.32"] as const) {
    const run = runScript(["path", version]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), kubectlPath(version));
  }
});

test("install with both binaries and the stamp present fetches nothing and says so", { skip }, () => {
  const run = runScript(["install"]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /already installed: kubectl-1\.20 kubernetes-client 1\.20\.\S+ kubectl-1\.32 kubectl 1\.32\.\S+/);
  assert.doesNotMatch(run.stderr, /fetching/);
});

test("path refuses an unknown version and names the ones it has", () => {
  const run = runScript(["path", "1.19"]);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /unknown kubectl version '1\.19': expected one of: 1\.20 1\.32/);
});

test("install into a cache it cannot write says what to run instead", () => {
  const run = runScript(["install"], { PROBELET_CACHE_DIR: "/proc/probelet-cache" });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /cannot write \/proc\/probelet-cache\/kube-clients: run 'sudo .*kube-clients\.sh install' once, or set PROBELET_CACHE_DIR/);
});

test("path without an installed cache says to run install", () => {
  const run = runScript(["path", "1.20"], { PROBELET_CACHE_DIR: "/proc/probelet-cache" });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /kubectl 1\.20 is not installed in \/proc\/probelet-cache\/kube-clients \(run: .*kube-clients\.sh install\)/);
});
