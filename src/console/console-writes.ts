// The only writes a console session may make, for the pod list's and the pod page's actions:
// delete a pod, and run one of its probes now. Anything else a session sends that is not a read
// is refused as before (401). A write must also come from the console's own page: the browser
// sends its Origin with every POST and DELETE, and a page of another origin (another port of
// 127.0.0.1 is the same site, so SameSite=Strict alone does not keep it out) cannot forge it.
import type { IncomingMessage } from "node:http";

/** CONSOLE_WRITES are the method and path of each write a session may make. */
const CONSOLE_WRITES: readonly { method: string; path: RegExp }[] = [
  { method: "DELETE", path: /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+$/ },
  { method: "POST", path: /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/probes\/trigger$/ },
];

/**
 * consoleMayWrite reports whether a session's request is one of CONSOLE_WRITES and comes from a
 * page of the agent's own origin (its Origin header names the host the request was sent to).
 */
export function consoleMayWrite(req: IncomingMessage, path: string): boolean {
  if (!CONSOLE_WRITES.some((w) => w.method === req.method && w.path.test(path))) return false;
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (origin === undefined || host === undefined) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
