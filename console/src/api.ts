// Talking to the agent from the browser: JSON reads and watches that survive a lost connection.
// Credentials are a session's two halves: its cookie (HttpOnly, sent by the browser) and its key,
// which this page keeps in sessionStorage (this tab, this origin: no other port's page or tab
// has it) and sends in a header with every request. A 401 means the session is over.

/** SESSION_KEY_HEADER carries the session key (the agent's console-sessions.ts). */
const SESSION_KEY_HEADER = "X-Probelet-Session-Key";
const KEY_STORAGE = "probelet-session-key";

const signedOutListeners = new Set<() => void>();

/** hasSession reports whether this tab holds a session key. */
export function hasSession(): boolean {
  return sessionStorage.getItem(KEY_STORAGE) !== null;
}

/** onSignedOut calls listener when a request answers 401 (the session ended or was revoked). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** login trades the one-time code `probelet console` put in the URL for a session, and keeps its key. */
export async function login(code: string): Promise<void> {
  const res = await fetch("/console/sessions", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) });
  if (!res.ok) throw new Error((await res.text()).trim() || `${res.status}`);
  const { key } = (await res.json()) as { key: string };
  sessionStorage.setItem(KEY_STORAGE, key);
}

/** logout ends the session at the agent and forgets the key. */
export async function logout(): Promise<void> {
  await fetch("/console/logout", { method: "POST", headers: sessionHeaders() }).catch(() => undefined);
  sessionStorage.removeItem(KEY_STORAGE);
  for (const listener of signedOutListeners) listener();
}

/** request fetches path with the session's key; a 401 signs the page out. */
async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, { ...init, headers: sessionHeaders(init.headers) });
  if (res.status === 401) {
    sessionStorage.removeItem(KEY_STORAGE);
    for (const listener of signedOutListeners) listener();
  }
  return res;
}

function sessionHeaders(extra?: HeadersInit): Headers {
  const headers = new Headers(extra);
  const key = sessionStorage.getItem(KEY_STORAGE);
  if (key !== null) headers.set(SESSION_KEY_HEADER, key);
  return headers;
}

/** KubeObject is the part of any API object the console relies on. */
export interface KubeObject {
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; [key: string]: unknown };
}

/** WatchEvent is one line of a watch stream. */
export interface WatchEvent<T> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/** getJson fetches a JSON document; non-2xx becomes an Error with the server's message. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await request(path, { signal: signal ?? null, headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error(`${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

/** getText fetches a text document. */
export async function getText(path: string, signal?: AbortSignal): Promise<string> {
  const res = await request(path, { signal: signal ?? null });
  if (!res.ok) throw new Error(`${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.text();
}

/** streamLines calls onLine for every line of a streamed response until it ends or signal aborts. */
export async function streamLines(path: string, signal: AbortSignal, onLine: (line: string) => void, onOpen?: () => void): Promise<Response> {
  const res = await request(path, { signal });
  if (!res.ok || res.body === null) return res;
  onOpen?.();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      onLine(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf("\n");
    }
    if (pending.length > 4 * 1024 * 1024) throw new Error("a line longer than 4 MiB");
  }
  if (pending !== "") onLine(pending);
  return res;
}

/** WatchStatus is what a watch reports about its connection. */
export type WatchStatus = "connecting" | "live" | "retrying";

/**
 * watchObjects keeps a map of objects (by namespace/name) in step with a watch on path. When the
 * stream ends it reconnects from the last resourceVersion it saw; a 410 Gone (too old) or
 * objects without resourceVersions mean a fresh list. Retries back off from 1 s to 30 s.
 */
export function watchObjects<T extends KubeObject>(
  path: string,
  onChange: (objects: ReadonlyMap<string, T>) => void,
  onStatus: (status: WatchStatus) => void,
  maxObjects = 20000,
): () => void {
  const objects = new Map<string, T>();
  const stop = new AbortController();
  let resourceVersion: string | undefined;
  let scheduled = false;
  const changed = (): void => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      onChange(objects);
    });
  };
  const run = async (): Promise<void> => {
    let delay = 1000;
    while (!stop.signal.aborted) {
      onStatus("connecting");
      if (resourceVersion === undefined && objects.size > 0) {
        objects.clear();
        changed();
      }
      const sep = path.includes("?") ? "&" : "?";
      const url = `${path}${sep}watch=true${resourceVersion !== undefined ? `&resourceVersion=${encodeURIComponent(resourceVersion)}` : ""}`;
      try {
        let gone = false;
        const res = await streamLines(url, stop.signal, (line) => {
          if (line.trim() === "") return;
          const event = JSON.parse(line) as WatchEvent<T>;
          if (event.type === "ERROR") {
            if ((event.object as unknown as { code?: number }).code === 410) gone = true;
            return;
          }
          onStatus("live");
          delay = 1000;
          const rv = event.object.metadata.resourceVersion;
          if (event.type === "BOOKMARK") {
            resourceVersion = rv;
            return;
          }
          resourceVersion = rv;
          const key = `${event.object.metadata.namespace ?? ""}/${event.object.metadata.name ?? ""}`;
          if (event.type === "DELETED") objects.delete(key);
          else if (objects.size < maxObjects || objects.has(key)) objects.set(key, event.object);
          changed();
        }, () => onStatus("live"));
        if (res.status === 410 || gone) resourceVersion = undefined;
      } catch {
        if (stop.signal.aborted) return;
      }
      if (stop.signal.aborted) return;
      onStatus("retrying");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  };
  void run();
  return () => stop.abort();
}
