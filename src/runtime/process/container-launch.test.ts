import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { containerCwd, containerEnv, DEFAULT_PATH, LaunchError, lookPath, prepareLaunch } from "./container-launch.js";
import { testContainerConfig } from "../../../test/process-testing.js";
import { validateContainerConfig } from "./validate-config.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-launch-"));
after(() => rm(dir, { recursive: true, force: true }));
const bin = join(dir, "bin");
await mkdir(bin);
await writeFile(join(bin, "tool"), "#!/bin/sh\nexit 0\n");
await chmod(join(bin, "tool"), 0o755);
await writeFile(join(bin, "plain"), "not executable");
await chmod(join(bin, "plain"), 0o644);

const pod = { name: "web-0", hostNetwork: false };

test("containerEnv: HOSTNAME, then the container's envs (later wins), PATH from the agent if unset", () => {
  const config = testContainerConfig("c", "true", {
    envs: [
      { key: "A", value: "1" },
      { key: "A", value: "2" },
      { key: "EMPTY", value: "" },
    ],
  });
  assert.deepEqual(containerEnv(config, pod, { PATH: "/agent/bin", HOME: "/root" }), {
    HOSTNAME: "web-0",
    A: "2",
    EMPTY: "",
    PATH: "/agent/bin",
  });
  assert.equal(containerEnv(config, pod, {})["PATH"], DEFAULT_PATH);
  const own = testContainerConfig("c", "true", { envs: [{ key: "PATH", value: "/mine" }, { key: "HOSTNAME", value: "h" }] });
  assert.deepEqual(containerEnv(own, pod, { PATH: "/agent/bin" }), { HOSTNAME: "h", PATH: "/mine" });
  assert.equal(containerEnv(config, { name: "p", hostNetwork: true }, {})["HOSTNAME"], hostname());
});

test("containerCwd resolves workingDir against the agent's directory, defaulting to it", () => {
  assert.equal(containerCwd({}, "/srv"), "/srv");
  assert.equal(containerCwd({ workingDir: "" }, "/srv"), "/srv");
  assert.equal(containerCwd({ workingDir: "data" }, "/srv"), "/srv/data");
  assert.equal(containerCwd({ workingDir: "/abs" }, "/srv"), "/abs");
});

test("lookPath follows Go's exec.LookPath and words failures like runc", async () => {
  const path = `/nonexistent:${bin}`;
  assert.equal(await lookPath("tool", path, "/"), join(bin, "tool"));
  assert.equal(await lookPath(join(bin, "tool"), "", "/"), join(bin, "tool"));
  assert.equal(await lookPath("./bin/tool", "", dir), join(bin, "tool"));
  assert.equal(await lookPath("tool", ":", bin), join(bin, "tool")); // "" in PATH means "."
  const cases: [string, string, string][] = [
    ["nosuch", path, 'unable to start container process: exec: "nosuch": executable file not found in $PATH'],
    ["plain", path, 'unable to start container process: exec: "plain": executable file not found in $PATH'],
    ["/no/such/file", path, 'unable to start container process: exec: "/no/such/file": stat /no/such/file: no such file or directory'],
    [join(bin, "plain"), path, `unable to start container process: exec: "${join(bin, "plain")}": permission denied`],
    [bin, path, `unable to start container process: exec: "${bin}": permission denied`],
  ];
  for (const [file, pathVar, message] of cases) {
    await assert.rejects(lookPath(file, pathVar, "/"), (err: unknown) => err instanceof LaunchError && err.message === message, file);
  }
});

test("prepareLaunch checks the working directory before the executable (runc order)", async () => {
  const env = { PATH: bin };
  await assert.rejects(prepareLaunch(["nosuch"], { env, cwd: join(dir, "gone") }, "gone"), {
    message: 'unable to start container process: chdir to cwd ("gone") set in config.json failed: no such file or directory',
  });
  await assert.rejects(prepareLaunch(["tool"], { env, cwd: join(bin, "tool") }), {
    message: `unable to start container process: chdir to cwd ("${join(bin, "tool")}") set in config.json failed: not a directory`,
  });
  await assert.rejects(prepareLaunch(["nosuch"], { env, cwd: dir }), { message: /exec: "nosuch": executable file not found in \$PATH$/ });
  assert.deepEqual(await prepareLaunch(["tool", "x"], { env: { HOSTNAME: "web-0", PATH: bin }, cwd: dir }), {
    file: join(bin, "tool"),
    argv: ["tool", "x"],
    env: { HOSTNAME: "web-0", PATH: bin },
    cwd: dir,
  });
});

test("validateContainerConfig refuses what cannot become a process", () => {
  const base = testContainerConfig("c", "true");
  const cases: [string, Partial<typeof base>, string | undefined][] = [
    ["valid", {}, undefined],
    ["args only", { command: [], args: ["sh"] }, undefined],
    ["no argv", { command: [], args: [] }, "no command specified"],
    ["empty argv[0]", { command: [""], args: [] }, "no command specified"],
    ["no name", { name: "" }, "container name must not be empty"],
    ["NUL in args", { args: ["a\0b"] }, "command or args contain a NUL byte"],
    ["NUL in workingDir", { workingDir: "/a\0" }, "working directory contains a NUL byte"],
    ["bad env name", { envs: [{ key: "A=B", value: "" }] }, 'invalid environment variable name "A=B"'],
    ["empty env name", { envs: [{ key: "", value: "x" }] }, 'invalid environment variable name ""'],
    ["NUL in env value", { envs: [{ key: "A", value: "\0" }] }, 'environment variable "A" contains a NUL byte'],
  ];
  for (const [name, overrides, want] of cases) assert.equal(validateContainerConfig({ ...base, ...overrides }), want, name);
});
