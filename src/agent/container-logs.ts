// Container logs as `kubectl logs` shows them: CRI log files decoded to plain lines, with
// --previous, --tail, --timestamps and --follow (kubelet pkg/kubelet/kuberuntime/logs/logs.go).
import { open } from "node:fs/promises";
import type { ContainerStatus, PodStatus } from "../api/types.js";
import type { ContainerInfo, Runtime } from "../runtime/runtime.js";
import { parseCriLogLine, type CriLogEntry } from "../runtime/log-format.js";
import type { Clock } from "../util/clock.js";
import { ApiError, type LogRequest } from "./agent-api.js";
import type { PodRecord } from "./pod-sync.js";
import { allContainers } from "./pod-sync.js";

/** FOLLOW_POLL_MS is how often a followed log file is checked for new data. */
const FOLLOW_POLL_MS = 200;
const READ_CHUNK = 64 * 1024;

/**
 * pickInstance finds the container instance a log request names. The container and the instance
 * come from the pod's status as the kubelet picks them (validateContainerLogStatus): --previous
 * reads lastState's container, otherwise the running or terminated one, else lastState's; a
 * container in CrashLoopBackOff therefore shows its newest dead instance either way.
 */
async function pickInstance(runtime: Runtime, record: PodRecord, request: LogRequest, status: PodStatus | undefined): Promise<ContainerInfo> {
  const pod = record.pod;
  const names = [...allContainers(pod), ...(pod.spec.ephemeralContainers ?? [])].map((c) => c.name);
  let container = request.container;
  if (container === undefined) {
    if (pod.spec.containers.length !== 1) {
      throw new ApiError("BadRequest", `a container name must be specified for pod ${pod.metadata.name ?? ""}, choose one of: [${pod.spec.containers.map((c) => c.name).join(" ")}]`);
    }
    container = pod.spec.containers[0]!.name;
  }
  if (!names.includes(container)) throw new ApiError("BadRequest", `container ${container} is not valid for pod ${pod.metadata.name ?? ""}`);
  const podName = pod.metadata.name ?? "";
  const cs = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])].find((s) => s.name === container);
  const fullId = logContainerId(cs, request.previous === true, container, podName);
  const id = fullId.slice(fullId.indexOf("://") + 3);
  const infos = record.sandboxId ? await runtime.listContainers({ podSandboxId: record.sandboxId }) : [];
  const chosen = infos.find((i) => i.id === id);
  // The status named a container the runtime no longer has (removed with its sandbox, or collected).
  if (!chosen) throw new ApiError("BadRequest", `container "${container}" in pod "${podName}" is not available`);
  return chosen;
}

/** logContainerId is the kubelet's validateContainerLogStatus: which container's log, or why there is none. */
function logContainerId(cs: ContainerStatus | undefined, previous: boolean, container: string, podName: string): string {
  const fail = (why: string): never => {
    throw new ApiError("BadRequest", `container "${container}" in pod "${podName}" ${why}`);
  };
  if (!cs) return fail("is not available");
  const last = cs.lastState?.terminated;
  if (previous) {
    if (!last?.containerID) throw new ApiError("BadRequest", `previous terminated container "${container}" in pod "${podName}" not found`);
    return last.containerID;
  }
  const { running, terminated, waiting } = cs.state ?? {};
  if (running) return cs.containerID ?? fail("is waiting to start - no logs yet");
  // A terminated state without an ID means the next container never started: read the last one.
  if (terminated) return terminated.containerID || last?.containerID || fail("is terminated");
  if (last) return last.containerID || fail("is terminated");
  if (waiting) {
    if (waiting.reason === "ErrImagePull") return fail("is waiting to start: image can't be pulled");
    if (waiting.reason === "ImagePullBackOff") return fail("is waiting to start: trying and failing to pull image");
    return fail(`is waiting to start: ${waiting.reason ?? ""}`);
  }
  return fail("is waiting to start - no logs yet");
}

/** readContainerLog streams a container's log lines (each ending in "\n"). */
export async function* readContainerLog(runtime: Runtime, record: PodRecord, request: LogRequest, status: PodStatus | undefined, clock: Clock): AsyncGenerator<string> {
  const info = await pickInstance(runtime, record, request, status);
  const render = (e: CriLogEntry, content: string): string => (request.timestamps ? `${e.timestamp} ${content}` : content);
  const lines = new LineDecoder();
  const file = await open(info.logPath).catch(() => undefined);
  if (!file) return;
  try {
    let offset = 0;
    const buffer = Buffer.alloc(READ_CHUNK);
    const drain = async (): Promise<string[]> => {
      const out: string[] = [];
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
        if (bytesRead === 0) return out;
        offset += bytesRead;
        for (const [entry, content] of lines.push(buffer.subarray(0, bytesRead))) out.push(render(entry, content));
      }
    };
    let initial = await drain();
    if (request.tailLines !== undefined) initial = initial.slice(Math.max(0, initial.length - request.tailLines));
    for (const line of initial) yield line;
    if (!request.follow || info.state === "exited") {
      if (info.state === "exited") yield* flushed(lines);
      return;
    }
    while (!request.signal?.aborted) {
      await clock.sleep(FOLLOW_POLL_MS, request.signal);
      for (const line of await drain()) yield line;
      const now = await runtime.containerStatus(info.id).catch(() => undefined);
      if (!now || now.state === "exited") {
        for (const line of await drain()) yield line;
        yield* flushed(lines);
        return;
      }
    }
  } finally {
    await file.close();
  }
}

function* flushed(lines: LineDecoder): Generator<string> {
  const rest = lines.flush();
  if (rest !== undefined) yield rest;
}

/** LineDecoder turns CRI log file bytes into logical lines, joining P chunks with their F chunk. */
class LineDecoder {
  private rest = Buffer.alloc(0);
  private partial: Buffer[] = [];

  push(chunk: Buffer): [CriLogEntry, string][] {
    const data = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const out: [CriLogEntry, string][] = [];
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      const line = data.subarray(start, nl);
      start = nl + 1;
      let entry: CriLogEntry;
      try {
        entry = parseCriLogLine(line);
      } catch {
        continue; // the kubelet skips lines it cannot parse
      }
      if (entry.tag === "P") {
        this.partial.push(entry.content);
        continue;
      }
      const content = Buffer.concat([...this.partial, entry.content]).toString("utf8");
      this.partial = [];
      out.push([entry, `${content}\n`]);
    }
    this.rest = Buffer.from(data.subarray(start));
    return out;
  }

  /** flush returns output that ended without a newline (a trailing P chunk), once the writer is done. */
  flush(): string | undefined {
    if (this.partial.length === 0) return undefined;
    const content = Buffer.concat(this.partial).toString("utf8");
    this.partial = [];
    return content;
  }
}
