// The library's documentation works as written: every example marked `<!-- example: NAME -->` in
// docs/library.md and the README is copied into a fresh directory that has the built package as
// node_modules/probelet (as `npm install probelet` leaves it), compiled against the package's
// declarations (tsc, strict; a .cjs example is type-checked as JavaScript) and run with node; its
// output must be what the page says it prints.
// Also: `probelet/probe` loads nothing of the agent, and the package ships no tests.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Example is one program of a page and what the page says it prints (undefined: not said). */
interface Example {
  name: string;
  code: string;
  prints: string | undefined;
}

/** examplesOf finds the marked examples of a Markdown page, each with the `text` block that follows it, if any, before the next example. */
function examplesOf(markdown: string): Example[] {
  const examples: Example[] = [];
  const marker = /<!-- example: (\S+) -->\n```(?:ts|js)\n([\s\S]*?)```\n/g;
  for (let m = marker.exec(markdown); m !== null; m = marker.exec(markdown)) {
    const rest = markdown.slice(marker.lastIndex);
    const next = rest.indexOf("<!-- example:");
    const prints = /```text\n([\s\S]*?)```/.exec(next < 0 ? rest : rest.slice(0, next))?.[1];
    examples.push({ name: m[1]!, code: m[2]!, prints });
  }
  return examples;
}

/** project makes a directory with the package installed as node_modules/probelet and the examples in it. */
async function project(examples: readonly Example[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-library-docs-"));
  await mkdir(join(dir, "node_modules"));
  await symlink(ROOT, join(dir, "node_modules", "probelet"), "dir");
  for (const e of examples) await writeFile(join(dir, e.name), e.code);
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "newcomer", private: true, type: "module" }));
  return dir;
}

const pages = await Promise.all(["docs/library.md", "README.md"].map(async (page) => ({ page, examples: examplesOf(await readFile(join(ROOT, page), "utf8")) })));
const all = pages.flatMap((p) => p.examples);

test("the library pages have examples: docs/library.md five (both entries, CommonJS), the README one", () => {
  assert.deepEqual(pages.map((p) => `${p.page}: ${p.examples.map((e) => e.name).join(", ")}`), [
    "docs/library.md: wait-until-ready.ts, startup-gives-up.ts, probe-once.ts, commonjs.cjs, probe-manager.ts",
    "README.md: readme-wait.ts",
  ]);
});

/** compile runs tsc (strict) over a project's examples: .ts into out/, a .cjs checked as JavaScript; returns its diagnostics. */
async function compile(dir: string, examples: readonly Example[]): Promise<string> {
  const tsconfig = {
    compilerOptions: {
      strict: true, allowJs: true, checkJs: true, outDir: "out", module: "NodeNext", moduleResolution: "NodeNext", target: "ES2023", skipLibCheck: true,
      types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")],
    },
    files: examples.map((e) => e.name),
  };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  return run(process.execPath, [tsc, "-p", dir], { cwd: dir }).then(() => "", (err: { stdout?: string }) => err.stdout ?? String(err));
}

// One project holds every example, compiled once.
let examplesDir = "";
let diagnostics = "";
before(async () => {
  examplesDir = await project(all);
  diagnostics = await compile(examplesDir, all);
}, { timeout: 120_000 });
after(() => rm(examplesDir, { recursive: true, force: true }));

test("every example compiles against the package's declarations, strict", () => {
  assert.equal(diagnostics, "");
});

for (const { page, examples } of pages) {
  for (const example of examples) {
    test(`${page}: ${example.name} runs as written${example.prints === undefined ? "" : " and prints what the page says"}`, { timeout: 60_000 }, async () => {
      const program = example.name.endsWith(".ts") ? join("out", example.name.replace(/\.ts$/, ".js")) : example.name;
      const { stdout, stderr } = await run(process.execPath, [program], { cwd: examplesDir, timeout: 45_000 });
      if (example.prints !== undefined) assert.equal(stdout, example.prints, stderr);
      assert.doesNotMatch(stderr, /Warning|Error/, "nothing on stderr but what node itself says");
    });
  }
}

test("import of probelet/probe loads nothing of the agent, the runtimes, the API server, gRPC, YAML or prom-client", { timeout: 60_000 }, async (t) => {
  const dir = await project([]);
  t.after(() => rm(dir, { recursive: true, force: true }));
  // A resolve hook records every module the import loads.
  await writeFile(join(dir, "hooks.mjs"), 'import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.RECORD, r.url + "\\n"); return r; }\n');
  await writeFile(join(dir, "register.mjs"), 'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n');
  await writeFile(join(dir, "load.mjs"), 'await import("probelet/probe");\n');
  const record = join(dir, "loaded.txt");
  await run(process.execPath, ["--import", "./register.mjs", "load.mjs"], { cwd: dir, env: { ...process.env, RECORD: record } });
  const loaded = (await readFile(record, "utf8")).split("\n").filter((u) => u.startsWith("file:"));
  assert.ok(loaded.some((u) => u.endsWith("/dist/src/target-probe.js")), loaded.join("\n"));
  assert.deepEqual(loaded.filter((u) => /\/dist\/src\/(agent|runtime|apiserver|server|cluster|cli|console|volumes|status)\/|node_modules\/(@grpc|yaml|prom-client|ws)\//.test(u)), []);
});

test("the package ships no tests, and ships the docs the README links", { timeout: 60_000 }, async () => {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  assert.deepEqual(files.filter((f) => /\.test\.|(^|\/)test\//.test(f)), []);
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const linked = [...readme.matchAll(/\]\(((?:docs|examples)\/[^)#\s]+)/g)].map((m) => m[1]!);
  assert.ok(linked.length >= 10, linked.join(" "));
  assert.deepEqual(linked.filter((path) => !files.includes(path) && !files.some((f) => f.startsWith(`${path.replace(/\/$/, "")}/`))), []);
  assert.ok(files.includes("dist/src/target-probe.js") && files.includes("dist/src/target-probe.d.ts"));
});
