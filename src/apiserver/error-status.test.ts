import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "./endpoints/host-interface.js";
import { requestEntityTooLargeStatus, StatusError, unauthorizedStatus } from "./endpoints/status-object.js";
import { statusForError } from "./error-status.js";

test("NotFound names the pod and the resource, like errors.NewNotFound", () => {
  const status = statusForError(new ApiError("NotFound", 'pods "web" not found'), { resource: "pods", kind: "Pod", name: "web" });
  assert.equal(
    JSON.stringify(status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"web\\" not found",' +
      '"reason":"NotFound","details":{"name":"web","kind":"pods"},"code":404}',
  );
});

test("the resource in NotFound, AlreadyExists, Conflict and Invalid details is the one the request addressed, none when no route named one", () => {
  const subject = { resource: "nodes", kind: "Node", name: "n" };
  assert.deepEqual(statusForError(new ApiError("NotFound", 'nodes "n" not found'), subject).details, { name: "n", kind: "nodes" });
  assert.deepEqual(statusForError(new ApiError("AlreadyExists", 'nodes "n" already exists'), subject).details, { name: "n", kind: "nodes" });
  assert.deepEqual(statusForError(new ApiError("Conflict", "c"), subject).details, { name: "n", kind: "nodes" });
  assert.deepEqual(statusForError(new ApiError("Invalid", 'Node "n" is invalid'), subject).details, { name: "n", kind: "Node" });
  assert.deepEqual(statusForError(new ApiError("NotFound", 'pods "web" not found'), { name: "web" }).details, { name: "web" });
});

test("Invalid carries the kind and one cause per field error, like errors.NewInvalid", () => {
  const message = 'Pod "web" is invalid: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1';
  const err = new ApiError("Invalid", message, [
    { field: "spec.containers[0].livenessProbe.successThreshold", message: "Invalid value: 2: must be 1", reason: "FieldValueInvalid" },
    { message: "no reason given" },
  ]);
  assert.deepEqual(statusForError(err, { resource: "pods", kind: "Pod", name: "web" }), {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "Invalid",
    details: {
      name: "web",
      kind: "Pod",
      causes: [
        { reason: "FieldValueInvalid", message: "Invalid value: 2: must be 1", field: "spec.containers[0].livenessProbe.successThreshold" },
        { reason: "FieldValueInvalid", message: "no reason given" },
      ],
    },
    code: 422,
  });
});

test("each ApiError reason keeps its HTTP code", () => {
  const cases: [ConstructorParameters<typeof ApiError>[0], number][] = [
    ["NotFound", 404],
    ["AlreadyExists", 409],
    ["Conflict", 409],
    ["Invalid", 422],
    ["BadRequest", 400],
    ["MethodNotAllowed", 405],
    ["InternalError", 500],
  ];
  for (const [reason, code] of cases) {
    const status = statusForError(new ApiError(reason, "m"));
    assert.equal(status.code, code, reason);
    assert.equal(status.reason, reason);
    assert.equal(status.message, "m");
  }
});

test("BadRequest has no details", () => {
  assert.equal(statusForError(new ApiError("BadRequest", "bad"), { name: "web" }).details, undefined);
});

test("a plain Error becomes InternalError without its stack", () => {
  const err = new Error("disk on fire");
  const status = statusForError(err);
  assert.deepEqual(status, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "Internal error occurred: disk on fire",
    reason: "InternalError",
    details: { causes: [{ message: "disk on fire" }] },
    code: 500,
  });
  assert.doesNotMatch(JSON.stringify(status), /at .*\.js/);
  assert.equal(statusForError("a string").message, "Internal error occurred: a string");
});

test("a StatusError carries its own Status", () => {
  assert.deepEqual(statusForError(new StatusError(unauthorizedStatus())), {
    kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401,
  });
  assert.equal(requestEntityTooLargeStatus(1048576).message, "Request entity too large: limit is 1048576");
});
