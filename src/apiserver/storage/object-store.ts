// The object store behind the agent's Kubernetes API, shaped as the API server's storage and
// watch cache: every object of every resource lives here once; every change takes the next
// resourceVersion from one counter (as etcd's revision); a bounded history of changes per
// resource serves watches from a resourceVersion (410 Expired when it is too old, as the watch
// cache answers); and watches with a filter see objects enter and leave it as ADDED and DELETED,
// as the API server's filtered watches do. Stored objects are deep-frozen: a reader can never
// change what another reader sees; writers hand in new objects.
import { randomUUID } from "node:crypto";
import type { ObjectMeta } from "../../api/types.js";
import { systemClock, type Clock } from "../../util/clock.js";
import { plainCopy } from "../../util/plain-copy.js";
import { alreadyExists, conflict, notFound, preconditionFailed, tooOldResourceVersion } from "./store-errors.js";

/** KubeObject is any stored object: kind, apiVersion and metadata, the rest opaque to the store. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** StoreEventType is the kind of one change. */
export type StoreEventType = "ADDED" | "MODIFIED" | "DELETED";

/** StoreEvent is one change of one object, at the resourceVersion the change took. */
export interface StoreEvent<T extends KubeObject = KubeObject> {
  type: StoreEventType;
  object: T;
  /** The object before a MODIFIED change (for filtered watches). */
  previous?: T;
  resourceVersion: number;
}

/** ResourceOptions describe a resource to the store. */
export interface ResourceOptions {
  /** Objects live in a namespace (pods) or not (nodes, namespaces). */
  namespaced: boolean;
  /** Changes kept for watches from a resourceVersion (default 1000). */
  historySize?: number;
}

/** ListOptions narrow a list. */
export interface ListOptions<T> {
  namespace?: string;
  filter?: (object: T) => boolean;
  /** At most this many items; a continue token then resumes after the last one. */
  limit?: number;
  continueToken?: string;
}

/** ListResult is one page of a list. */
export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

/** WatchOptions choose what a watch sees. */
export interface WatchOptions<T> {
  namespace?: string;
  filter?: (object: T) => boolean;
  /**
   * Changes after this resourceVersion are replayed, then live ones follow. Undefined or 0: every
   * current object first as ADDED (the API server's "start at most recent" with initial state).
   */
  fromResourceVersion?: number;
}

/** Preconditions of an update or delete (metav1.Preconditions). */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

const DEFAULT_HISTORY = 1000;

/** Watcher is one open watch. */
interface Watcher {
  resource: string;
  namespace: string | undefined;
  filter: ((object: KubeObject) => boolean) | undefined;
  send: (event: StoreEvent) => void;
}

/** ResourceTable is one resource's objects and change history. */
interface ResourceTable {
  options: ResourceOptions;
  objects: Map<string, KubeObject>;
  history: StoreEvent[];
  /** The resourceVersion of the newest change dropped from history (watches from before it get 410). */
  evictedThrough: number;
}

/** ObjectStore holds the objects of every registered resource. */
export class ObjectStore {
  private revision = 0;
  private readonly tables = new Map<string, ResourceTable>();
  private readonly watchers = new Set<Watcher>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** register makes a resource known (idempotent for the same options). */
  register(resource: string, options: ResourceOptions): void {
    if (!this.tables.has(resource)) this.tables.set(resource, { options, objects: new Map(), history: [], evictedThrough: 0 });
  }

  /**
   * seedRevision continues the counter from `revision`, what an earlier agent on the same state
   * may have handed out, so resourceVersions stay monotonic across a restart (as etcd's revision
   * survives an API server restart). That earlier history is gone: a watch from before `revision`
   * gets 410 Expired and its client relists. A lower `revision` changes nothing.
   */
  seedRevision(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    for (const table of this.tables.values()) {
      table.history = [];
      table.evictedThrough = revision;
    }
  }

  /** resourceVersion is the store's current revision, as a string (what lists report). */
  get resourceVersion(): string {
    return String(this.revision);
  }

  /** get returns an object, or undefined. */
  get<T extends KubeObject>(resource: string, namespace: string | undefined, name: string): T | undefined {
    const table = this.table(resource);
    return table.objects.get(keyOf(table, namespace, name)) as T | undefined;
  }

  /** mustGet is get that throws NotFound. */
  mustGet<T extends KubeObject>(resource: string, namespace: string | undefined, name: string): T {
    const found = this.get<T>(resource, namespace, name);
    if (found === undefined) throw notFound(resource, name);
    return found;
  }

