import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { captureContext, serveSelectingAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { parseGoDuration } from "./parse-go-duration.js";
import { LinePrefixer } from "./line-prefixer.js";
import { runLogsCommand } from "./logs-command.js";

async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  const duo: Pod = { metadata: { name: "duo", namespace: "default" }, spec: { initContainers: [{ name: "init", image: "busybox" }], containers: [{ name: "a", image: "busybox" }, { name: "b", image: "busybox" }] } };
  api.addPod(duo);
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "busybox" }] } });
  api.appendLog("default", "duo", "init", "init done");
  api.appendLog("default", "duo", "a", "a1", "a2");
  api.appendLog("default", "duo", "b", "b1");
  api.appendLog("default", "web", "app", "hello");
  return { api, server: await serveSelectingAgentApi(t, api) };
}

async function logs(url: string, ...args: string[]) {
  const c = captureContext();
  const code = await runLogsCommand([...args, "--server", url], c.ctx);
  return { code, out: c.out(), err: c.err() };
}

test("logs --since, --since-time and --limit-bytes are sent as sinceSeconds, sinceTime and limitBytes", async (t) => {
  const { server } = await setup(t);
  const cases: { args: string[]; query: Record<string, string> }[] = [
    { args: ["--since=5m"], query: { sinceSeconds: "300" } },
    { args: ["--since", "1h30m"], query: { sinceSeconds: "5400" } },
    { args: ["--since=1500ms"], query: { sinceSeconds: "2" } },
    { args: ["--since-time=2026-01-01T00:00:00Z"], query: { sinceTime: "2026-01-01T00:00:00Z" } },
    { args: ["--limit-bytes=10"], query: { limitBytes: "10" } },
  ];
  for (const c of cases) {
    const run = await logs(server.url, "web", ...c.args);
    assert.equal(run.code, 0, run.err);
    const sent = server.requests.at(-1);
    assert.equal(sent?.path, "/api/v1/namespaces/default/pods/web/log");
    for (const [key, value] of Object.entries(c.query)) assert.equal(sent?.query.get(key), value, c.args.join(" "));
  }
});

test("logs --all-containers prints every container, init first; --prefix marks each line with [pod/NAME/CONTAINER]", async (t) => {
  const { server } = await setup(t);
  const all = await logs(server.url, "duo", "--all-containers", "--prefix");
  assert.equal(all.code, 0, all.err);
  assert.equal(all.out, "[pod/duo/init] init done\n[pod/duo/a] a1\n[pod/duo/a] a2\n[pod/duo/b] b1\n");
  const one = await logs(server.url, "web", "--prefix");
  assert.equal(one.out, "[pod/web/app] hello\n");
  const plain = await logs(server.url, "duo", "--all-containers");
  assert.equal(plain.out, "init done\na1\na2\nb1\n");
});

test("logs refuses bad --since, --since-time and --limit-bytes values as kubectl does", async () => {
  const { ctx } = captureContext();
  const cases: { args: string[]; message: string | RegExp }[] = [
    { args: ["--since=5x"], message: 'invalid argument "5x" for "--since" flag: time: invalid duration "5x"' },
    { args: ["--since=0s"], message: "--since must be greater than 0" },
    { args: ["--since=5m", "--since-time=2026-01-01T00:00:00Z"], message: "at most one of `sinceTime` or `sinceSeconds` may be specified" },
    { args: ["--since-time=yesterday"], message: /^--since-time only accepts times matching RFC3339/ },
    { args: ["--limit-bytes=0"], message: "--limit-bytes must be greater than 0" },
    { args: ["-c", "a", "--all-containers"], message: "--all-containers=true should not be specified with container name" },
  ];
  for (const c of cases) {
    await assert.rejects(runLogsCommand(["web", ...c.args], ctx), (err: unknown) => err instanceof UsageError && (typeof c.message === "string" ? err.message === c.message : c.message.test(err.message)), c.args.join(" "));
  }
});

test("parseGoDuration reads Go durations and refuses anything else", () => {
  assert.equal(parseGoDuration("5m"), 300_000);
  assert.equal(parseGoDuration("1h30m10s"), 5_410_000);
  assert.equal(parseGoDuration("1.5s"), 1500);
  assert.equal(parseGoDuration("0"), 0);
  assert.equal(parseGoDuration("-2s"), -2000);
  for (const bad of ["", "5", "m", "5 m", "5d", "1h-2m", "9".repeat(100) + "s"]) assert.equal(parseGoDuration(bad), undefined, bad);
});

test("LinePrefixer prefixes whole lines only, across chunk boundaries", () => {
  const p = new LinePrefixer("[x] ");
  assert.equal(p.push("ab"), "");
  assert.equal(p.push("c\nde"), "[x] abc\n");
  assert.equal(p.push("\n\nf"), "[x] de\n[x] \n");
  assert.equal(p.flush(), "[x] f");
  assert.equal(p.flush(), "");
});
