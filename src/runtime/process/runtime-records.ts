// RuntimeRecords: what the process runtime keeps in the agent's state directory so that the next
// runtime over the same directory lists and adopts the same sandboxes and containers, as
// containerd keeps its metadata store across restarts. Layout under <stateDir>/process-runtime/:
//   sandboxes/<id>.json    one SandboxRecord
//   containers/<id>.json   one ContainerRecord (config, exec context, state, process identities)
//   containers/<id>.exit   the supervisor's exit state file (native/supervisor.c)
// Every write is atomic (a temporary file, then rename) and writes of one record are applied in
// order. Records hold the container's environment, so files are private to the agent's user.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../util/logger.js";
import type { ContainerConfig, PodSandboxConfig } from "../runtime.js";
import type { ContainerExecContext, ContainerProcess, ContainerSnapshot } from "./container-process.js";
import type { SandboxNetwork } from "./pod-network.js";
import type { ProcessIdentity } from "./supervised-process.js";

/** RECORD_VERSION is written into every record; records of another version are ignored. */
export const RECORD_VERSION = 1;

/** MAX_RECORD_BYTES bounds one record file (a container's config and env included). */
export const MAX_RECORD_BYTES = 4 << 20;

/** SandboxRecord is one persisted sandbox. */
export interface SandboxRecord {
  version: typeof RECORD_VERSION;
  id: string;
  config: PodSandboxConfig;
  createdAt: number;
  ready: boolean;
  /** The pod's network namespace and IP; absent for a pod on the host's network. */
  network?: SandboxNetwork;
}

/** ContainerRecord is one persisted container. */
export interface ContainerRecord {
  version: typeof RECORD_VERSION;
  id: string;
  sandboxId: string;
  /** The reserved name (name_pod_namespace_uid_attempt). */
  name: string;
  config: ContainerConfig;
  logPath: string;
  execContext: ContainerExecContext;
  createdAt: number;
  snapshot: ContainerSnapshot;
  /** The group leader and its supervisor, once started under the supervisor. */
  leader?: ProcessIdentity;
  supervisor?: ProcessIdentity;
}

/** containerRecord captures a container as it is now, with its process identities once started. */
export function containerRecord(container: ContainerProcess, name: string, identities?: Pick<ContainerRecord, "leader" | "supervisor">): ContainerRecord {
  return {
    version: RECORD_VERSION,
    id: container.id,
    sandboxId: container.sandboxId,
    name,
    config: container.config,
    logPath: container.logPath,
    execContext: container.execContext,
    createdAt: container.createdAt,
    snapshot: container.snapshot(),
    ...(identities?.leader ? { leader: identities.leader } : {}),
    ...(identities?.supervisor ? { supervisor: identities.supervisor } : {}),
  };
}

/** LoadedRecords are every readable record of a state directory. */
export interface LoadedRecords {
  sandboxes: SandboxRecord[];
  containers: ContainerRecord[];
}

/** RuntimeRecords reads and writes the process runtime's records. */
export class RuntimeRecords {
  private readonly root: string;
  /** The last write or removal of each record file, so that they apply in order. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    stateDir: string,
    private readonly logger: Logger,
  ) {
    this.root = join(stateDir, "process-runtime");
  }

  /** exitPath is where the supervisor of container `id` records its exit. */
  exitPath(id: string): string {
    return join(this.root, "containers", `${checkId(id)}.exit`);
  }

  /** saveSandbox writes a sandbox record. */
  saveSandbox(record: SandboxRecord): Promise<void> {
    return this.enqueue(join(this.root, "sandboxes", `${checkId(record.id)}.json`), JSON.stringify(record));
  }

  /** removeSandbox deletes a sandbox record. */
  removeSandbox(id: string): Promise<void> {
    return this.enqueue(join(this.root, "sandboxes", `${checkId(id)}.json`), undefined);
  }