  /** list returns the objects (sorted by namespace and name), narrowed and paged. */
  list<T extends KubeObject>(resource: string, options: ListOptions<T> = {}): ListResult<T> {
    const table = this.table(resource);
    const prefix = table.options.namespaced && options.namespace !== undefined ? `${options.namespace}/` : "";
    const after = options.continueToken === undefined ? undefined : decodeContinue(options.continueToken);
    const keys = [...table.objects.keys()].filter((k) => k.startsWith(prefix) && (after === undefined || k > after.key)).sort();
    const items: T[] = [];
    let lastKey: string | undefined;
    let remaining = 0;
    for (const key of keys) {
      const object = table.objects.get(key) as T;
      if (options.filter !== undefined && !options.filter(object)) continue;
      if (options.limit !== undefined && options.limit > 0 && items.length >= options.limit) {
        remaining++;
        continue;
      }
      items.push(object);
      lastKey = key;
    }
    const resourceVersion = after?.resourceVersion ?? this.resourceVersion;
    if (remaining === 0 || lastKey === undefined) return { items, resourceVersion };
    return { items, resourceVersion, continueToken: encodeContinue(lastKey, resourceVersion), remainingItemCount: remaining };
  }

  /**
   * create stores a new object: a fresh UID (unless keepUid and one is set), creationTimestamp,
   * resourceVersion and generation 1. Throws AlreadyExists.
   */
  create<T extends KubeObject>(resource: string, input: T, options: { keepUid?: boolean } = {}): T {
    const table = this.table(resource);
    const name = input.metadata.name ?? "";
    const key = keyOf(table, input.metadata.namespace, name);
    if (table.objects.has(key)) throw alreadyExists(resource, name);
    const revision = this.revision + 1;
    const metadata: ObjectMeta = {
      ...input.metadata,
      uid: options.keepUid && input.metadata.uid ? input.metadata.uid : randomUUID(),
      creationTimestamp: input.metadata.creationTimestamp ?? rfc3339(this.clock.now()),
      resourceVersion: String(revision),
    };
    if (!table.options.namespaced) delete metadata.namespace;
    const object = frozenCopy({ ...input, metadata }) as T;
    this.commit(resource, table, key, { type: "ADDED", object, resourceVersion: revision });
    return object;
  }

  /**
   * update replaces an object. A resourceVersion in the input must match the stored one
   * (Conflict otherwise), as must preconditions; UID and creationTimestamp always stay.
   */
  update<T extends KubeObject>(resource: string, input: T, preconditions: Preconditions = {}): T {
    const table = this.table(resource);
    const name = input.metadata.name ?? "";
    const key = keyOf(table, input.metadata.namespace, name);
    const current = table.objects.get(key) as T | undefined;
    if (current === undefined) throw notFound(resource, name);
    checkPreconditions(resource, current, preconditions);
    const sent = input.metadata.resourceVersion;
    if (sent !== undefined && sent !== "" && sent !== current.metadata.resourceVersion) throw conflict(resource, name);
    const revision = this.revision + 1;
    // What only the server sets stays as it was.
    const { uid, creationTimestamp } = current.metadata;
    const metadata: ObjectMeta = { ...input.metadata, resourceVersion: String(revision), ...(uid !== undefined ? { uid } : {}), ...(creationTimestamp !== undefined ? { creationTimestamp } : {}) };
    if (!table.options.namespaced) delete metadata.namespace;
    const object = frozenCopy({ ...input, metadata }) as T;
    this.commit(resource, table, key, { type: "MODIFIED", object, previous: current, resourceVersion: revision });
    return object;
  }

