// Host helpers for the e2e harness: free loopback ports, process-group liveness, the test
// process's descendants (for the leftover-process check), a plain sleep, and a GET on a
// connection of its own.
import { execFileSync } from "node:child_process";
import { get } from "node:http";
import { createServer } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

/** Ports handed out by this process; never handed out twice, so concurrent cases cannot collide. */
const handedOut = new Set<number>();

/** freePort finds a loopback port nobody listens on by binding port 0 and closing it again. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        const found = typeof address === "object" && address !== null ? address.port : 0;
        server.close(() => resolve(found));
      });
    });
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free loopback port after 20 attempts");
}

/** isProcessGroupAlive tells whether any process (zombies included) is left in the group. */
export function isProcessGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** descendants lists the PIDs (and commands) of every process below `pid`, breadth first, via ps. */
export function descendants(pid: number = process.pid): { pid: number; args: string }[] {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid=,args="], { encoding: "utf8" });
  const children = new Map<number, { pid: number; args: string }[]>();
  for (const line of table.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s?(.*)$/.exec(line);
    if (!match) continue;
    const entry = { pid: Number(match[1]), args: match[3] ?? "" };
    const parent = Number(match[2]);
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const out: { pid: number; args: string }[] = [];
  const queue = [pid];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (child.args.startsWith("ps ")) continue;
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** sleep waits `ms` milliseconds (tests may use timers). */
export function sleep(ms: number): Promise<void> {
  return delay(ms);
}

/**
 * getOnNewConnection GETs path from 127.0.0.1:port with a bearer token on a connection of its own
 * (no keep-alive pool: each call is a client's first request) and resolves with the status.
 */
export function getOnNewConnection(port: number, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get({ port, host: "127.0.0.1", path, agent: false, headers: { Authorization: `Bearer ${token}` }, timeout: 5000 }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("timeout", () => req.destroy(new Error("no answer within 5 s")));
    req.once("error", reject);
  });
}
