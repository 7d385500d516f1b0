import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { test, type TestContext } from "node:test";
import { getOnNewConnection } from "../../test/e2e/host.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { ConnectionBudget, connectionLimitsFor, openFileLimit, processConnectionBudget } from "./connection-guard.js";
import { startStatusServer } from "./server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NOBODY = 65534;
const TOKEN = "owner-token-owner-token-owner-token";

test("connectionLimitsFor keeps unauthenticated connections to a quarter of the descriptors, one source to an eighth of that", () => {
  assert.deepEqual(connectionLimitsFor(256), { maxUnproven: 64, maxUnprovenPerSource: 8, maxTotal: 128 });
  assert.deepEqual(connectionLimitsFor(1024), { maxUnproven: 256, maxUnprovenPerSource: 32, maxTotal: 512 });
  assert.deepEqual(connectionLimitsFor(1 << 20), { maxUnproven: 512, maxUnprovenPerSource: 64, maxTotal: 1024 });
  assert.deepEqual(connectionLimitsFor(16), { maxUnproven: 8, maxUnprovenPerSource: 4, maxTotal: 16 });
  assert.ok(openFileLimit() > 0);
});

test("past a bound the oldest unproven connection is closed, never a proven one, and never the newcomer", async (t) => {
  const budget = new ConnectionBudget({ maxUnproven: 4, maxUnprovenPerSource: 3, maxTotal: 6 });
  const server = createServer((socket) => {
    socket.on("data", (d) => {
      if (d.toString() === "prove") budget.prove(socket);
    });
  });
  budget.watch(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const sockets: Socket[] = [];
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  const open = async (host = "127.0.0.1"): Promise<{ socket: Socket; closed: () => boolean }> => {
    const socket = connect({ port, host: "127.0.0.1", localAddress: host });
    sockets.push(socket);
    let closed = false;
    socket.on("close", () => (closed = true)).on("error", () => undefined);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    await sleep(20);
    return { socket, closed: () => closed };
  };
  const prove = async (c: { socket: Socket }): Promise<void> => {
    c.socket.write("prove");
    await sleep(20);
  };
  const proven = await open();
  await prove(proven);
  const silent = [await open(), await open(), await open()];
  assert.deepEqual(budget.counts(), { total: 4, unproven: 3 });
  const fourth = await open();
  assert.deepEqual([proven.closed(), ...silent.map((s) => s.closed()), fourth.closed()], [false, true, false, false, false], "the source's oldest silent one made room");
  const other = [await open("127.0.0.2"), await open("127.0.0.2")];
  assert.deepEqual(budget.counts(), { total: 5, unproven: 4 });
  assert.equal(silent[1]?.closed(), true, "the oldest of all made room for the second source's newcomer");
  const extra = await open("127.0.0.3");
  assert.equal(silent[2]?.closed(), true);
  for (const c of [fourth, ...other, extra]) await prove(c);
  assert.deepEqual(budget.counts(), { total: 5, unproven: 0 });
  const late = [await open("127.0.0.4"), await open("127.0.0.4")];
  assert.deepEqual(late.map((c) => c.closed()), [true, false], "at the total bound the oldest unproven one goes");
  await prove(late[1]!);
  const refused = await open("127.0.0.5");
  assert.equal(refused.closed(), true, "with every slot proven, a newcomer is refused");
  assert.equal([proven, fourth, ...other, extra, late[1]!].some((c) => c.closed()), false, "no proven connection was ever closed");
});

/** attacker opens up to `count` silent connections to port as `uid` (when given) and holds them until killed; it prints how many it opened. */
function attack(t: TestContext, port: number, count: number, uid: number | undefined): Promise<{ opened: number; refused: number }> {
  const script = `
    const net = require("node:net");
    let opened = 0, refused = 0, pending = 0, started = 0;
    const report = () => console.log(JSON.stringify({ opened, refused }));
    const next = () => {
      while (pending < 200 && started < ${count}) {
        started++; pending++;
        const s = net.connect(${port}, "127.0.0.1");
        let settled = false;
        const done = (ok) => { if (settled) return; settled = true; pending--; ok ? opened++ : refused++; if (started === ${count} && pending === 0) report(); else next(); };
        s.once("connect", () => done(true));
        s.once("error", () => done(false));
        s.on("close", () => undefined);
      }
    };
    next();
    setInterval(() => undefined, 1000);`;
  const raise = "ulimit -n 4096 2>/dev/null || ulimit -n $(ulimit -Hn)";
  const command = ["sh", "-c", `${raise}; exec "$0" -e "$1"`, process.execPath, script];
  const child = uid === undefined ? spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] }) : spawn("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ...command], { stdio: ["ignore", "pipe", "inherit"], cwd: "/" });
  t.after(() => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(JSON.parse(out) as { opened: number; refused: number });
    });
    child.once("exit", (code) => reject(new Error(`the attacker exited (${String(code)}) before reporting`)));
  });
}

test("2,000 silent connections from another user leave the owner's requests answered within a second", { timeout: 60_000 }, async (t) => {
  const asNobody = process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0;
  if (!asNobody) t.diagnostic("not root: the silent connections come from this user");
  const server = await startStatusServer(new FakeAgentApi(), { listen: "127.0.0.1:0", token: TOKEN });
  t.after(() => server.close());
  const { opened, refused } = await attack(t, server.address.port, 2000, asNobody ? NOBODY : undefined);
  t.diagnostic(`the attacker opened ${opened} connections (${refused} failed: its own descriptor limit)`);
  assert.ok(opened >= 900, `the attacker opened only ${opened} connections`);
  const limits = processConnectionBudget().limits;
  assert.ok(processConnectionBudget().counts().unproven <= limits.maxUnproven, "the agent holds no more silent connections than its bound");
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    assert.equal(await getOnNewConnection(server.address.port, "/api/v1/pods", TOKEN), 200);
    const ms = performance.now() - started;
    assert.ok(ms < 1000, `request ${i} took ${Math.round(ms)} ms`);
  }
});
