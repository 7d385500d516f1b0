import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeSupervisorSpec, MAX_SUPERVISOR_SPEC_BYTES, parseExitRecord, parseSupervisorReply, SUPERVISOR_PROTOCOL } from "./supervisor-protocol.js";

const launch = { file: "/bin/sh", argv: ["sh", "-c", "echo hi"], env: { PATH: "/bin", EMPTY: "" }, cwd: "/tmp" };

test("encodeSupervisorSpec writes the protocol, paths, line size, argv and env as NUL-terminated fields in order", () => {
  const encoded = encodeSupervisorSpec({ launch, logPath: "/l/0.log", statePath: "/s/x.exit", maxLineSize: 16384 });
  const fields = encoded.toString("utf8").split("\0");
  assert.equal(fields.pop(), "", "the last field is NUL-terminated too");
  assert.deepEqual(fields, [SUPERVISOR_PROTOCOL, "/l/0.log", "/s/x.exit", "/tmp", "/bin/sh", "16384", "3", "sh", "-c", "echo hi", "2", "PATH=/bin", "EMPTY=", "0", "", "", "", "0", "", "0"]);
});

test("encodeSupervisorSpec ends with the pod's network namespace path, and refuses a relative one", () => {
  const fields = encodeSupervisorSpec({ launch, logPath: "", statePath: "/s", maxLineSize: 1, netns: "/state/netns/abc" }).toString("utf8").split("\0");
  assert.deepEqual(fields.slice(-8, -5), ["0", "/state/netns/abc", ""]);
  assert.throws(() => encodeSupervisorSpec({ launch, logPath: "", statePath: "/s", maxLineSize: 1, netns: "netns/abc" }), /must be absolute/);
});

test("encodeSupervisorSpec appends each mount as host path, container path and ro or rw, counted in fields", () => {
  const mounts = [
    { hostPath: "/state/v/config", containerPath: "/etc/config", readonly: true },
    { hostPath: "/state/v/cache", containerPath: "/cache", readonly: false },
  ];
  const fields = encodeSupervisorSpec({ launch, logPath: "", statePath: "/s", maxLineSize: 1, mounts }).toString("utf8").split("\0");
  assert.deepEqual(fields.slice(-14, -7), ["6", "/state/v/config", "/etc/config", "ro", "/state/v/cache", "/cache", "rw"]);
  assert.throws(() => encodeSupervisorSpec({ launch, logPath: "", statePath: "/s", maxLineSize: 1, mounts: [{ hostPath: "rel", containerPath: "/x", readonly: false }] }), /absolute/);
});

test("encodeSupervisorSpec ends with the container's world: uid, gid, counted groups, capability bits and no_new_privs", () => {
  const world = { user: { uid: 65534, gid: 65533, groups: [10, 20] }, capabilities: "1000", noNewPrivs: true };
  const fields = encodeSupervisorSpec({ launch, logPath: "", statePath: "/s", maxLineSize: 1, world }).toString("utf8").split("\0");
  assert.deepEqual(fields.slice(-9), ["", "65534", "65533", "2", "10", "20", "1000", "1", ""], "after the (empty) netns field");
});

test("encodeSupervisorSpec refuses a NUL byte in any field and a spec over the supervisor's limit", () => {
  assert.throws(() => encodeSupervisorSpec({ launch: { ...launch, argv: ["sh", "a\0b"] }, logPath: "", statePath: "/s", maxLineSize: 1 }), /NUL byte/);
  const huge = { ...launch, env: { BIG: "x".repeat(MAX_SUPERVISOR_SPEC_BYTES) } };
  assert.throws(() => encodeSupervisorSpec({ launch: huge, logPath: "", statePath: "/s", maxLineSize: 1 }), /exceed the limit/);
});

test("parseSupervisorReply reads started, exec, mount, netns and log errors (errno names) and refusals", () => {
  assert.deepEqual(parseSupervisorReply("started 4242\n"), { kind: "started", pid: 4242 });
  assert.deepEqual(parseSupervisorReply("error 2\n"), { kind: "exec-failed", code: "ENOENT" });
  assert.deepEqual(parseSupervisorReply("logerror 13\n"), { kind: "log-failed", code: "EACCES" });
  assert.deepEqual(parseSupervisorReply("mounterror 2\n"), { kind: "mount-failed", code: "ENOENT" });
  assert.deepEqual(parseSupervisorReply("usererror 1\n"), { kind: "user-failed", code: "EPERM" });
  assert.deepEqual(parseSupervisorReply("chdirerror 13\n"), { kind: "chdir-failed", code: "EACCES" });
  assert.deepEqual(parseSupervisorReply("netnserror 22\n"), { kind: "netns-failed", code: "EINVAL" });
  assert.deepEqual(parseSupervisorReply("invalid argv\n"), { kind: "invalid", detail: "argv" });
});

test("parseSupervisorReply treats no answer, a zero PID and anything else as invalid", () => {
  assert.deepEqual(parseSupervisorReply(""), { kind: "invalid", detail: "no answer" });
  assert.equal(parseSupervisorReply("started 0\n").kind, "invalid");
  assert.equal(parseSupervisorReply("started -1\n").kind, "invalid");
  assert.equal(parseSupervisorReply("hello\n").kind, "invalid");
});

test("parseExitRecord reads an exit code, or 128 + the signal, and the finish time in ms", () => {
  assert.deepEqual(parseExitRecord("code=3\nfinished_at_ns=1795611387431326629\n"), { exitCode: 3, finishedAt: 1795611387431 });
  assert.deepEqual(parseExitRecord("signal=9\nfinished_at_ns=1000000\n"), { exitCode: 137, finishedAt: 1 });
  assert.deepEqual(parseExitRecord("code=0\nfinished_at_ns=5000000"), { exitCode: 0, finishedAt: 5 });
});

test("parseExitRecord rejects incomplete, ambiguous, duplicated or malformed records", () => {
  assert.equal(parseExitRecord(""), undefined);
  assert.equal(parseExitRecord("code=3\n"), undefined, "no finish time");
  assert.equal(parseExitRecord("finished_at_ns=1\n"), undefined, "neither code nor signal");
  assert.equal(parseExitRecord("code=1\nsignal=9\nfinished_at_ns=1\n"), undefined, "both code and signal");
  assert.equal(parseExitRecord("code=1\ncode=2\nfinished_at_ns=1\n"), undefined);
  assert.equal(parseExitRecord("code=x\nfinished_at_ns=1\n"), undefined);
  assert.equal(parseExitRecord("code=1000\nfinished_at_ns=1\n"), undefined);
  assert.equal(parseExitRecord("garbage\n"), undefined);
});

test("#139168 encodeSupervisorSpec writes an env value that is not UTF-8 as its exact bytes (envBytes)", () => {
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  const spec = encodeSupervisorSpec({ launch: { file: "/bin/true", argv: ["true"], env: { RAW: raw.toString("utf8"), T: "é" }, envBytes: { RAW: raw.toString("base64") }, cwd: "/" }, logPath: "", statePath: "/s", maxLineSize: 16 });
  assert.ok(spec.includes(Buffer.concat([Buffer.from("\0RAW="), raw, Buffer.from("\0")])));
  assert.ok(spec.includes(Buffer.from("\0T=é\0")));
  assert.throws(() => encodeSupervisorSpec({ launch: { file: "/bin/true", argv: ["true"], env: { RAW: "" }, envBytes: { RAW: Buffer.from([0x41, 0]).toString("base64") }, cwd: "/" }, logPath: "", statePath: "/s", maxLineSize: 16 }), /NUL byte/);
});
