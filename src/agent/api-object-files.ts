// The Namespaces, ConfigMaps and Secrets created through the API, saved in the state directory so
// that a restarted agent has them again (as etcd keeps them for an API server): one file per
// resource under `<stateDir>/state/objects/`, the resource's whole list, rewritten atomically and
// owner-only (0600; Secrets are in it as the API stores them, base64 but not encrypted) after
// every change, writes coalesced. Reads are bounded; an unreadable or oversized file is skipped
// with a warning, never a crash.
import { join } from "node:path";
import { CONFIG_MAPS } from "../apiserver/resources/configmaps.js";
import { NAMESPACES } from "../apiserver/resources/namespaces.js";
import type { ResourceDefinition } from "../apiserver/resources/resource-definition.js";
import { SECRETS } from "../apiserver/resources/secrets.js";
import type { KubeObject, ObjectStore } from "../apiserver/storage/object-store.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Logger } from "../util/logger.js";
import { readFileBounded } from "../util/read-bounded-file.js";

/** SAVED_RESOURCES are the resources saved, in the order they are restored (namespaces first). */
export const SAVED_RESOURCES: readonly ResourceDefinition[] = [NAMESPACES, CONFIG_MAPS, SECRETS];

/** MAX_SAVED_RESOURCE_BYTES bounds one resource's file (64 Secrets of the 1 MiB maximum, base64). */
export const MAX_SAVED_RESOURCE_BYTES = 96 * 1024 * 1024;

/** ApiObjectFiles saves and restores the API's namespaces, configmaps and secrets. */
export class ApiObjectFiles {
  private readonly dir: string;
  private readonly pending = new Set<string>();
  private writing: Promise<void> | undefined;

  constructor(
    stateDir: string,
    private readonly logger: Logger,
  ) {
    this.dir = join(stateDir, "state", "objects");
  }

  /**
   * restore creates the saved objects in the store (UID and creationTimestamp kept, a new
   * resourceVersion), skipping those that exist or no longer validate.
   */
  async restore(store: ObjectStore): Promise<void> {
    for (const resource of SAVED_RESOURCES) {
      for (const object of await this.read(resource.name)) {
        const { errors } = resource.strategy.validate(object);
        if (errors.length > 0) {
          this.logger.warn("Dropping a saved object that no longer validates", { resource: resource.name, name: object.metadata?.name });
          continue;
        }
        if (store.get(resource.name, object.metadata.namespace, object.metadata.name ?? "") !== undefined) continue;
        try {
          store.create(resource.name, object, { keepUid: true });
        } catch (err) {
          if (!(err instanceof StoreError)) throw err;
        }
      }
    }
  }

  /**
   * saveOnChange rewrites a resource's file after each of its changes, with the objects `save`
   * accepts (not those a manifest loaded); returns the function that stops it.
   */
  saveOnChange(store: ObjectStore, save: (resource: string, object: KubeObject) => boolean): () => void {
    const from = Number(store.resourceVersion);
    const stops = SAVED_RESOURCES.map(({ name }) =>
      store.watch(name, from > 0 ? { fromResourceVersion: from } : {}, () => {
        this.pending.add(name);
        this.writing ??= this.writeAll(store, save).finally(() => (this.writing = undefined));
      }),
    );
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** idle resolves once every queued write is on disk. */
  async idle(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async writeAll(store: ObjectStore, save: (resource: string, object: KubeObject) => boolean): Promise<void> {
    // Changes of one synchronous burst (a namespace and its objects) are written once.
    await Promise.resolve();
    for (let next = this.takePending(); next !== undefined; next = this.takePending()) {
      const resource = next;
      const items = store.list(resource).items.filter((object) => save(resource, object));
      const text = JSON.stringify(items);
      const bytes = Buffer.byteLength(text);
      if (bytes > MAX_SAVED_RESOURCE_BYTES) {
        this.logger.warn("Not saving the API's objects: more than a restart would read back", { resource, bytes, limit: MAX_SAVED_RESOURCE_BYTES });
        continue;
      }
      await writeFileAtomic(join(this.dir, `${resource}.json`), text).catch((err: unknown) => this.logger.warn("Cannot save the API's objects", { resource, err: err instanceof Error ? err.message : String(err) }));
    }
  }

  private takePending(): string | undefined {
    const [next] = this.pending;
    if (next !== undefined) this.pending.delete(next);
    return next;
  }

  private async read(resource: string): Promise<KubeObject[]> {
    const file = join(this.dir, `${resource}.json`);
    const read = await readFileBounded(file, MAX_SAVED_RESOURCE_BYTES).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.logger.warn("Cannot read saved objects", { file, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    });
    if (read === undefined) return [];
    if (!read.ok) {
      this.logger.warn("Ignoring saved objects: the file is too large", { file, limit: MAX_SAVED_RESOURCE_BYTES });
      return [];
    }
    try {
      const parsed: unknown = JSON.parse(read.text);
      if (Array.isArray(parsed)) return parsed.filter((o): o is KubeObject => typeof o === "object" && o !== null && typeof (o as KubeObject).metadata === "object" && (o as KubeObject).metadata !== null);
    } catch {
      // reported below
    }
    this.logger.warn("Ignoring saved objects that do not parse", { file });
    return [];
  }
}
