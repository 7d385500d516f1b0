// Sets of field paths as server-side apply records them in `metadata.managedFields[].fieldsV1`
// (sigs.k8s.io/structured-merge-diff fieldpath: Set, PathElement, SerializeJSON / String):
// a path element is `f:<field>`, `k:<json of the key fields>`, `v:<json value>` or `i:<index>`;
// in the JSON form a member with children carries `".": {}`, a member without children is `{}`.

import { checkDepth, PatchError } from "./patch-error.js";
import { isJsonObject, setOwn, type JsonObject, type JsonValue } from "./json-value.js";

/** FieldSet is one node of a path tree: whether the path itself is a member, and its children. */
export class FieldSet {
  member = false;
  readonly children = new Map<string, FieldSet>();

  /** child returns the child node for a path element, creating it. */
  child(element: string): FieldSet {
    let node = this.children.get(element);
    if (!node) {
      node = new FieldSet();
      this.children.set(element, node);
    }
    return node;
  }

  /** insert adds a path (a list of path elements) as a member. */
  insert(path: readonly string[]): void {
    path.reduce((node: FieldSet, element) => node.child(element), this).member = true;
  }

  /** has tells whether a path is a member. */
  has(path: readonly string[]): boolean {
    return find(this, path)?.member === true;
  }

  /** hasAtOrBelow tells whether the path or any path under it is a member (every inserted node leads to a member). */
  hasAtOrBelow(path: readonly string[]): boolean {
    const node = find(this, path);
    return node !== undefined && (node.member || node.children.size > 0);
  }

  /** paths lists every member path, in SMD's order (field names, then keys, values, indices). */
  paths(): string[][] {
    const result: string[][] = [];
    this.collect([], result);
    return result;
  }

  /** collect appends the member paths below prefix to result. */
  private collect(prefix: readonly string[], result: string[][]): void {
    if (this.member && prefix.length > 0) result.push([...prefix]);
    const keys = [...this.children.keys()];
    if (keys.length > 1) keys.sort(compareElements);
    const path = [...prefix, ""];
    for (const element of keys) {
      path[path.length - 1] = element;
      this.children.get(element)!.collect(path, result);
    }
  }

  /** size counts the set's nodes (members and the nodes that lead to them): the work a walk of it costs. */
  size(): number {
    let count = 0;
    for (const child of this.children.values()) count += 1 + child.size();
    return count;
  }

  /** isEmpty tells whether the set has no members. */
  isEmpty(): boolean {
    return !this.member && this.children.size === 0;
  }

  /** difference returns the members of this set that are not in `other` (one walk of both trees). */
  difference(other: FieldSet | undefined): FieldSet {
    const result = new FieldSet();
    for (const [element, child] of this.children) {
      const otherChild = other?.children.get(element);
      const rest = child.difference(otherChild);
      rest.member = child.member && otherChild?.member !== true;
      if (!rest.isEmpty()) result.children.set(element, rest);
    }
    return result;
  }

  /** union returns the members of this set and `other` (one walk of both trees). */
  union(other: FieldSet | undefined): FieldSet {
    const result = new FieldSet();
    const elements = other === undefined ? this.children.keys() : new Set([...this.children.keys(), ...other.children.keys()]);
    for (const element of elements) {
      const mine = this.children.get(element);
      const theirs = other?.children.get(element);
      const merged = mine !== undefined ? mine.union(theirs) : theirs!.union(undefined);
      merged.member = mine?.member === true || theirs?.member === true;
      if (!merged.isEmpty()) result.children.set(element, merged);
    }
    return result;
  }

  /** fromPaths builds a set holding the given member paths. */
  static fromPaths(paths: readonly (readonly string[])[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** toFieldsV1 renders the set in the `fieldsV1` JSON form. */
  toFieldsV1(): JsonObject {
    const encoded: JsonObject = {};
    const keys = [...this.children.keys()].sort(compareElements);
    for (const element of keys) {
      const node = this.children.get(element)!;
      if (!node.member && node.children.size === 0) continue;
      const child = node.toFieldsV1();
      if (node.member && node.children.size > 0) {
        const withSelf: JsonObject = { ".": {} };
        for (const key of Object.keys(child)) setOwn(withSelf, key, child[key]!);
        setOwn(encoded, element, withSelf);
      } else {
        setOwn(encoded, element, child);
      }
    }
    return encoded;
  }

  /** fromFieldsV1 parses the `fieldsV1` JSON form; a malformed value is a 400. */
  static fromFieldsV1(value: JsonValue | undefined, depth = 0): FieldSet {
    checkDepth(depth);
    const set = new FieldSet();
    if (value === undefined) return set;
    if (!isJsonObject(value)) throw new PatchError(400, "metadata.managedFields: fieldsV1 must be a JSON object");
    for (const key of Object.keys(value)) {
      if (key === ".") continue;
      if (!/^[fkvi]:/.test(key)) throw new PatchError(400, `metadata.managedFields: unknown path element ${JSON.stringify(key)} in fieldsV1`);
      const child = FieldSet.fromFieldsV1(value[key], depth + 1);
      const encodedChild = value[key] as JsonObject;
      child.member = Object.keys(encodedChild).length === 0 || Object.prototype.hasOwnProperty.call(encodedChild, ".");
      set.children.set(key, child);
    }
    return set;
  }
}

/** find walks a path from a node without creating nodes. */
function find(root: FieldSet, path: readonly string[]): FieldSet | undefined {
  let node: FieldSet | undefined = root;
  for (const element of path) {
    node = node.children.get(element);
    if (!node) return undefined;
  }
  return node;
}

const ELEMENT_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** compareElements orders path elements by kind, then by text (indices numerically). */
export function compareElements(left: string, right: string): number {
  const kind = (ELEMENT_RANK[left[0]!] ?? 9) - (ELEMENT_RANK[right[0]!] ?? 9);
  if (kind !== 0) return kind;
  if (left.startsWith("i:") && right.startsWith("i:")) return Number(left.slice(2)) - Number(right.slice(2));
  return left < right ? -1 : left > right ? 1 : 0;
}

/** fieldElement is the path element of a struct or map field. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** keyElement is the path element of an associative-list item: its key fields as JSON, sorted by name. */
export function keyElement(keys: readonly [string, JsonValue][]): string {
  const sorted = [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `k:{${sorted.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(",")}}`;
}

/** valueElement is the path element of a set-list item. */
export function valueElement(value: JsonValue): string {
  return `v:${JSON.stringify(value)}`;
}

/** pathString renders a path as structured-merge-diff's Path.String: `.spec.containers[name="app"].image`. */
export function pathString(path: readonly string[]): string {
  return path.map((element) => {
    const body = element.slice(2);
    switch (element[0]) {
      case "f": return `.${body}`;
      case "k": {
        const keys = JSON.parse(body) as JsonObject;
        return `[${Object.keys(keys).map((name) => `${name}=${JSON.stringify(keys[name])}`).join(",")}]`;
      }
      case "v": return `[=${body}]`;
      default: return `[${body}]`;
    }
  }).join("");
}
