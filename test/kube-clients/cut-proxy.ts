// A loopback TCP proxy that a test can cut: every connection through it is dropped at once, as
// a network failure drops a client's long-lived watch. TLS passes through untouched.
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import type { TestContext } from "node:test";

/** CutProxy forwards to one address; cut() drops every open connection (new ones are still served). */
export interface CutProxy {
  port: number;
  cut(): void;
}

/** relayConnection pipes a client to targetPort on 127.0.0.1, both sockets kept in open until they close. */
export function relayConnection(client: Socket, targetPort: number, open: Set<Socket>): void {
  const upstream = connect(targetPort, "127.0.0.1");
  for (const socket of [client, upstream]) {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => undefined);
  }
  client.pipe(upstream).pipe(client);
  client.on("close", () => upstream.destroy());
  upstream.on("close", () => client.destroy());
}

/** startCutProxy listens on a free loopback port, forwarding to targetPort on 127.0.0.1, until the test ends. */
export async function startCutProxy(t: TestContext, targetPort: number): Promise<CutProxy> {
  const open = new Set<Socket>();
  const server = createServer((client) => relayConnection(client, targetPort, open));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cut = (): void => {
    for (const socket of open) socket.destroy();
  };
  t.after(() => new Promise<void>((resolve) => {
    cut();
    server.close(() => resolve());
  }));
  return { port: (server.address() as AddressInfo).port, cut };
}
