// The agent's side of the probelet-supervisor protocol (native/supervisor.c): the spec written
// to the supervisor's stdin, its one-line reply, and the exit state file it leaves behind.
import { constants } from "node:os";
import type { Mount } from "../runtime.js";
import type { LaunchSpec } from "./container-launch.js";
import { worldFields, type ContainerWorld } from "./container-world.js";

/** SUPERVISOR_PROTOCOL is the first field of every spec; the supervisor refuses any other. */
export const SUPERVISOR_PROTOCOL = "probelet-supervisor/4";

/** MAX_SUPERVISOR_SPEC_BYTES is the largest spec the supervisor reads (native/supervisor.c MAX_SPEC). */
export const MAX_SUPERVISOR_SPEC_BYTES = 8 << 20;

const NUL = Buffer.from([0]);

/** MAX_STATE_FILE_BYTES bounds how much of an exit state file is read. */
export const MAX_STATE_FILE_BYTES = 4096;

/** SupervisorSpec is everything the supervisor needs to run and log one container. */
export interface SupervisorSpec {
  /** The resolved executable, its argv, complete env and working dir. */
  launch: LaunchSpec;
  /** Absolute log file path; "" discards the output. */
  logPath: string;
  /** Where the supervisor records the exit. */
  statePath: string;
  /** Longest line content per log entry. */
  maxLineSize: number;
  /** Bind mounts made in the container's own mount namespace (absolute paths; none by default). */
  mounts?: readonly Mount[];
  /** The pod's network namespace file, which the container joins; none: the agent's network. */
  netns?: string;
  /** The user, capabilities and no_new_privs the container runs with; none: the supervisor's own. */
  world?: ContainerWorld;
}

/**
 * encodeSupervisorSpec renders a spec as NUL-terminated fields. Throws a RangeError for what
 * the supervisor would refuse (NUL bytes, an oversized spec).
 */
export function encodeSupervisorSpec(spec: SupervisorSpec): Buffer {
  const { launch } = spec;
  // An env value that is not UTF-8 goes as its exact bytes (LaunchSpec.envBytes).
  const env = Object.entries(launch.env).map(([key, value]) => {
    const raw = launch.envBytes?.[key];
    return raw === undefined ? `${key}=${value}` : Buffer.concat([Buffer.from(`${key}=`, "utf8"), Buffer.from(raw, "base64")]);
  });
  const fields = [
    SUPERVISOR_PROTOCOL,
    spec.logPath,
    spec.statePath,
    launch.cwd,
    launch.file,
    String(spec.maxLineSize),
    String(launch.argv.length),
    ...launch.argv,
    String(env.length),
    ...env,
    String((spec.mounts ?? []).length * 3),
    ...(spec.mounts ?? []).flatMap((m) => [m.hostPath, m.containerPath, m.readonly ? "ro" : "rw"]),
    spec.netns ?? "",
    ...worldSpecFields(spec.world),
  ];
  if (spec.netns !== undefined && !spec.netns.startsWith("/")) throw new RangeError("supervisor spec: the network namespace path must be absolute");
  if ((spec.mounts ?? []).some((m) => !m.hostPath.startsWith("/") || !m.containerPath.startsWith("/"))) {
    throw new RangeError("supervisor spec: mount paths must be absolute");
  }
  if (fields.some((f) => (typeof f === "string" ? f.includes("\0") : f.includes(0)))) throw new RangeError("supervisor spec: a field contains a NUL byte");
  const encoded = Buffer.concat(fields.flatMap((f) => [typeof f === "string" ? Buffer.from(f, "utf8") : f, NUL]));
  if (encoded.length > MAX_SUPERVISOR_SPEC_BYTES) throw new RangeError(`supervisor spec: ${encoded.length} bytes exceed the limit of ${MAX_SUPERVISOR_SPEC_BYTES}`);
  return encoded;
}

/** worldSpecFields are the last fields of a spec: uid, gid, groups (counted), capabilities, no_new_privs. */
function worldSpecFields(world: ContainerWorld | undefined): string[] {
  const f = worldFields(world);
  return [f.uid, f.gid, String(f.groups.length), ...f.groups, f.capabilities, f.noNewPrivs];
}

/** SupervisorReply is what the supervisor answered to a spec. */
export type SupervisorReply =
  | { kind: "started"; pid: number }
  /** The container could not be executed; `code` is the errno name (e.g. "ENOENT"). */
  | { kind: "exec-failed"; code: string }
  /** The log file could not be opened. */
  | { kind: "log-failed"; code: string }
  /** A volume mount could not be made in the container's mount namespace. */
  | { kind: "mount-failed"; code: string }
  /** The pod's network namespace could not be joined. */
  | { kind: "netns-failed"; code: string }
  /** The user, groups, capabilities or no_new_privs could not be applied. */
  | { kind: "user-failed"; code: string }
  /** The working directory could not be entered (as the container's user). */
  | { kind: "chdir-failed"; code: string }
  /** The supervisor refused the spec, or answered something unreadable. */
  | { kind: "invalid"; detail: string };

/** parseSupervisorReply reads the supervisor's one-line answer. */
export function parseSupervisorReply(text: string): SupervisorReply {
  const line = text.endsWith("\n") ? text.slice(0, -1) : text;
  const [word, rest = ""] = splitOnce(line, " ");
  if (word === "started" && /^[1-9]\d{0,9}$/.test(rest)) return { kind: "started", pid: Number(rest) };
  const failures = { error: "exec-failed", logerror: "log-failed", mounterror: "mount-failed", netnserror: "netns-failed", usererror: "user-failed", chdirerror: "chdir-failed" } as const;
  if (Object.hasOwn(failures, word) && /^\d{1,5}$/.test(rest)) return { kind: failures[word as keyof typeof failures], code: errnoName(Number(rest)) };
  if (word === "invalid") return { kind: "invalid", detail: rest };
  return { kind: "invalid", detail: line === "" ? "no answer" : `unexpected answer ${JSON.stringify(line.slice(0, 80))}` };
}

/** ExitRecord is a container exit as the supervisor recorded it. */
export interface ExitRecord {
  /** The exit code, or 128 + the signal number for a killed process (as containerd reports). */
  exitCode: number;
  /** When the group leader exited, in ms since the epoch. */
  finishedAt: number;
}

/** parseExitRecord reads a supervisor state file; undefined when it is incomplete or malformed. */
export function parseExitRecord(text: string): ExitRecord | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const [key, value] = splitOnce(line, "=");
    if (value === undefined || !/^-?\d{1,20}$/.test(value) || fields.has(key)) return undefined;
    fields.set(key, value);
  }
  const code = fields.get("code");
  const signal = fields.get("signal");
  const finished = fields.get("finished_at_ns");
  if (finished === undefined || (code === undefined) === (signal === undefined)) return undefined;
  const exitCode = code !== undefined ? Number(code) : 128 + Number(signal);
  if (!Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255 + 128) return undefined;
  return { exitCode, finishedAt: Number(BigInt(finished) / 1_000_000n) };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** errnoName maps an errno number to its name ("ENOENT"), or "E<number>" when unknown. */
function errnoName(errno: number): string {
  for (const [name, value] of Object.entries(constants.errno)) if (value === errno) return name;
  return `E${errno}`;
}
