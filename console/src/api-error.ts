// One readable line for anything that went wrong talking to the agent: an API error's Status
// message (never its JSON), a text answer's first line, or what a lost connection means.

/** RequestError is a request the agent answered with an error. */
export class RequestError extends Error {
  override readonly name = "RequestError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The longest message shown: a Status message can quote a whole field value. */
const MAX_MESSAGE_CHARS = 300;

/** requestError reads an error answer: a metav1.Status gives its message, text its first line. */
export function requestError(status: number, body: string): RequestError {
  let message = "";
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (typeof parsed.message === "string") message = parsed.message;
  } catch {
    message = body.trim().split("\n", 1)[0] ?? "";
  }
  if (status === 401) message = "Not logged in: this console session has ended. Run `probelet console` to open a new one.";
  if (message === "") message = `the agent answered ${status}`;
  return new RequestError(status, message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message);
}

/** errorText is the line to show for a caught error; undefined for an abort (nothing went wrong). */
export function errorText(err: unknown): string | undefined {
  if (err instanceof DOMException && err.name === "AbortError") return undefined;
  if (err instanceof RequestError) return err.message;
  if (err instanceof TypeError) return "Cannot reach the agent: it is not answering.";
  return err instanceof Error ? err.message : String(err);
}
