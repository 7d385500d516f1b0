// RFC 6902 JSON patch (`application/json-patch+json`) with the behaviour and messages of the
// evanphx/json-patch v4 library the API server vendors (vendor/gopkg.in/evanphx/json-patch.v4/patch.go)
// and the status codes of the API server's patch handler
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, jsonPatcher.applyJSPatch).

import { PatchError } from "./patch-error.js";
import { deepClone, deepEqual, deleteOwn, getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from "./json-value.js";

/** MAX_JSON_PATCH_OPERATIONS is the API server's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * MAX_JSON_PATCH_COPY_BYTES bounds how much `copy` operations may grow a document: the API server
 * sets the library's AccumulatedCopySizeLimit to its JSONPatchMaxCopyBytes, 3 MiB.
 */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";

/** A failure inside one operation; applyJsonPatch turns it into a 422 PatchError. */
class OperationError extends Error {
  override readonly name = "OperationError";
}

type Container = JsonObject | JsonValue[];

/** A located target: the container holding the last path token, and that token decoded. */
interface Target {
  container: Container;
  key: string;
}

/** decodeToken undoes RFC 6901 escaping: `~1` is `/`, then `~0` is `~`. */
function decodeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** goAtoi parses like Go's strconv.Atoi, with its error text. */
function goAtoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new OperationError(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new OperationError(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

function invalidIndex(index: number): OperationError {
  return new OperationError(`Unable to access invalid index: ${index}: ${INVALID_INDEX}`);
}

/** arrayIndex resolves a (possibly negative) index for reading; out of range is an error. */
function arrayIndex(array: JsonValue[], key: string): number {
  let index = goAtoi(key);
  if (index < 0) {
    if (index < -array.length) throw invalidIndex(index);
    index += array.length;
  }
  if (index >= array.length) throw invalidIndex(index);
  return index;
}

/** getChild reads a child: undefined for a missing object key, an error for a bad array index. */
function getChild(container: Container, key: string): JsonValue | undefined {
  if (Array.isArray(container)) return container[arrayIndex(container, key)];
  return getOwn(container, key);
}

function addChild(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  if (key === "-") {
    container.push(value);
    return;
  }
  let index: number;
  try {
    index = goAtoi(key);
  } catch (error) {
    throw new OperationError(`value was not a proper array index: '${key}': ${(error as Error).message}`);
  }
  const size = container.length + 1;
  if (index >= size) throw invalidIndex(index);
  if (index < 0) {
    if (index < -size) throw invalidIndex(index);
    index += size;
  }
  container.splice(index, 0, value);
}

function removeChild(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!hasOwn(container, key)) throw new OperationError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    deleteOwn(container, key);
    return;
  }
  let index = goAtoi(key);
  if (index >= container.length) throw invalidIndex(index);
  if (index < 0) {
    if (index < -container.length) throw invalidIndex(index);
    index += container.length;
  }
  container.splice(index, 1);
}

/** findTarget walks all but the last token; undefined when an intermediate value is missing. */
function findTarget(root: Container, path: string): Target | undefined {
  const tokens = path.split("/");
  if (tokens.length < 2) return undefined;
  let current: Container = root;
  for (const token of tokens.slice(1, -1)) {
    let next: JsonValue | undefined;
    try {
      next = getChild(current, decodeToken(token));
    } catch {
      return undefined;
    }
    if (next === undefined || next === null || (typeof next !== "object")) return undefined;
    current = next;
  }
  return { container: current, key: decodeToken(tokens[tokens.length - 1]!) };
}

/** readPointer reads an operation's `path` or `from` member as the library does. */
function readPointer(operation: JsonObject, member: "path" | "from"): string {
  const value = getOwn(operation, member);
  if (value === undefined || value === null) {
    throw new OperationError(member === "path" ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}`);
  }
  if (typeof value !== "string") {
    throw new OperationError(`json: cannot unmarshal ${goJsonKind(value)} into Go value of type string`);
  }
  return value;
}

function goJsonKind(value: JsonValue): string {
  if (Array.isArray(value)) return "array";
  if (isJsonObject(value)) return "object";
  return typeof value;
}

/** pathOf reads `path`; add, remove and copy report a missing path without the inner reason. */
function pathOf(operation: JsonObject, kind: string, bareMissing: boolean): string {
  try {
    return readPointer(operation, "path");
  } catch (error) {
    const reason = bareMissing ? MISSING : (error as Error).message;
    throw new OperationError(`${kind} operation failed to decode path: ${reason}`);
  }
}

function fromOf(operation: JsonObject, kind: string): string {
  try {
    return readPointer(operation, "from");
  } catch (error) {
    throw new OperationError(`${kind} operation failed to decode from: ${(error as Error).message}`);
  }
}

/** valueOf is the operation's `value` (a missing value is JSON null, as the library stores it). */
function valueOf(operation: JsonObject): JsonValue {
  const value = getOwn(operation, "value");
  return value === undefined ? null : deepClone(value);
}

function wrap<T>(prefix: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof OperationError) throw new OperationError(`${prefix}: ${error.message}`);
    throw error;
  }
}

function applyAdd(root: Container, operation: JsonObject): void {
  const path = pathOf(operation, "add", true);
  const target = findTarget(root, path);
  if (!target) throw new OperationError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in add for path: '${path}'`, () => addChild(target.container, target.key, valueOf(operation)));
}

function applyRemove(root: Container, operation: JsonObject): void {
  const path = pathOf(operation, "remove", true);
  const target = findTarget(root, path);
  if (!target) throw new OperationError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in remove for path: '${path}'`, () => removeChild(target.container, target.key));
}

function applyReplace(root: Container, operation: JsonObject): Container {
  const path = pathOf(operation, "replace", false);
  if (path === "") {
    const value = valueOf(operation);
    if (typeof value !== "object" || value === null) {
      throw new OperationError("replace operation value must be object or array: %!w(<nil>)");
    }
    return value;
  }
  const target = findTarget(root, path);
  if (!target) throw new OperationError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  const { container, key } = target;
  if (Array.isArray(container)) {
    let index: number;
    try {
      index = arrayIndex(container, key);
    } catch {
      throw new OperationError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    }
    container[index] = valueOf(operation);
  } else {
    setOwn(container, key, valueOf(operation));
  }
  return root;
}

function applyMove(root: Container, operation: JsonObject): void {
  const from = fromOf(operation, "move");
  const source = findTarget(root, from);
  if (!source) throw new OperationError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(`error in move for path: '${source.key}'`, () => getChild(source.container, source.key));
  wrap(`error in move for path: '${source.key}'`, () => removeChild(source.container, source.key));
  const path = pathOf(operation, "move", false);
  const destination = findTarget(root, path);
  if (!destination) throw new OperationError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrap(`error in move for path: '${path}'`, () => addChild(destination.container, destination.key, value ?? null));
}

function applyTest(root: Container, operation: JsonObject): void {
  const path = pathOf(operation, "test", false);
  const failed = new OperationError(`testing value ${path} failed: test failed`);
  const expected = getOwn(operation, "value");
  if (path === "") {
    if (!deepEqual(root, expected)) throw failed;
    return;
  }
  const target = findTarget(root, path);
  if (!target) throw new OperationError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  const actual = wrap(`error in test for path: '${path}'`, () => getChild(target.container, target.key));
  if (actual === undefined) {
    if (expected === undefined) return;
    throw failed;
  }
  if (expected === undefined || !deepEqual(actual, expected)) throw failed;
}

function applyCopy(root: Container, operation: JsonObject, copied: { bytes: number }): void {
  const from = fromOf(operation, "copy");
  const source = findTarget(root, from);
  if (!source) throw new OperationError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(`error in copy for from: '${from}'`, () => getChild(source.container, source.key));
  const path = pathOf(operation, "copy", true);
  const destination = findTarget(root, path);
  if (!destination) throw new OperationError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  const copy = value === undefined ? null : deepClone(value);
  copied.bytes += Buffer.byteLength(JSON.stringify(copy));
  if (copied.bytes > MAX_JSON_PATCH_COPY_BYTES) {
    throw new OperationError(`Unable to complete the copy, the accumulated size increase of copy is ${copied.bytes}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`);
  }
  wrap("error while adding value during copy", () => addChild(destination.container, destination.key, copy));
}

/**
 * applyJsonPatch applies an RFC 6902 patch to a copy of `doc` and returns the result.
 * `operations` is the decoded request body. Errors: 400 when the body is not a list of
 * operations, 413 beyond MAX_JSON_PATCH_OPERATIONS, 422 when an operation does not apply
 * (message as the API server sends it, e.g. `testing value /metadata/name failed: test failed`).
 */
export function applyJsonPatch(doc: JsonValue, operations: JsonValue): JsonValue {
  if (!Array.isArray(operations)) {
    throw new PatchError(400, `json: cannot unmarshal ${operations === null ? "null" : goJsonKind(operations)} into Go value of type jsonpatch.Patch`);
  }
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(413, `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`);
  }
  const decoded = operations.map((operation) => {
    if (!isJsonObject(operation)) {
      throw new PatchError(400, `json: cannot unmarshal ${operation === null ? "null" : goJsonKind(operation)} into Go value of type jsonpatch.Operation`);
    }
    return operation;
  });
  if (typeof doc !== "object" || doc === null) throw new PatchError(400, "the document to patch must be a JSON object or array");
  let root = deepClone(doc) as Container;
  const copied = { bytes: 0 };
  try {
    for (const operation of decoded) {
      const kind = getOwn(operation, "op");
      switch (kind) {
        case "add": applyAdd(root, operation); break;
        case "remove": applyRemove(root, operation); break;
        case "replace": root = applyReplace(root, operation); break;
        case "move": applyMove(root, operation); break;
        case "test": applyTest(root, operation); break;
        case "copy": applyCopy(root, operation, copied); break;
        default: throw new OperationError(`Unexpected kind: ${typeof kind === "string" ? kind : "unknown"}`);
      }
    }
  } catch (error) {
    if (error instanceof OperationError) throw new PatchError(422, error.message);
    throw error;
  }
  return root;
}
