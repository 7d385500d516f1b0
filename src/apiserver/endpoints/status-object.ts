// metav1.Status: how the status server reports every failure, in the API server's shape and
// words (apimachinery pkg/api/errors/errors.go), so kubectl and client-go decode them as usual.
// The builders know no thrower: which error becomes which Status is src/apiserver/error-status.ts.
import { formatFieldErrorBody, formatInvalidObject, type FieldError } from "../../api/field-errors.js";

/** StatusCause is one metav1.StatusCause; for Invalid errors reason is a field.ErrorType ("FieldValueInvalid"). */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

/** StatusDetails is metav1.StatusDetails: which object failed and why. */
export interface StatusDetails {
  name?: string;
  kind?: string;
  causes?: StatusCause[];
}

/** MetaStatus is a failed metav1.Status; keys are declared in the API server's JSON order. */
export interface MetaStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

/** failureStatus builds a Status with the API server's key order; details are left out when empty. */
export function failureStatus(code: number, reason: string, message: string, details?: StatusDetails): MetaStatus {
  const head = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason } as const;
  return details === undefined || Object.keys(details).length === 0 ? { ...head, code } : { ...head, details, code };
}

/** notFoundStatus answers a path no route serves (the API server's generic 404 text). */
export function notFoundStatus(): MetaStatus {
  return failureStatus(404, "NotFound", "the server could not find the requested resource");
}

/** methodNotAllowedStatus answers a known path with a method it does not serve. */
export function methodNotAllowedStatus(): MetaStatus {
  return failureStatus(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

/** invalidStatus is errors.NewInvalid: `<Kind> "<name>" is invalid: …` with one cause per field error. */
export function invalidStatus(kind: string, name: string, errors: readonly FieldError[]): MetaStatus {
  const causes = errors.map((e) => ({ reason: `FieldValue${e.type}`, message: formatFieldErrorBody(e), field: e.field }));
  return failureStatus(422, "Invalid", formatInvalidObject(kind, name, errors), { name, kind, causes });
}

/** badRequestStatus is errors.NewBadRequest: the message is the reason given. */
export function badRequestStatus(message: string): MetaStatus {
  return failureStatus(400, "BadRequest", message);
}

/** unauthorizedStatus is what the API server answers when authentication fails. */
export function unauthorizedStatus(): MetaStatus {
  return failureStatus(401, "Unauthorized", "Unauthorized");
}

/** requestEntityTooLargeStatus is errors.NewRequestEntityTooLargeError("limit is N"), as the API server's body reader words it. */
export function requestEntityTooLargeStatus(limitBytes: number): MetaStatus {
  return failureStatus(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limitBytes}`);
}

/** unsupportedMediaTypeStatus answers a body whose Content-Type the server cannot decode. */
export function unsupportedMediaTypeStatus(accepted: readonly string[]): MetaStatus {
  return failureStatus(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}

/** StatusError is thrown by request handling to answer with a ready-made Status (and extra headers). */
export class StatusError extends Error {
  override readonly name = "StatusError";
  constructor(
    readonly status: MetaStatus,
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message);
  }
}
