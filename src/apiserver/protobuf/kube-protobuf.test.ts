// The protobuf bodies kubectl 1.32 sends for `create secret`, `create namespace` (bytes captured
// from kubectl -v=8), decoded as their JSON would be, and served by POST; malformed bytes are
// refused without a crash.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startApiServer } from "../../../test/servers/api-server.js";
import { decodeKubeProtobuf, KUBE_PROTOBUF } from "./kube-protobuf.js";
import { ProtobufError, readFields } from "./protobuf-reader.js";

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ""), "hex");

/** `kubectl create secret generic s1 --from-file=pw.txt --from-literal=a=b` (pw.txt: "secretvalue-xyz\n"). */
const SECRET = hex(`6b 38 73 00 0a 0c 0a 02 76 31 12 06 53 65 63 72 65 74 12 3a 0a 12 0a 02 73 31 12 00 1a 00 22 00
  2a 00 32 00 38 00 42 00 12 06 0a 01 61 12 01 62 12 1a 0a 06 70 77 2e 74 78 74 12 10 73 65 63 72
  65 74 76 61 6c 75 65 2d 78 79 7a 0a 1a 00 1a 00 22 00`);

/** `kubectl create namespace nn`. */
const NAMESPACE = hex(`6b 38 73 00 0a 0f 0a 02 76 31 12 09 4e 61 6d 65 73 70 61 63 65 12 1a 0a 12 0a 02 6e 6e 12 00 1a
  00 22 00 2a 00 32 00 38 00 42 00 12 00 1a 02 0a 00 1a 00 22 00`);

test("kubectl 1.32's protobuf Secret decodes to its JSON: data in base64, empty strings left out", () => {
  assert.deepEqual(decodeKubeProtobuf(SECRET), {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s1" },
    data: { a: Buffer.from("b").toString("base64"), "pw.txt": Buffer.from("secretvalue-xyz\n").toString("base64") },
  });
});

test("kubectl 1.32's protobuf Namespace decodes to its JSON", () => {
  assert.deepEqual(decodeKubeProtobuf(NAMESPACE), { apiVersion: "v1", kind: "Namespace", metadata: { name: "nn" }, spec: {}, status: {} });
});

test("a protobuf ConfigMap keeps data, binaryData, labels and immutable", () => {
  const field = (n: number, payload: Buffer): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, payload.length]), payload]);
  const entry = (k: string, v: string): Buffer => Buffer.concat([field(1, Buffer.from(k)), field(2, Buffer.from(v))]);
  const meta = Buffer.concat([field(1, Buffer.from("cm")), field(11, entry("app", "web"))]);
  const raw = Buffer.concat([field(1, meta), field(2, entry("k", "v")), field(3, entry("b", "\u0001")), Buffer.from([4 << 3, 1])]);
  const typeMeta = Buffer.concat([field(1, Buffer.from("v1")), field(2, Buffer.from("ConfigMap"))]);
  const body = Buffer.concat([Buffer.from("k8s\u0000"), field(1, typeMeta), field(2, raw)]);
  assert.deepEqual(decodeKubeProtobuf(body), {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", labels: { app: "web" } },
    data: { k: "v" },
    binaryData: { b: "AQ==" },
    immutable: true,
  });
});

test("the protobuf of a kind the agent does not read decodes to undefined (the REST layer answers 415)", () => {
  const pod = Buffer.from(SECRET);
  pod.write("Pods  ", 12, "latin1");
  assert.equal(decodeKubeProtobuf(pod), undefined);
});

test("malformed protobuf is a ProtobufError naming what is wrong", () => {
  assert.throws(() => decodeKubeProtobuf(Buffer.from('{"kind":"Secret"}')), { name: "ProtobufError", message: "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]" });
  assert.throws(() => decodeKubeProtobuf(SECRET.subarray(0, 40)), ProtobufError);
  assert.throws(() => readFields(Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), /a varint longer than 10 bytes/);
  assert.throws(() => readFields(Buffer.from([0x0a, 0x05, 0x61])), /field 1 is longer than the message/);
  assert.throws(() => readFields(Buffer.from([0x0b])), /unsupported wire type 3/);
  assert.throws(() => readFields(Buffer.from([0x00])), /field number 0/);
});

test("POST with a protobuf body creates the namespace and the secret; a protobuf Pod is a 415 and garbage a 400", async (t) => {
  const { server, call } = await startApiServer(t);
  const post = (path: string, body: Uint8Array) => fetch(`${server.url}${path}`, { method: "POST", body, headers: { "Content-Type": KUBE_PROTOBUF } });
  assert.equal((await post("/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict", NAMESPACE)).status, 201);
  assert.equal((await call("GET", "/api/v1/namespaces/nn")).body["status"]["phase"], "Active");
  assert.equal((await post("/api/v1/namespaces/nn/secrets", SECRET)).status, 201);
  const secret = (await call("GET", "/api/v1/namespaces/nn/secrets/s1")).body;
  assert.equal(secret["type"], "Opaque");
  assert.equal(Buffer.from(secret["data"]["pw.txt"], "base64").toString(), "secretvalue-xyz\n");
  const pod = Buffer.from(SECRET);
  pod.write("Pods  ", 12, "latin1");
  assert.equal((await post("/api/v1/namespaces/default/pods", pod)).status, 415);
  const garbage = await post("/api/v1/namespaces/default/secrets", SECRET.subarray(0, 40));
  assert.equal(garbage.status, 400);
  assert.match(((await garbage.json()) as { message: string }).message, /^Secret in version "v1" cannot be handled as a Secret: /);
});
