// What the REST layer knows of one resource: its names for discovery (APIResource), whether it
// lives in a namespace, the verbs it serves, and its storage strategy (the API server's
// rest.RESTCreateStrategy / RESTUpdateStrategy: defaulting, validation and the fields only the
// server sets). Handlers are generic over this; nothing in src/apiserver/rest names a resource.
import type { FieldError } from "../../api/field-errors.js";
import type { FieldSchema } from "../../api/schema.js";
import type { KubeObject } from "../storage/object-store.js";

/** Verb is one API verb as discovery lists it. */
export type Verb = "create" | "delete" | "deletecollection" | "get" | "list" | "patch" | "update" | "watch";

/** ALL_VERBS are the verbs of a fully served resource, in discovery's order. */
export const ALL_VERBS: readonly Verb[] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/** StrategyContext is what a strategy may know of the server: the node the agent runs as. */
export interface StrategyContext {
  nodeName: string;
}

/** ResourceStrategy is how objects of one resource are prepared and checked before they are stored. */
export interface ResourceStrategy {
  /** The object's JSON shape, for strict decoding (unknown fields, wrong types). */
  schema: FieldSchema;
  /** checkEncoding names the first value JSON decoding would refuse ([]byte fields: base64), if any. */
  checkEncoding?(object: KubeObject): string | undefined;
  /** prepareForCreate drops what a client may not set on create (pods: status) and fills server-set fields. */
  prepareForCreate(object: KubeObject, context: StrategyContext): KubeObject;
  /** validate defaults an object and checks it, returning the object to store or every field error. */
  validate(object: KubeObject): { object: KubeObject; errors: FieldError[] };
  /** prepareForUpdate keeps what an update of the main resource may not change (pods: status). */
  prepareForUpdate(next: KubeObject, current: KubeObject): KubeObject;
  /** validateUpdate checks the transition from current to next (immutable fields). */
  validateUpdate(next: KubeObject, current: KubeObject): FieldError[];
}

/** StatusStrategy is how the status subresource is written: only status changes, the rest stays. */
export interface StatusStrategy {
  prepareForUpdate(next: KubeObject, current: KubeObject): KubeObject;
}

/** ResourceDefinition is one resource of core/v1 as the agent serves it. */
export interface ResourceDefinition {
  /** Plural lower-case name, the path segment and store key ("pods"). */
  name: string;
  singularName: string;
  kind: string;
  shortNames: readonly string[];
  namespaced: boolean;
  verbs: readonly Verb[];
  categories: readonly string[];
  strategy: ResourceStrategy;
  /**
   * The grace period a delete gives an object (pods: rest.RESTGracefulDeleteStrategy); 0 or
   * absent deletes at once. `requested` is DeleteOptions.gracePeriodSeconds.
   */
  gracePeriodSeconds?(object: KubeObject, requested: number | undefined): number;
  /**
   * Warnings a delete of this object answers with (HTTP Warning headers, which kubectl prints):
   * a static pod's mirror is made again, so the client is told where the pod comes from.
   */
  deleteWarnings?(object: KubeObject): string[];
  /** A delete answers with the object (pods, namespaces) rather than a Success Status. */
  returnsDeletedObject?: boolean;
  /** A delete only marks the object Terminating; a controller removes it once emptied (namespaces). */
  finalizedOnDelete?: boolean;
  /** Set when the resource has a status subresource (GET/PUT/PATCH …/{name}/status). */
  status?: StatusStrategy;
}
