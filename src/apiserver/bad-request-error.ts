// The one error type of the API server's pure helpers: a request the server refuses with
// 400 BadRequest. The REST layer turns it into a metav1.Status whose message is this
// error's message, word for word (apimachinery errors.NewBadRequest).

/** BadRequestError is a client mistake the API server answers with 400 BadRequest and this message. */
export class BadRequestError extends Error {
  override readonly name: string = "BadRequestError";
}
