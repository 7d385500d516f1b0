// The remotecommand channel protocol over WebSocket (apimachinery pkg/util/remotecommand and
// apiserver pkg/util/wsstream): every binary message starts with a channel byte, 0 stdin,
// 1 stdout, 2 stderr, 3 error (a metav1.Status), 4 resize ({"Width","Height"}). v5 adds the
// close signal: channel 255 followed by the id of the channel whose sender is done (stdin).

/** Channel numbers of the remotecommand streams. */
export const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** V5_PROTOCOL and V4_PROTOCOL are the subprotocols served, in the server's preference order. */
export const V5_PROTOCOL = "v5.channel.k8s.io";
export const V4_PROTOCOL = "v4.channel.k8s.io";
export const SERVED_PROTOCOLS = [V5_PROTOCOL, V4_PROTOCOL] as const;

/** ChannelProtocol is one served subprotocol. */
export type ChannelProtocol = (typeof SERVED_PROTOCOLS)[number];

/** MAX_RESIZE_MESSAGE_BYTES bounds a resize message's JSON. */
const MAX_RESIZE_MESSAGE_BYTES = 1024;

/**
 * negotiateProtocol picks the subprotocol from a Sec-WebSocket-Protocol header: the server's
 * preferred protocol the client offers, else undefined (wsstream handshake).
 */
export function negotiateProtocol(header: string | undefined): ChannelProtocol | undefined {
  const offered = new Set((header ?? "").split(",").map((p) => p.trim()).filter((p) => p !== ""));
  return SERVED_PROTOCOLS.find((p) => offered.has(p));
}

/** protocolError is wsstream's message when no offered subprotocol is served. */
export function protocolError(header: string | undefined): string {
  const offered = (header ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "");
  return `requested protocol(s) are not supported: [${offered.join(" ")}]; supports [${SERVED_PROTOCOLS.join(" ")}]`;
}

/** channelMessage prefixes data with its channel byte. */
export function channelMessage(channel: number, data: Uint8Array | string = new Uint8Array(0)): Buffer {
  const payload = typeof data === "string" ? Buffer.from(data) : data;
  const message = Buffer.allocUnsafe(payload.length + 1);
  message[0] = channel;
  message.set(payload, 1);
  return message;
}

/** ClientMessage is what one message from the client asks for. */
export type ClientMessage =
  | { kind: "stdin"; data: Buffer }
  | { kind: "resize"; width: number; height: number }
  | { kind: "close"; channel: number }
  | { kind: "ignored"; reason: string };

/**
 * decodeClientMessage reads one client message. Channels a client must not write, malformed
 * resizes, and close signals under v4 (which has none) are ignored with the reason, as wsstream
 * drops data for channels it does not read.
 */
export function decodeClientMessage(message: Buffer, protocol: ChannelProtocol): ClientMessage {
  if (message.length === 0) return { kind: "ignored", reason: "empty message" };
  const channel = message[0]!;
  const data = message.subarray(1);
  switch (channel) {
    case Channel.stdin:
      return { kind: "stdin", data };
    case Channel.resize:
      return decodeResize(data);
    case Channel.close:
      if (protocol !== V5_PROTOCOL) return { kind: "ignored", reason: `close signal needs ${V5_PROTOCOL}` };
      if (data.length !== 1) return { kind: "ignored", reason: "close signal must name exactly one channel" };
      return { kind: "close", channel: data[0]! };
    default:
      return { kind: "ignored", reason: `channel ${channel} is not written by clients` };
  }
}

function decodeResize(data: Buffer): ClientMessage {
  if (data.length > MAX_RESIZE_MESSAGE_BYTES) return { kind: "ignored", reason: "resize message too large" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString("utf8"));
  } catch {
    return { kind: "ignored", reason: "resize message is not JSON" };
  }
  const size = parsed as { Width?: unknown; Height?: unknown } | null;
  const width = size?.Width;
  const height = size?.Height;
  if (typeof width !== "number" || typeof height !== "number" || !Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) {
    return { kind: "ignored", reason: "resize message needs integer Width and Height" };
  }
  return { kind: "resize", width, height };
}
