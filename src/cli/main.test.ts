// End-to-end tests of the built CLI (`node dist/src/cli/main.js …`): the dispatcher and one-shot
// `probelet probe` against loopback servers started here; stdout, stderr and exit codes as a user
// sees them. The --watch tests are in probe-watch.test.ts.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli, type CliRun } from "../../test/cli-harness.js";
import { startGrpcHealthServer, type GrpcHealthServer } from "../../test/servers/grpc-health-server.js";

/** cli runs the built CLI with `input` on stdin. */
const cli = (args: string[], options: { input?: string } = {}): Promise<CliRun> => runCli(args, options);

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** closedPort returns a loopback port that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let http: Server;
let httpPort: number;
let serving: GrpcHealthServer;
let notServing: GrpcHealthServer;
let dir: string;

before(async () => {
  http = createServer((req, res) => {
    if (req.url === "/ok") res.writeHead(200).end("ok body");
    else if (req.url === "/moved") res.writeHead(300).end("moved");
    else res.writeHead(503).end("fail body");
  });
  httpPort = await listen(http);
  serving = await startGrpcHealthServer({ status: "SERVING" });
  notServing = await startGrpcHealthServer({ status: "NOT_SERVING" });
  dir = await mkdtemp(join(tmpdir(), "probelet-cli-"));
});

after(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await serving.close();
  await notServing.close();
  await rm(dir, { recursive: true, force: true });
});

