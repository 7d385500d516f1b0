// End-to-end tests of `probelet probe --watch` (the built CLI, run as a user does) against a
// loopback HTTP server and local commands: probe lines, result changes, restarts, exit codes.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { runCli, type CliRun } from "../../test/cli-harness.js";

/** cli runs the built CLI; `onStdout` sees the output so far and may signal the process. */
const cli = (args: string[], onStdout?: (soFar: string, kill: (sig: NodeJS.Signals) => void) => void): Promise<CliRun> =>
  runCli(args, { ...(onStdout ? { onStdout } : {}), timeoutMs: 30_000 });

let http: Server;
let httpPort: number;

before(async () => {
  http = createServer((req, res) => {
    if (req.url === "/ok") res.writeHead(200).end("ok body");
    else res.writeHead(503).end("fail body");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  httpPort = (http.address() as AddressInfo).port;
});

after(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

describe("probelet probe --watch", () => {
  test("--count 3 prints three results and the change of the cached result; exit 0", async () => {
    const run = await cli(["probe", "--watch", "--count", "3", "--period", "1", "--http-get", `http://127.0.0.1:${httpPort}/ok`]);
    assert.equal(run.code, 0, run.stderr);
    const probes = run.stdout.split("\n").filter((l) => / readiness probe: success \(success \d of 1, \d+ ms\) → Success$/.test(l));
    assert.equal(probes.length, 3, run.stdout);
    assert.match(run.stdout, /^→ readiness result: Failure \(initial value for container probelet:\/\/[0-9a-f]{12}\)\n/);
    assert.equal(run.stdout.split("\n").filter((l) => l === "→ readiness result changed: Failure → Success").length, 1);
  });

  test("-o json: one object per probe with the run counter and the change", async () => {
    const run = await cli(["probe", "--watch", "--count", "2", "--period", "1", "--failure-threshold", "2", "--http-get", `http://127.0.0.1:${httpPort}/fail`, "-o", "json"]);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 2);
    assert.deepEqual(lines.map((l) => [l["result"], l["run"], l["threshold"], l["cachedResult"]]), [
      ["failure", 1, 2, "Failure"],
      ["failure", 2, 2, "Failure"],
    ]);
    // Readiness starts at Failure, so crossing the failure threshold changes nothing.
    assert.equal(lines.some((l) => "changedFrom" in l), false);
  });

  test("liveness Failure → the kubelet's kill message and a restarted container that is probed again", async () => {
    const run = await cli(["probe", "--watch", "--count", "2", "--period", "1", "--failure-threshold", "1", "--type", "liveness", "--exec", "--", "false"]);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.split("\n");
    assert.equal(lines.filter((l) => l === "Container probe failed liveness probe, will be restarted").length, 2, run.stdout);
    assert.equal(lines.filter((l) => /^→ container restarted \(restart count 1\), new container ID probelet:\/\/[0-9a-f]{12}$/.test(l)).length, 1);
    assert.equal(lines.filter((l) => l === "→ liveness result changed: Success → Failure").length, 2);
    assert.equal(lines.filter((l) => l.startsWith("→ liveness result: Success (initial value")).length, 2);
  });

  test("startup: once the probe succeeds the watch ends (the kubelet never re-runs it for this container); exit 0", async () => {
    const run = await cli(["probe", "--watch", "--type", "startup", "--http-get", `http://127.0.0.1:${httpPort}/ok`]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assert.match(lines[0]!, /^→ startup result: Unknown \(initial value for container probelet:\/\/[0-9a-f]{12}\)$/);
    assert.match(lines[1]!, / startup probe: success \(success 1 of 1, \d+ ms\) → Success$/);
    assert.deepEqual(lines.slice(2), [
      "  output: ok body",
      "→ startup result changed: Unknown → Success",
      "startup probe succeeded: the container has started; the kubelet never runs this startup probe again for it",
    ]);
  });

  const signalled: { signal: NodeJS.Signals; path: string; waitFor: string; code: number }[] = [
    { signal: "SIGINT", path: "/ok", waitFor: "→ readiness result changed: Failure → Success", code: 0 },
    { signal: "SIGTERM", path: "/fail", waitFor: "Readiness probe failed: HTTP probe failed with statuscode: 503", code: 1 },
  ];
  for (const c of signalled) {
    test(`${c.signal} stops the watch cleanly; exit ${c.code} when the cached result is ${c.code === 0 ? "Success" : "Failure"}`, async () => {
      let sent = false;
      const run = await cli(["probe", "--watch", "--http-get", `http://127.0.0.1:${httpPort}${c.path}`], (soFar, kill) => {
        if (!sent && soFar.includes(c.waitFor)) {
          sent = true;
          kill(c.signal);
        }
      });
      assert.equal(run.code, c.code, run.stdout + run.stderr);
      assert.equal(sent, true);
      assert.equal(run.stderr, "");
    });
  }
});
