// The errors of the object store, with the API server's reasons, codes and texts
// (k8s.io/apimachinery/pkg/api/errors and the storage layer's preconditions).

/** StoreErrorReason is a metav1.StatusReason the store can fail with. */
export type StoreErrorReason = "NotFound" | "AlreadyExists" | "Conflict" | "Gone" | "Expired" | "Forbidden";

const CODES: Record<StoreErrorReason, number> = { NotFound: 404, AlreadyExists: 409, Conflict: 409, Gone: 410, Expired: 410, Forbidden: 403 };

/** StoreError is a failed store operation; the REST layer renders it as a metav1.Status. */
export class StoreError extends Error {
  override readonly name = "StoreError";
  /** The HTTP status of the reason. */
  readonly code: number;

  constructor(
    readonly reason: StoreErrorReason,
    message: string,
    /** What the Status's details name: the resource and the object's name. */
    readonly details: { kind?: string; name?: string } = {},
  ) {
    super(message);
    this.code = CODES[reason];
  }
}

/** notFound is `pods "web" not found`. */
export function notFound(resource: string, name: string): StoreError {
  return new StoreError("NotFound", `${resource} "${name}" not found`, { kind: resource, name });
}

/** alreadyExists is `pods "web" already exists`. */
export function alreadyExists(resource: string, name: string): StoreError {
  return new StoreError("AlreadyExists", `${resource} "${name}" already exists`, { kind: resource, name });
}

/** conflict is the optimistic-concurrency failure of an update with a stale resourceVersion. */
export function conflict(resource: string, name: string): StoreError {
  return new StoreError(
    "Conflict",
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { kind: resource, name },
  );
}

/** preconditionFailed is a delete or update whose UID or resourceVersion precondition does not hold. */
export function preconditionFailed(resource: string, name: string, field: "UID" | "ResourceVersion", wanted: string, actual: string): StoreError {
  return new StoreError(
    "Conflict",
    `Operation cannot be fulfilled on ${resource} "${name}": Precondition failed: ${field} in precondition: ${wanted}, ${field} in object meta: ${actual}`,
    { kind: resource, name },
  );
}

/** tooOldResourceVersion is the watch cache's 410 for a resourceVersion it no longer has the events after. */
export function tooOldResourceVersion(requested: number, oldest: number): StoreError {
  return new StoreError("Expired", `too old resource version: ${requested} (${oldest})`);
}