describe("probelet (dispatcher)", () => {
  test("--help lists the probe command; exit 0", async () => {
    const run = await cli(["--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /\n {2}probe {5}run a probe once/);
  });

  test("probe --help shows the probe usage; exit 0", async () => {
    const run = await cli(["probe", "--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage:\n {2}probelet probe \(-f FILE \| --http-get URL/);
  });

  test("--version prints the package.json version", async () => {
    const run = await cli(["--version"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^probelet \d+\.\d+\.\d+\n$/);
  });

  test("unknown subcommand → usage error, exit 2", async () => {
    const run = await cli(["frobnicate"]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, `error: unknown command "frobnicate"\nRun 'probelet --help' for usage.\n`);
  });

  test("unknown flag → usage error, exit 2", async () => {
    const run = await cli(["probe", "--tcp", "127.0.0.1:1", "--bogus"]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, "error: unknown flag: --bogus\nRun 'probelet probe --help' for usage.\n");
    assert.equal(run.stdout, "");
  });

  test("missing flag value → usage error, exit 2", async () => {
    const run = await cli(["probe", "--http-get"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^error: flag needs an argument: --http-get\n/);
  });
});

describe("probelet probe (one-shot)", () => {
  test("[case 2] httpGet 200 → success with the body as output; exit 0", async () => {
    const run = await cli(["probe", "--http-get", `http://127.0.0.1:${httpPort}/ok`]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^readiness probe: success \(\d+ ms\)\n {2}output: ok body\n$/);
  });

  test("[case 39][case 101] httpGet 503 → failure with the kubelet's event message, no body; exit 1", async () => {
    const run = await cli(["probe", "--http-get", `http://127.0.0.1:${httpPort}/fail`]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^readiness probe: failure \(\d+ ms\)\n {2}Readiness probe failed: HTTP probe failed with statuscode: 503\n$/);
  });

  test("-o json: result, output, durationMs, probeType, cachedResult, events and time", async () => {
    const run = await cli(["probe", "--http-get", `http://127.0.0.1:${httpPort}/fail`, "--type", "liveness", "-o", "json"]);
    assert.equal(run.code, 1);
    const lines = run.stdout.trim().split("\n");
    assert.equal(lines.length, 1);
    const report = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(report["result"], "failure");
    assert.equal(report["output"], "HTTP probe failed with statuscode: 503");
    assert.equal(report["probeType"], "liveness");
    assert.equal(report["cachedResult"], "Failure");
    assert.equal(typeof report["durationMs"], "number");
    assert.ok((report["durationMs"] as number) >= 0);
    assert.ok(!Number.isNaN(Date.parse(report["time"] as string)));
    assert.equal("error" in report, false);
    assert.deepEqual(report["events"], [{ type: "Warning", reason: "Unhealthy", message: "Liveness probe failed: HTTP probe failed with statuscode: 503" }]);
  });

  test("[case 39][case 101] httpGet 300 without Location → warning (ProbeWarning event); exit 0", async () => {
    const run = await cli(["probe", "--http-get", `http://127.0.0.1:${httpPort}/moved`, "-o", "json"]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual([report["result"], report["cachedResult"], report["output"]], ["warning", "Success", "Probe terminated redirects, Response body: moved"]);
    assert.deepEqual(report["events"], [
      { type: "Warning", reason: "ProbeWarning", message: "Readiness probe warning: Probe terminated redirects, Response body: moved" },
    ]);
  });

  test("[case 93] an unresolvable named port errors: result unknown with the error, cached Failure; exit 1", async () => {
    const run = await cli(["probe", "-f", "-", "-o", "json"], { input: "httpGet:\n  port: abc\n" });
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual([report["result"], report["cachedResult"], report["output"]], ["unknown", "Failure", ""]);
    assert.equal(report["error"], 'port "abc" not found');
    assert.deepEqual(report["events"], [
      { type: "Warning", reason: "Unhealthy", message: 'Readiness probe errored and resulted in unknown state: port "abc" not found' },
    ]);
  });

  test("IPv6 hosts in brackets work for --tcp, --grpc and --http-get", async (t) => {
    const v6 = createServer((_req, res) => res.writeHead(200).end("v6"));
    const bound = await new Promise<boolean>((resolve) => {
      v6.once("error", () => resolve(false));
      v6.listen(0, "::1", () => resolve(true));
    });
    if (!bound) {
      t.skip("::1 is not available on this host");
      return;
    }
    t.after(() => new Promise<void>((resolve) => v6.close(() => resolve())));
    const port = (v6.address() as AddressInfo).port;
    const grpc6 = await startGrpcHealthServer({ host: "::1" });
    t.after(() => grpc6.close());
    const tcp = await cli(["probe", "--tcp", `[::1]:${port}`]);
    assert.equal(tcp.code, 0, tcp.stdout + tcp.stderr);
    const http6 = await cli(["probe", "--http-get", `http://[::1]:${port}/`]);
    assert.equal(http6.code, 0, http6.stdout + http6.stderr);
    assert.match(http6.stdout, /\n {2}output: v6\n$/);
    const viaHost = await cli(["probe", "--http-get", `http://localhost:${port}/`, "--host", "[::1]"]);
    assert.equal(viaHost.code, 0, viaHost.stdout + viaHost.stderr);
    const grpc = await cli(["probe", "--grpc", `[::1]:${grpc6.port}`]);
    assert.equal(grpc.code, 0, grpc.stdout + grpc.stderr);
  });

  test("[case 60] tcpSocket: success output is empty; a closed port fails with the dial error text", async () => {
    const up = await cli(["probe", "--tcp", `127.0.0.1:${httpPort}`, "-o", "json"]);
    assert.equal(up.code, 0, up.stderr);
    const ok = JSON.parse(up.stdout) as Record<string, unknown>;
    assert.deepEqual([ok["result"], ok["output"], ok["cachedResult"]], ["success", "", "Success"]);

    const port = await closedPort();
    const down = await cli(["probe", "--tcp", `127.0.0.1:${port}`]);
    assert.equal(down.code, 1);
    assert.match(down.stdout, new RegExp(`^readiness probe: failure \\(\\d+ ms\\)\\n  Readiness probe failed: dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused\\n$`));
  });

  test("[case 70] exec runs argv on this host: stdout then stderr, exit 3 → failure; exit 1", async () => {
    const run = await cli(["probe", "-o", "json", "--exec", "--", "sh", "-c", "echo out; echo err >&2; exit 3"]);
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(report["result"], "failure");
    assert.equal(report["output"], "out\nerr\n");
    assert.deepEqual(report["events"], [{ type: "Warning", reason: "Unhealthy", message: "Readiness probe failed: out\nerr\n" }]);
  });

  test("exec `sh -c 'exit 3'` → failure (trailing space of the empty-output event kept); exec success → exit 0", async () => {
    const failed = await cli(["probe", "--type", "liveness", "--exec", "--", "sh", "-c", "exit 3"]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stdout, /^liveness probe: failure \(\d+ ms(, [\d.]+ ms CPU)?\)\n {2}Liveness probe failed: \n$/);
    const passed = await cli(["probe", "--exec", "--", "true"]);
    assert.equal(passed.code, 0, passed.stderr);
  });

  test("[case 77][case 80] grpc SERVING → success `service healthy`; the request carries --service", async () => {
    const run = await cli(["probe", "--grpc", `127.0.0.1:${serving.port}`, "--service", "db", "-o", "json"]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual([report["result"], report["output"]], ["success", "service healthy"]);
    assert.equal(serving.checks.at(-1)?.service, "db");
  });

  test("[case 75] grpc NOT_SERVING → failure `service unhealthy (responded with \"NOT_SERVING\")`; exit 1", async () => {
    const run = await cli(["probe", "--grpc", `127.0.0.1:${notServing.port}`]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /\n {2}Readiness probe failed: service unhealthy \(responded with "NOT_SERVING"\)\n$/);
  });

  test("-f with a YAML Probe; flags override the file's fields", async () => {
    const file = join(dir, "probe.yaml");
    await writeFile(file, `httpGet:\n  path: /fail\n  port: ${httpPort}\ntimeoutSeconds: 2\n`);
    const fromFile = await cli(["probe", "-f", file]);
    assert.equal(fromFile.code, 1);
    assert.match(fromFile.stdout, /statuscode: 503/);
    const overridden = await cli(["probe", "-f", file, "--http-get", `http://127.0.0.1:${httpPort}/ok`, "-o", "json"]);
    assert.equal(overridden.code, 0, overridden.stderr);
    assert.equal((JSON.parse(overridden.stdout) as Record<string, unknown>)["output"], "ok body");
  });

  test("-f - reads the probe from stdin (JSON)", async () => {
    const run = await cli(["probe", "-f", "-"], { input: JSON.stringify({ tcpSocket: { port: httpPort } }) });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^readiness probe: success/);
  });

  test("[case 212] -f: liveness successThreshold 2 → exit 2 with the field path on stderr", async () => {
    const file = join(dir, "invalid.yaml");
    await writeFile(file, `tcpSocket:\n  port: ${httpPort}\nsuccessThreshold: 2\n`);
    const run = await cli(["probe", "-f", file, "--type", "liveness"]);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr, "error: probe is invalid:\n* successThreshold: Invalid value: 2: must be 1\n");
  });

  test("-f: an unknown field and a wrong type → exit 2 naming the fields", async () => {
    const file = join(dir, "undecodable.yaml");
    await writeFile(file, `tcpSocket:\n  port: 80\n  portt: 81\nperiodSeconds: ten\n`);
    const run = await cli(["probe", "-f", file]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`^error: cannot decode ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\n\\* `));
    assert.match(run.stderr, /tcpSocket\.portt/);
    assert.match(run.stderr, /periodSeconds/);
  });

  test("-f: a missing file → exit 2", async () => {
    const run = await cli(["probe", "-f", join(dir, "nope.yaml")]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^error: the path ".*nope\.yaml" does not exist\n/);
  });

  test("[case 210] flags are validated like the API: port 0 → exit 2", async () => {
    const run = await cli(["probe", "--tcp", "127.0.0.1:0"]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, "error: probe is invalid:\n* tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive\n");
  });
});
