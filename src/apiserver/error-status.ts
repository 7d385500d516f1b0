// Which Status answers which thrown error (apiserver endpoints/handlers/responsewriters
// ErrorToAPIStatus with the registry's errors): the storage's, the patchers', the selectors' and
// tables' bad requests, and the node interface's ApiError, each mapped once, here beside the
// registry whose errors they are, so the Status builders (endpoints/status-object.ts) know none.
import { BadRequestError } from "./bad-request-error.js";
import { ApiError } from "./endpoints/host-interface.js";
import { badRequestStatus, failureStatus, StatusError, type MetaStatus, type StatusCause, type StatusDetails } from "./endpoints/status-object.js";
import { ApplyConflictError, PatchError } from "./patch/index.js";
import type { ResourceDefinition } from "./resources/resource-definition.js";
import { InvalidContinueError } from "./storage/object-store.js";
import { StoreError } from "./storage/store-errors.js";

/**
 * ErrorSubject names what a request addressed, as far as its route knows: the resource (the API
 * server's qualifiedResource; probelet serves only the core group, whose name is empty) and the
 * object's name. The Status of a failure names them (errors.NewNotFound(qualifiedResource, name)).
 */
export interface ErrorSubject {
  /** The plural resource ("configmaps"), details.kind of NotFound, AlreadyExists and Conflict. */
  resource?: string;
  /** The resource's Kind ("ConfigMap"), details.kind of Invalid (errors.NewInvalid(qualifiedKind, …)). */
  kind?: string;
  name?: string;
}

/** addressedResource records the resource a request addressed in its error subject. */
export function addressedResource(subject: ErrorSubject, resource: Pick<ResourceDefinition, "name" | "kind">): void {
  subject.resource = resource.name;
  subject.kind = resource.kind;
}

/**
 * statusForError renders anything a handler threw. An ApiError keeps its reason, message and
 * code; details follow apimachinery: NotFound/AlreadyExists/Conflict name the resource the request
 * addressed ("configmaps"), Invalid names its kind ("ConfigMap") and lists one cause per field
 * error (errors.NewInvalid).
 * A StatusError carries its own Status; a StoreError its reason, code and the object it names;
 * a BadRequestError (selectors, tables) is a 400 with its message; a PatchError keeps its code,
 * reason and message (an apply conflict lists one cause per field).
 * Anything else is an InternalError whose message is the error's message only, never its stack
 * (errors.NewInternalError: "Internal error occurred: <err>").
 */
export function statusForError(err: unknown, subject: ErrorSubject = {}): MetaStatus {
  if (err instanceof StatusError) return err.status;
  if (err instanceof StoreError) {
    const details: StatusDetails = {};
    const name = err.details.name ?? subject.name;
    if (name !== undefined) details.name = name;
    if (err.details.kind !== undefined) details.kind = err.details.kind;
    return failureStatus(err.code, err.reason, err.message, details);
  }
  if (err instanceof InvalidContinueError || err instanceof BadRequestError) return badRequestStatus(err.message);
  if (err instanceof PatchError) {
    const causes = err instanceof ApplyConflictError ? err.causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })) : [];
    const details: StatusDetails = {};
    if (subject.name !== undefined && (err.code === 409 || err.code === 422)) details.name = subject.name;
    if (causes.length > 0) details.causes = causes;
    return failureStatus(err.code, err.reason, err.message, details);
  }
  if (!(err instanceof ApiError)) {
    const message = err instanceof Error ? err.message : String(err);
    return failureStatus(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] });
  }
  const causes = err.causes.map(toCause);
  const details: StatusDetails = {};
  switch (err.reason) {
    case "NotFound":
    case "AlreadyExists":
    case "Conflict":
      if (subject.name !== undefined) details.name = subject.name;
      if (subject.resource !== undefined) details.kind = subject.resource;
      break;
    case "Invalid":
      if (subject.name !== undefined) details.name = subject.name;
      if (subject.kind !== undefined) details.kind = subject.kind;
      break;
    default:
      break;
  }
  if (causes.length > 0) details.causes = causes;
  return failureStatus(err.code, err.reason, err.message, details);
}

function toCause(cause: ApiError["causes"][number]): StatusCause {
  const out: StatusCause = { reason: cause.reason ?? "FieldValueInvalid", message: cause.message };
  if (cause.field !== undefined) out.field = cause.field;
  return out;
}
