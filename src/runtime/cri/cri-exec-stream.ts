// Interactive exec on containerd: the CRI Exec call returns a single-use URL of containerd's
// streaming server, which speaks the remotecommand protocol over WebSocket up to
// v4.channel.k8s.io (the kubelet's streaming server code that containerd 1.6 carries). This
// client connects there and turns the channels back into streams. v4 has no close signal, so
// the end of stdin cannot reach the command: a command reading stdin to its end (`cat` with
// piped input) waits until the client goes away. Closing the connection does not make
// containerd 1.6 kill the exec'd process.
import { PassThrough, Writable } from "node:stream";
import { WebSocket } from "ws";
import { RuntimeError, type ExecSession, type ExecStreamOptions, type TerminalSize } from "../runtime.js";
import type { CriClient } from "./client.js";

/** STREAM_PROTOCOL is the subprotocol spoken with containerd's streaming server. */
const STREAM_PROTOCOL = "v4.channel.k8s.io";

/** MAX_STREAM_MESSAGE_BYTES bounds one message from the streaming server. */
const MAX_STREAM_MESSAGE_BYTES = 4 * 1024 * 1024;

/** MAX_STATUS_BYTES bounds the error channel's Status JSON. */
const MAX_STATUS_BYTES = 64 * 1024;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

/**
 * startCriExec asks containerd for an exec URL and connects to it. Rejects with a RuntimeError
 * when the Exec call fails (NotFound for unknown containers) or the streaming server refuses
 * the connection.
 */
export async function startCriExec(
  client: Pick<CriClient, "call">,
  containerId: string,
  argv: readonly string[],
  options: ExecStreamOptions,
): Promise<ExecSession> {
  const { url } = await client.call("Exec", {
    container_id: containerId,
    cmd: [...argv],
    tty: options.tty,
    stdin: options.stdin,
    stdout: true,
    stderr: !options.tty,
  });
  const ws = new WebSocket(url.replace(/^http/, "ws"), [STREAM_PROTOCOL], { maxPayload: MAX_STREAM_MESSAGE_BYTES, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      ws.terminate();
      reject(new RuntimeError("Unknown", `containerd streaming server refused the exec: HTTP ${res.statusCode ?? 0}`));
    });
    ws.once("error", (err) => reject(new RuntimeError("Unavailable", `containerd streaming server: ${err.message}`)));
  });
  return sessionOver(ws, options);
}

function sessionOver(ws: WebSocket, options: ExecStreamOptions): ExecSession {
  ws.on("error", () => undefined);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let status = "";
  const exit = new Promise<number>((resolve, reject) => {
    ws.on("message", (message: Buffer) => {
      const channel = message[0];
      const data = message.subarray(1);
      if (data.length === 0) return;
      if (channel === STDOUT || channel === STDERR) {
        const target = channel === STDOUT ? stdout : stderr;
        if (!target.write(data)) {
          ws.pause();
          target.once("drain", () => ws.resume());
        }
      } else if (channel === ERROR && status.length + data.length <= MAX_STATUS_BYTES) {
        status += data.toString("utf8");
      }
    });
    ws.once("close", () => {
      stdout.end();
      stderr.end();
      try {
        resolve(exitCodeOf(status));
      } catch (err) {
        reject(err as Error);
      }
    });
  });
  const send = (channel: number, data: Uint8Array | string, done?: (err?: Error) => void): void => {
    if (ws.readyState !== ws.OPEN) {
      done?.();
      return;
    }
    const payload = typeof data === "string" ? Buffer.from(data) : data;
    ws.send(Buffer.concat([Buffer.of(channel), payload]), (err) => done?.(err ?? undefined));
  };
  const stdin = new Writable({
    write: (chunk: Buffer, _encoding, done) => send(STDIN, chunk, () => done()),
    // v4 cannot tell the server that stdin ended; the command sees its end only when the exec ends.
    final: (done) => done(),
  });
  if (!options.stdin) stdin.end();
  const resize = (size: TerminalSize): void => {
    if (options.tty) send(RESIZE, JSON.stringify({ Width: size.width, Height: size.height }));
  };
  if (options.initialSize) resize(options.initialSize);
  return { stdin, stdout, stderr, exit, resize, kill: () => ws.terminate() };
}

/**
 * exitCodeOf reads the Status the streaming server sent on the error channel: Success is 0,
 * NonZeroExitCode carries the code as its ExitCode cause, anything else is an error.
 */
export function exitCodeOf(statusJson: string): number {
  if (statusJson === "") throw new RuntimeError("Unknown", "exec stream closed without an exit status");
  let status: { status?: string; reason?: string; message?: string; details?: { causes?: { reason?: string; message?: string }[] } };
  try {
    status = JSON.parse(statusJson) as typeof status;
  } catch {
    throw new RuntimeError("Unknown", "exec stream sent an exit status that is not JSON");
  }
  if (status.status === "Success") return 0;
  const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
  const code = Number(cause?.message);
  if (status.reason === "NonZeroExitCode" && Number.isInteger(code)) return code;
  throw new RuntimeError("Unknown", status.message ?? "exec failed");
}
