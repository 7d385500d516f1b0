// How probe sockets are closed: the purpose of the kubelet's probe dialer (k8s #89898) is
// that probes must not pile up sockets in TIME-WAIT on the prober's side.
// See docs/connection-hygiene.md for the measurements behind the default.
import type { Socket } from "node:net";

/**
 * CloseMode selects how a probe socket is closed.
 * - "graceful": a FIN close, as the kubelet does; the probed app sees an orderly close.
 * - "reset": an abortive close (SO_LINGER 0, RST); no TIME-WAIT on the prober's side,
 *   but the probed app sees "connection reset by peer".
 */
export type CloseMode = "graceful" | "reset";

/** DEFAULT_CLOSE_MODE is the kubelet-faithful orderly close. */
export const DEFAULT_CLOSE_MODE: CloseMode = "graceful";

/** closeProbeSocket closes a connected probe socket with the chosen mode. */
export function closeProbeSocket(socket: Socket, mode: CloseMode): void {
  if (mode === "reset" && typeof socket.resetAndDestroy === "function" && !socket.destroyed) {
    socket.resetAndDestroy();
    return;
  }
  socket.destroy();
}
