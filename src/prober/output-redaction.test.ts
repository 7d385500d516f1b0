import assert from "node:assert/strict";
import { test } from "node:test";
import { execTimeoutMessage } from "../probe/exec.js";
import { REDACTED, redactorOf } from "./output-redaction.js";

test("redactorOf removes every value, whole when one contains another, and as Go's %q quotes it in a timeout text", () => {
  const redact = redactorOf(["s3cret", "s3cret-long", 'pa"ss\\word'])!;
  assert.equal(redact("a s3cret-long and s3cret twice s3cret"), `a ${REDACTED} and ${REDACTED} twice ${REDACTED}`);
  assert.equal(redact(execTimeoutMessage(["sh", "-c", 'login pa"ss\\word'], 1000)), `command timed out: "sh -c login ${REDACTED}" timed out after 1s`);
});

test("redactorOf leaves values shorter than 4 characters alone (they would blank out ordinary text) and has nothing to do without values", () => {
  assert.equal(redactorOf(["42", "abc"]), undefined);
  assert.equal(redactorOf([]), undefined);
  assert.equal(redactorOf(["42", "abcd"])!("42 abcd"), `42 ${REDACTED}`);
});
