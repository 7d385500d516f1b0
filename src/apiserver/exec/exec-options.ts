// The query of a pod exec request (core/v1 PodExecOptions: command repeated, container, stdin,
// stdout, stderr, tty), checked as the API server and the kubelet check it.
import { badRequest, type ExecStatus } from "./exec-status.js";

/** ExecOptions are a parsed PodExecOptions. */
export interface ExecOptions {
  command: string[];
  /** Empty when the client named none. */
  container: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** MAX_COMMAND_WORDS and MAX_COMMAND_BYTES bound the command a request may carry. */
export const MAX_COMMAND_WORDS = 1024;
export const MAX_COMMAND_BYTES = 128 * 1024;

const TRUE_WORDS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_WORDS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** parseExecOptions reads PodExecOptions from a query; a bad query gives the API server's 400 Status. */
export function parseExecOptions(query: URLSearchParams): ExecOptions | ExecStatus {
  const command = query.getAll("command");
  if (command.length === 0) return badRequest("you must specify at least 1 command");
  const commandBytes = command.reduce((sum, word) => sum + Buffer.byteLength(word), 0);
  if (command.length > MAX_COMMAND_WORDS || commandBytes > MAX_COMMAND_BYTES) {
    return badRequest(`command: Too long: must have at most ${MAX_COMMAND_WORDS} words and ${MAX_COMMAND_BYTES} bytes`);
  }
  const flags: Record<"stdin" | "stdout" | "stderr" | "tty", boolean> = { stdin: false, stdout: false, stderr: false, tty: false };
  for (const name of ["stdin", "stdout", "stderr", "tty"] as const) {
    const value = query.get(name);
    if (value === null) continue;
    // Query booleans convert with Go's strconv.ParseBool (apimachinery runtime/conversion.go).
    if (TRUE_WORDS.has(value)) flags[name] = true;
    else if (!FALSE_WORDS.has(value)) return badRequest(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  // kubelet pkg/kubelet/cri/streaming/remotecommand/httpstream.go NewOptions: at least one
  // stream, and stderr is dropped under a tty (the terminal merges it into stdout).
  if (!flags.stdin && !flags.stdout && !flags.stderr) return badRequest("you must specify at least 1 of stdin, stdout, stderr");
  return { command, container: query.get("container") ?? "", ...flags, stderr: flags.stderr && !flags.tty };
}

/** isExecStatus tells a parsed Status from parsed options. */
export function isExecStatus(value: object): value is ExecStatus {
  return "kind" in value && value.kind === "Status";
}
