// A remotecommand WebSocket client for tests: connects to an exec URL with the given
// subprotocols, runs a script of client messages, and collects every channel until the server
// closes the socket (bounded by a deadline).
import { WebSocket } from "ws";

/** ExecTranscript is everything one exec session returned. */
export interface ExecTranscript {
  protocol: string;
  stdout: string;
  stderr: string;
  /** The error channel's Status, parsed ({} when none came). */
  status: { status?: string; reason?: string; message?: string; details?: { causes?: { reason?: string; message?: string }[] } };
  closeCode: number;
}

/** ExecConversation drives the session once it is open; `output` resolves when stdout holds `text`. */
export type ExecConversation = (ws: WebSocket, output: (text: string) => Promise<void>) => Promise<void> | void;

/** runExecClient connects, converses and collects until the server closes; rejects on a refused upgrade with the HTTP status and body. */
export function runExecClient(url: string, protocols: string[], converse: ExecConversation = () => undefined, timeoutMs = 10_000): Promise<ExecTranscript> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    const chunks: Record<number, Buffer[]> = { 1: [], 2: [], 3: [] };
    const waiters: { text: string; resolve: () => void }[] = [];
    const stdoutText = (): string => Buffer.concat(chunks[1]!).toString();
    const deadline = setTimeout(() => {
      ws.terminate();
      reject(new Error(`exec session did not end within ${timeoutMs} ms; stdout so far: ${JSON.stringify(stdoutText())}`));
    }, timeoutMs);
    ws.on("unexpected-response", (_req, res) => {
      const body: Buffer[] = [];
      res.on("data", (c: Buffer) => body.push(c));
      res.on("end", () => {
        clearTimeout(deadline);
        reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { statusCode: res.statusCode, body: Buffer.concat(body).toString() }));
      });
    });
    ws.on("error", (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    ws.on("message", (data: Buffer) => {
      chunks[data[0]!]?.push(data.subarray(1));
      for (const waiter of waiters.filter((w) => stdoutText().includes(w.text))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
    const output = (text: string): Promise<void> =>
      stdoutText().includes(text) ? Promise.resolve() : new Promise((done) => waiters.push({ text, resolve: done }));
    ws.on("open", () => void Promise.resolve(converse(ws, output)).catch((err: unknown) => ws.emit("error", err)));
    ws.on("close", (code) => {
      clearTimeout(deadline);
      const statusText = Buffer.concat(chunks[3]!).toString();
      resolve({
        protocol: ws.protocol,
        stdout: stdoutText(),
        stderr: Buffer.concat(chunks[2]!).toString(),
        status: statusText === "" ? {} : (JSON.parse(statusText) as ExecTranscript["status"]),
        closeCode: code,
      });
    });
  });
}

/** execQuery builds an exec query string from a command and flags. */
export function execQuery(command: string[], flags: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  for (const word of command) query.append("command", word);
  for (const [key, value] of Object.entries(flags)) query.set(key, value);
  return query.toString();
}