  /**
   * modify is a read-modify-write (the storage layer's GuaranteedUpdate): `change` gets the stored
   * object and returns the new one, or undefined to leave it unchanged. Throws NotFound.
   */
  modify<T extends KubeObject>(resource: string, namespace: string | undefined, name: string, change: (current: T) => T | undefined, preconditions: Preconditions = {}): T {
    const current = this.mustGet<T>(resource, namespace, name);
    checkPreconditions(resource, current, preconditions);
    const next = change(current);
    if (next === undefined) return current;
    return this.update(resource, { ...next, metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion } });
  }

  /** delete removes an object, after its preconditions hold; resolves with it as deleted. Throws NotFound. */
  delete<T extends KubeObject>(resource: string, namespace: string | undefined, name: string, preconditions: Preconditions = {}): T {
    const table = this.table(resource);
    const key = keyOf(table, namespace, name);
    const current = table.objects.get(key) as T | undefined;
    if (current === undefined) throw notFound(resource, name);
    checkPreconditions(resource, current, preconditions);
    const revision = this.revision + 1;
    const object = frozenCopy({ ...current, metadata: { ...current.metadata, resourceVersion: String(revision) } }) as T;
    this.commit(resource, table, key, { type: "DELETED", object, previous: current, resourceVersion: revision });
    return object;
  }

  /**
   * watch sends every change of a resource that passes the namespace and filter, starting as
   * WatchOptions says; returns a function that stops the watch. Throws Expired (410) when the
   * changes after fromResourceVersion are no longer all kept.
   */
  watch<T extends KubeObject>(resource: string, options: WatchOptions<T>, send: (event: StoreEvent<T>) => void): () => void {
    const table = this.table(resource);
    const watcher: Watcher = {
      resource,
      namespace: table.options.namespaced ? options.namespace : undefined,
      filter: options.filter as ((object: KubeObject) => boolean) | undefined,
      send: send as (event: StoreEvent) => void,
    };
    const from = options.fromResourceVersion ?? 0;
    if (from > 0) {
      if (from < table.evictedThrough) throw tooOldResourceVersion(from, table.evictedThrough + 1);
      for (const event of table.history) {
        if (event.resourceVersion <= from) continue;
        const seen = project(watcher, event);
        if (seen !== undefined) watcher.send(seen);
      }
    } else {
      const revision = this.revision;
      for (const object of this.list<T>(resource, { ...(watcher.namespace !== undefined ? { namespace: watcher.namespace } : {}), ...(options.filter ? { filter: options.filter } : {}) }).items) {
        watcher.send({ type: "ADDED", object, resourceVersion: revision });
      }
    }
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** watcherCount is the number of open watches of a resource. */
  watcherCount(resource: string): number {
    let count = 0;
    for (const watcher of this.watchers) if (watcher.resource === resource) count++;
    return count;
  }

  private commit(resource: string, table: ResourceTable, key: string, event: StoreEvent): void {
    this.revision = event.resourceVersion;
    if (event.type === "DELETED") table.objects.delete(key);
    else table.objects.set(key, event.object);
    table.history.push(event);
    const limit = table.options.historySize ?? DEFAULT_HISTORY;
    if (table.history.length > limit) {
      const dropped = table.history.splice(0, table.history.length - limit);
      table.evictedThrough = dropped[dropped.length - 1]?.resourceVersion ?? table.evictedThrough;
    }
    for (const watcher of this.watchers) {
      if (watcher.resource !== resource) continue;
      const seen = project(watcher, event);
      if (seen !== undefined) watcher.send(seen);
    }
  }

  private table(resource: string): ResourceTable {
    const table = this.tables.get(resource);
    if (table === undefined) throw new Error(`the store has no resource "${resource}"`);
    return table;
  }
}

/**
 * project is what a watcher sees of a change: nothing outside its namespace; with a filter, a
 * MODIFIED object that enters the filter is ADDED and one that leaves it is DELETED (the API
 * server's filterWithAttrsFunction in the watch cache).
 */
function project(watcher: Watcher, event: StoreEvent): StoreEvent | undefined {
  if (watcher.namespace !== undefined && event.object.metadata.namespace !== watcher.namespace) return undefined;
  const filter = watcher.filter;
  if (filter === undefined) return event;
  const now = filter(event.object);
  if (event.type !== "MODIFIED") return now ? event : undefined;
  const before = event.previous !== undefined && filter(event.previous);
  if (now && before) return event;
  if (now) return { type: "ADDED", object: event.object, resourceVersion: event.resourceVersion };
  if (before) return { type: "DELETED", object: event.object, resourceVersion: event.resourceVersion };
  return undefined;
}

function checkPreconditions(resource: string, current: KubeObject, preconditions: Preconditions): void {
  const name = current.metadata.name ?? "";
  if (preconditions.uid !== undefined && preconditions.uid !== current.metadata.uid) {
    throw preconditionFailed(resource, name, "UID", preconditions.uid, current.metadata.uid ?? "");
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== current.metadata.resourceVersion) {
    throw preconditionFailed(resource, name, "ResourceVersion", preconditions.resourceVersion, current.metadata.resourceVersion ?? "");
  }
}

function keyOf(table: ResourceTable, namespace: string | undefined, name: string): string {
  return table.options.namespaced ? `${namespace ?? ""}/${name}` : `/${name}`;
}

/** A continue token names where the next page starts and the resourceVersion of the first page. */
function encodeContinue(key: string, resourceVersion: string): string {
  return Buffer.from(JSON.stringify({ v: 1, rv: resourceVersion, start: key }), "utf8").toString("base64url");
}

function decodeContinue(token: string): { key: string; resourceVersion: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { v?: unknown; rv?: unknown; start?: unknown };
    if (parsed.v === 1 && typeof parsed.rv === "string" && typeof parsed.start === "string") return { key: parsed.start, resourceVersion: parsed.rv };
  } catch {
    // fall through to the error below
  }
  throw new InvalidContinueError();
}

/** InvalidContinueError is a continue token that this store did not make (the REST layer answers 400). */
export class InvalidContinueError extends Error {
  constructor() {
    super("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    this.name = "InvalidContinueError";
  }
}

/** rfc3339 renders ms since the epoch as the API server's second-precision timestamps. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * frozenCopy is a deep copy that nobody can change: the store never shares a writer's objects.
 * The copy is frozen as it is made (one walk, no second one to freeze).
 */
function frozenCopy<T>(value: T): T {
  return plainCopy(value, true);
}
