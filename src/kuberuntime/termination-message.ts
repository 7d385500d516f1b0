// A container's termination message, as the kubelet fills state.terminated.message (kubelet
// kuberuntime_container.go convertToKubeContainerStatus, getTerminationMessage,
// readLastStringFromContainerLogs; the limits of pkg/kubelet/container/runtime.go). The reads
// are synchronous, as the kubelet's are within its sync: a few KiB per exited instance, read
// once, and the status is ready in the same turn of the sync (no interleaving with other pods).
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { errnoText } from "../probe/host-command.js";
import { parseCriLogLine } from "../runtime/log-format.js";
import type { ContainerInfo } from "../runtime/runtime.js";

/** MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH: at most the last 4096 bytes of the file are read (MaxContainerTerminationMessageLength). */
export const MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH = 4096;
/** MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LENGTH: a message taken from the log keeps its last 2048 bytes (MaxContainerTerminationMessageLogLength). */
export const MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LENGTH = 2048;
/** MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LINES: a message taken from the log reads its last 80 lines (MaxContainerTerminationMessageLogLines). */
export const MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LINES = 80;
/** MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH: all of a pod's messages together, split evenly per container (MaxPodTerminationMessageLogLength). */
export const MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH = 12 * 1024;

/** The annotations the kubelet puts on a container for its termination message (labels.go newContainerAnnotations). */
export const ANNOTATION_TERMINATION_MESSAGE_PATH = "io.kubernetes.container.terminationMessagePath";
export const ANNOTATION_TERMINATION_MESSAGE_POLICY = "io.kubernetes.container.terminationMessagePolicy";

/**
 * The most of a log file's end read to find its last 80 lines: 80 lines of at most 16 KiB of
 * content each, with their CRI prefixes.
 */
const LOG_TAIL_READ_BYTES = MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LINES * (16 * 1024 + 64);

/**
 * terminationMessageHostPath is the host file that holds a container instance's termination
 * message: beside its log file, named after the instance (`<container>/<attempt>.log` →
 * `<container>/<attempt>.termination-log`). The kubelet picks a random name under the pod's
 * directory and finds it again in the runtime's mounts; a name derived from the log path is found
 * again the same way on both runtimes, and goes with the pod's log directory.
 */
export function terminationMessageHostPath(logPath: string): string {
  return `${logPath.replace(/\.log$/, "")}.termination-log`;
}

/** readTail reads at most the last maxBytes of a file (kubelet tail.ReadAtMost). */
function readTail(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const bytesRead = readSync(fd, buffer, filled, length - filled, size - length + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * readTerminationMessageFile is getTerminationMessage: the last 4096 bytes of the file; a missing
 * file is no message (and lets the log fallback run); any other failure is the message.
 * Returns the message and whether the logs should be read instead.
 */
export function readTerminationMessageFile(hostPath: string, fallbackToLogs: boolean): { message: string; checkLogs: boolean } {
  try {
    const data = readTail(hostPath, MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH);
    return { message: data.toString("utf8"), checkLogs: fallbackToLogs && data.length === 0 };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "EIO";
    if (code === "ENOENT") return { message: "", checkLogs: fallbackToLogs };
    return { message: `Error on reading termination log ${hostPath}: open ${hostPath}: ${errnoText(code)}`, checkLogs: false };
  }
}

/**
 * readLastStringFromContainerLogs is the kubelet's: the last 80 lines of the CRI log (stdout and
 * stderr, partial lines joined as they come), of which the last 2048 bytes are kept.
 */
export function readLastStringFromContainerLogs(logPath: string): string {
  let raw: Buffer;
  try {
    raw = readTail(logPath, LOG_TAIL_READ_BYTES);
  } catch (err) {
    return `Error on reading termination message from logs: failed to open log file "${logPath}": open ${logPath}: ${errnoText((err as NodeJS.ErrnoException).code ?? "EIO")}`;
  }
  const lines = raw.toString("latin1").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const tail = lines.slice(Math.max(0, lines.length - MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LINES));
  const out: Buffer[] = [];
  for (const line of tail) {
    try {
      const entry = parseCriLogLine(Buffer.from(line, "latin1"));
      out.push(entry.tag === "P" ? entry.content : Buffer.concat([entry.content, Buffer.from("\n")]));
    } catch {
      // The kubelet's reader skips a line it cannot parse (the first may be cut by the tail read).
    }
  }
  const all = Buffer.concat(out);
  return all.subarray(Math.max(0, all.length - MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LENGTH)).toString("utf8");
}

/**
 * withTerminationMessage returns an exited instance with its termination message appended to
 * the runtime's message (kubelet convertToKubeContainerStatus): from the file at the container's
 * terminationMessagePath, or with policy FallbackToLogsOnError, a non-zero exit and an empty or
 * missing file, from the end of its log ("ContainerCannotRun" never started, so has no log).
 * Other instances are returned as they are.
 */
export function withTerminationMessage(info: ContainerInfo): ContainerInfo {
  if (info.state !== "exited") return info;
  const path = info.annotations[ANNOTATION_TERMINATION_MESSAGE_PATH] ?? "";
  const fallbackToLogs = info.annotations[ANNOTATION_TERMINATION_MESSAGE_POLICY] === "FallbackToLogsOnError" && info.exitCode !== 0 && info.reason !== "ContainerCannotRun";
  let message = "";
  let checkLogs = fallbackToLogs;
  if (path !== "" && info.logPath !== "") ({ message, checkLogs } = readTerminationMessageFile(terminationMessageHostPath(info.logPath), fallbackToLogs));
  if (checkLogs && info.logPath !== "") message = readLastStringFromContainerLogs(info.logPath);
  if (message === "") return info;
  return { ...info, message: info.message === "" ? message : `${info.message}: ${message}` };
}

/**
 * truncateTerminationMessages cuts every terminated message of a pod's statuses to its share of
 * 12 KiB, split evenly over the pod's containers (kubelet status_manager.go normalizeStatus).
 */
export function truncateTerminationMessages(containerCount: number, statuses: readonly { state?: { terminated?: { message?: string } }; lastState?: { terminated?: { message?: string } } }[]): void {
  const share = containerCount > 0 ? Math.floor(MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH / containerCount) : MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH;
  for (const s of statuses) {
    for (const terminated of [s.state?.terminated, s.lastState?.terminated]) {
      if (terminated?.message === undefined) continue;
      const bytes = Buffer.from(terminated.message, "utf8");
      if (bytes.length > share) terminated.message = bytes.subarray(0, share).toString("utf8");
    }
  }
}
