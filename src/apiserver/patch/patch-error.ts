// The one error type every patch function throws, carrying the HTTP status the API server
// answers with (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go) and its message.

/** HTTP status codes the API server uses for patch failures. */
export type PatchErrorCode = 400 | 409 | 413 | 415 | 422 | 500;

/** The Status reason text apimachinery renders for each code (metav1.StatusReason…). */
const STATUS_REASON: Record<PatchErrorCode, string> = {
  400: "BadRequest",
  409: "Conflict",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  500: "InternalError",
};

/** PatchError is a patch failure: `message` is the API server's Status message, `code` its HTTP status. */
export class PatchError extends Error {
  readonly code: PatchErrorCode;

  constructor(code: PatchErrorCode, message: string) {
    super(message);
    this.name = "PatchError";
    this.code = code;
  }

  /** reason is the metav1.Status `reason` the API server sends with this code. */
  get reason(): string {
    return STATUS_REASON[this.code];
  }
}

/** MAX_PATCH_DEPTH is the deepest nesting any patch function accepts (input comes from the network). */
export const MAX_PATCH_DEPTH = 100;

/** checkDepth throws a 400 PatchError when a walk goes deeper than MAX_PATCH_DEPTH. */
export function checkDepth(depth: number): void {
  if (depth > MAX_PATCH_DEPTH) {
    throw new PatchError(400, `the patch or object is nested deeper than ${MAX_PATCH_DEPTH} levels`);
  }
}
