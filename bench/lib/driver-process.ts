// Running one driver process (anchor or probelet) to completion, bounded in time, and parsing
// its RESULT line.
import { spawn } from "node:child_process";
import { parseResultLine, type DriverResult } from "./result-line.js";

/** DriverRun is what one driver process produced. */
export interface DriverRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  result: DriverResult | undefined;
  wallMs: number;
}

/** runDriver runs `command args…` and kills it (SIGKILL) if it outlives `limitMs`. */
export function runDriver(command: string, args: readonly string[], limitMs: number): Promise<DriverRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    const finish = (exitCode: number | null, extraErr = ""): void => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString("utf8");
      resolve({ exitCode, stdout, stderr: Buffer.concat(err).toString("utf8") + extraErr, result: parseResultLine(stdout), wallMs: performance.now() - started });
    };
    child.once("error", (e) => finish(null, e.message));
    child.once("close", (code) => finish(code));
  });
}
