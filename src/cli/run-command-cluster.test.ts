// `probelet run --kubeconfig` with bad input: every problem is reported before anything starts.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../../test/cli-harness.js";

test("run --kubeconfig refuses a kubeconfig that does not parse, a missing one, a bad node name and node flags without it, naming the problem with exit code 2 and no stack trace", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-cluster-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const broken = join(dir, "broken.kubeconfig");
  await writeFile(broken, "clusters: [\n");
  const good = join(dir, "good.kubeconfig");
  await writeFile(good, "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n");
  const state = ["--state-dir", join(dir, "state"), "--listen", "127.0.0.1:0"];
  const cases: [string[], RegExp][] = [
    [["--kubeconfig", broken], /error: .*broken\.kubeconfig: not a kubeconfig: /],
    [["--kubeconfig", join(dir, "missing")], /error: cannot read kubeconfig .*missing: /],
    [["--kubeconfig", good, "--node-name", "Bad_Name"], /error: --node-name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/],
    [["--kubeconfig", good, "--kubelet-port", "70000"], /error: --kubelet-port: Invalid value: "70000": must be between 1 and 65535, inclusive/],
    [["--kubeconfig", good, "--node-ip", "nope"], /error: --node-ip: Invalid value: "nope": must be an IP address/],
    [["-f", "-", "--node-name", "n1"], /error: --node-name needs --kubeconfig/],
  ];
  for (const [args, expected] of cases) {
    const run = await runCli(["run", ...args, ...state], { input: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: busybox, command: [sleep, '1']}]}\n" });
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, expected, run.stderr);
    assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
  }
});