  /** saveContainer writes a container record. */
  saveContainer(record: ContainerRecord): Promise<void> {
    return this.enqueue(join(this.root, "containers", `${checkId(record.id)}.json`), JSON.stringify(record));
  }

  /** removeContainer deletes a container record and its exit state file. */
  async removeContainer(id: string): Promise<void> {
    await this.enqueue(join(this.root, "containers", `${checkId(id)}.json`), undefined);
    await rm(this.exitPath(id), { force: true });
  }

  /** idle resolves once every queued write is done. */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.all(this.queues.values());
  }

  /** load reads every record; unreadable or foreign files are skipped with a warning. */
  async load(): Promise<LoadedRecords> {
    const sandboxes = (await this.readAll("sandboxes")).filter(isSandboxRecord);
    const containers = (await this.readAll("containers")).filter(isContainerRecord);
    return { sandboxes, containers };
  }

  private async readAll(kind: string): Promise<unknown[]> {
    const dir = join(this.root, kind);
    const names = await readdir(dir).catch(() => [] as string[]);
    const out: unknown[] = [];
    for (const name of names.filter((n) => /^[0-9a-f]{64}\.json$/.test(n))) {
      const path = join(dir, name);
      try {
        const size = (await stat(path)).size;
        if (size > MAX_RECORD_BYTES) throw new Error(`${size} bytes exceed the limit of ${MAX_RECORD_BYTES}`);
        const record = JSON.parse(await readFile(path, "utf8")) as unknown;
        if (!isRecordOf(record, name.slice(0, -".json".length))) throw new Error("not a record of this runtime version");
        out.push(record);
      } catch (err) {
        this.logger.warn("Ignoring an unreadable process runtime record", { file: path, err: err instanceof Error ? err.message : String(err) });
      }
    }
    return out;
  }

  private enqueue(path: string, text: string | undefined): Promise<void> {
    const previous = this.queues.get(path) ?? Promise.resolve();
    const next = previous.then(() => (text === undefined ? rm(path, { force: true }) : atomicWrite(path, text)));
    const settled = next.catch((err: unknown) => this.logger.warn("Cannot write a process runtime record", { file: path, err })).finally(() => {
      if (this.queues.get(path) === settled) this.queues.delete(path);
    });
    this.queues.set(path, settled);
    return settled;
  }
}

async function atomicWrite(path: string, text: string): Promise<void> {
  const dir = join(path, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** checkId refuses anything but the runtime's own 64-hex-digit IDs (they become file names). */
function checkId(id: string): string {
  if (!/^[0-9a-f]{64}$/.test(id)) throw new RangeError(`invalid process runtime ID "${id.slice(0, 80)}"`);
  return id;
}

function isRecordOf(value: unknown, id: string): value is { version: number; id: string } {
  return typeof value === "object" && value !== null && (value as { version?: unknown }).version === RECORD_VERSION && (value as { id?: unknown }).id === id;
}

function isSandboxRecord(value: unknown): value is SandboxRecord {
  const r = value as Partial<SandboxRecord>;
  const network = r.network as Partial<SandboxNetwork> | undefined;
  const networkOk = network === undefined || (typeof network === "object" && network !== null && typeof network.netns === "string" && network.netns.startsWith("/") && typeof network.ip === "string");
  return typeof r.config === "object" && r.config !== null && typeof r.createdAt === "number" && typeof r.ready === "boolean" && networkOk;
}

function isContainerRecord(value: unknown): value is ContainerRecord {
  const r = value as Partial<ContainerRecord>;
  return (
    typeof r.sandboxId === "string" &&
    typeof r.name === "string" &&
    typeof r.config === "object" &&
    r.config !== null &&
    typeof r.logPath === "string" &&
    typeof r.execContext === "object" &&
    r.execContext !== null &&
    typeof r.createdAt === "number" &&
    typeof r.snapshot === "object" &&
    r.snapshot !== null
  );
}
