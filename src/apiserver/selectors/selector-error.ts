// The error of label and field selector parsing and checking.
import { BadRequestError } from "../bad-request-error.js";

/** SelectorError is a malformed or unsupported selector; its message is the API server's. */
export class SelectorError extends BadRequestError {
  override readonly name = "SelectorError";
}
