import { test } from "node:test";
import assert from "node:assert/strict";
import { FieldSet, fieldElement, keyElement, pathString, valueElement } from "./field-set.js";
import { PatchError } from "./patch-error.js";

test("pathString renders paths like structured-merge-diff's Path.String", () => {
  assert.equal(pathString([fieldElement("spec"), fieldElement("containers"), keyElement([["name", "app"]]), fieldElement("image")]),
    '.spec.containers[name="app"].image');
  assert.equal(pathString([fieldElement("ports"), keyElement([["protocol", "TCP"], ["containerPort", 80]])]), '.ports[containerPort=80,protocol="TCP"]');
  assert.equal(pathString([fieldElement("metadata"), fieldElement("finalizers"), valueElement("x")]), '.metadata.finalizers[="x"]');
  assert.equal(pathString([fieldElement("list"), "i:3"]), ".list[3]");
});

test("FieldSet renders fieldsV1 with '.' on members that have children, and parses it back", () => {
  const set = new FieldSet();
  const item = [fieldElement("spec"), fieldElement("containers"), keyElement([["name", "app"]])];
  set.insert(item);
  set.insert([...item, fieldElement("name")]);
  set.insert([...item, fieldElement("image")]);
  set.insert([fieldElement("metadata"), fieldElement("labels"), fieldElement("app")]);
  const encoded = set.toFieldsV1();
  assert.deepEqual(encoded, {
    "f:metadata": { "f:labels": { "f:app": {} } },
    "f:spec": { "f:containers": { 'k:{"name":"app"}': { ".": {}, "f:image": {}, "f:name": {} } } },
  });
  const parsed = FieldSet.fromFieldsV1(encoded);
  assert.deepEqual(parsed.paths(), set.paths());
  assert.ok(parsed.has(item));
  assert.ok(!parsed.has([fieldElement("spec")]));
});

/** setOf builds a set holding the given member paths. */
function setOf(paths: readonly (readonly string[])[]): FieldSet {
  const set = new FieldSet();
  for (const path of paths) set.insert(path);
  return set;
}

test("FieldSet difference and union work on member paths", () => {
  const a = setOf([["f:a"], ["f:b", "f:c"]]);
  const b = setOf([["f:b", "f:c"], ["f:d"]]);
  assert.deepEqual(a.difference(b).paths(), [["f:a"]]);
  assert.deepEqual(a.union(b).paths(), [["f:a"], ["f:b", "f:c"], ["f:d"]]);
  assert.ok(a.hasAtOrBelow(["f:b"]));
  assert.ok(!a.hasAtOrBelow(["f:x"]));
});

test("FieldSet.fromFieldsV1 refuses unknown path elements with a 400", () => {
  assert.throws(() => FieldSet.fromFieldsV1({ "x:bad": {} }), (error: unknown) => error instanceof PatchError && error.code === 400);
});
