import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError } from "../bad-request-error.js";
import { parseIncludeObject, parseTableAccept } from "./table-request.js";

const KUBECTL_132 = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

// Accept headers as kubectl 1.32 / 1.20 and client-node send them (docs spec kube-api-clients.md).
test("table accept: kubectl's Accept negotiates a meta.k8s.io/v1 Table, plain JSON the object", () => {
  const cases: [string | undefined, ReturnType<typeof parseTableAccept>][] = [
    [KUBECTL_132, { as: "Table", version: "v1" }],
    ["application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", { as: "Table", version: "v1beta1" }],
    ["application/json", { as: "Object" }],
    ["application/json, */*", { as: "Object" }],
    ["*/*", { as: "Object" }],
    [undefined, { as: "Object" }],
    ["", { as: "Object" }],
    ["application/vnd.kubernetes.protobuf,application/json", { as: "Object" }],
    ["application/json;as=Table;v=v2;g=meta.k8s.io,application/json", { as: "Object" }],
    ["application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json", { as: "Object" }],
    ["application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io", { as: "Table", version: "v1" }],
    ["application/json;as=Table;v=v1;g=meta.k8s.io;q=0", { as: "NotAcceptable" }],
    ["application/json;as=Table;v=v9;g=meta.k8s.io", { as: "NotAcceptable" }],
    ["text/html", { as: "NotAcceptable" }],
  ];
  for (const [accept, want] of cases) assert.deepEqual(parseTableAccept(accept), want, String(accept));
});

test("table accept: includeObject defaults to Metadata and refuses unknown policies", () => {
  assert.equal(parseIncludeObject(undefined), "Metadata");
  assert.equal(parseIncludeObject(""), "Metadata");
  assert.equal(parseIncludeObject("None"), "None");
  assert.equal(parseIncludeObject("Object"), "Object");
  assert.throws(() => parseIncludeObject("all"), (err: unknown) => err instanceof BadRequestError && err.message === 'unrecognized includeObject value: "all"');
});
