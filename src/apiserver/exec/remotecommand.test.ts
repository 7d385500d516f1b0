import assert from "node:assert/strict";
import { test } from "node:test";
import { Channel, channelMessage, decodeClientMessage, negotiateProtocol, protocolError, V4_PROTOCOL, V5_PROTOCOL } from "./remotecommand.js";
import { parseExecOptions, isExecStatus } from "./exec-options.js";
import { exitStatus } from "./exec-status.js";

test("negotiation prefers v5.channel.k8s.io, falls back to v4 and refuses the rest with wsstream's message", () => {
  assert.equal(negotiateProtocol("v5.channel.k8s.io, v4.channel.k8s.io, v3.channel.k8s.io"), V5_PROTOCOL);
  assert.equal(negotiateProtocol("v4.channel.k8s.io,channel.k8s.io"), V4_PROTOCOL);
  assert.equal(negotiateProtocol("channel.k8s.io, base64.channel.k8s.io"), undefined);
  assert.equal(negotiateProtocol(undefined), undefined);
  assert.equal(
    protocolError("channel.k8s.io, base64.channel.k8s.io"),
    "requested protocol(s) are not supported: [channel.k8s.io base64.channel.k8s.io]; supports [v5.channel.k8s.io v4.channel.k8s.io]",
  );
});

test("a channel message is the channel byte followed by the data", () => {
  assert.deepEqual([...channelMessage(Channel.stdout, "hi")], [1, 0x68, 0x69]);
  assert.deepEqual([...channelMessage(Channel.error)], [3]);
});

test("client messages decode to stdin data, resizes and (v5 only) the stdin close signal", () => {
  assert.deepEqual(decodeClientMessage(Buffer.from([0, 0x61, 0x62]), V5_PROTOCOL), { kind: "stdin", data: Buffer.from("ab") });
  assert.deepEqual(decodeClientMessage(channelMessage(4, '{"Width":120,"Height":40}'), V5_PROTOCOL), { kind: "resize", width: 120, height: 40 });
  assert.deepEqual(decodeClientMessage(Buffer.from([255, 0]), V5_PROTOCOL), { kind: "close", channel: 0 });
  assert.equal(decodeClientMessage(Buffer.from([255, 0]), V4_PROTOCOL).kind, "ignored");
});

test("malformed or foreign client messages are ignored with a reason, never thrown", () => {
  for (const message of [
    Buffer.alloc(0),
    channelMessage(4, "not json"),
    channelMessage(4, '{"Width":"80","Height":24}'),
    channelMessage(4, '{"Width":-1,"Height":24}'),
    channelMessage(4, "null"),
    channelMessage(4, " ".repeat(2000)),
    Buffer.from([255, 0, 1]),
    channelMessage(Channel.stdout, "x"),
    channelMessage(Channel.error, "{}"),
  ]) {
    const decoded = decodeClientMessage(message, V5_PROTOCOL);
    assert.equal(decoded.kind, "ignored", `message ${JSON.stringify([...message.subarray(0, 8)])}`);
  }
});

test("exec options: command is required, booleans parse as Go's ParseBool, tty drops stderr", () => {
  const parsed = parseExecOptions(new URLSearchParams("command=sh&command=-c&command=echo+hi&container=app&stdin=true&stdout=1&stderr=true&tty=T"));
  assert.deepEqual(parsed, { command: ["sh", "-c", "echo hi"], container: "app", stdin: true, stdout: true, stderr: false, tty: true });
  const noCommand = parseExecOptions(new URLSearchParams("stdout=true"));
  assert.ok(isExecStatus(noCommand));
  assert.deepEqual([noCommand.code, noCommand.reason, noCommand.message], [400, "BadRequest", "you must specify at least 1 command"]);
  const noStream = parseExecOptions(new URLSearchParams("command=ls"));
  assert.ok(isExecStatus(noStream) && noStream.message === "you must specify at least 1 of stdin, stdout, stderr");
  const badBool = parseExecOptions(new URLSearchParams("command=ls&stdout=yes"));
  assert.ok(isExecStatus(badBool) && badBool.message === 'strconv.ParseBool: parsing "yes": invalid syntax');
  const tooLong = parseExecOptions(new URLSearchParams([...Array.from({ length: 1025 }, (): [string, string] => ["command", "x"]), ["stdout", "true"]]));
  assert.ok(isExecStatus(tooLong) && tooLong.code === 400);
});

test("exit statuses: 0 is Success, anything else NonZeroExitCode with the code as the ExitCode cause", () => {
  assert.deepEqual(exitStatus(["true"], 0), { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
  const failed = exitStatus(["sh", "-c", "exit 3"], 3);
  assert.equal(failed.status, "Failure");
  assert.equal(failed.reason, "NonZeroExitCode");
  assert.deepEqual(failed.details, { causes: [{ reason: "ExitCode", message: "3" }] });
  assert.equal(failed.message, "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3");
});
