// Pod sources: manifest files given on the command line, and a watched manifest directory like
// the kubelet's static pods (kubelet pkg/kubelet/config/file.go: files are re-read on change and
// every 20 s; a pod whose file vanished is deleted; an invalid file changes nothing running).
import { readdir } from "node:fs/promises";
import { watch, type FSWatcher } from "node:fs";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { formatOfFile, MAX_INPUT_BYTES, NO_OBJECTS_MESSAGE, tooLargeMessage } from "../api/bounded-parse.js";
import { decodePodsAndOthers } from "../api/decode.js";
import { formatFieldErrors } from "../api/field-errors.js";
import { lintPod } from "../api/probe-lint.js";
import { defaultAndValidatePod } from "../api/validation.js";
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { Pod } from "../api/types.js";
import { readFileBounded } from "../util/read-bounded-file.js";
import type { KubeObject } from "../apiserver/storage/object-store.js";
import type { AdmitOptions, AdmitResult } from "./agent.js";
import { collectManifestObject, emptyManifestObjects, type ManifestObjects, type ObjectRef } from "./manifest-objects.js";

/**
 * PodAdmitter is the part of the agent a source needs: `admit` and `removeSource` hand the
 * source's pods to the agent's pod config (pod-config.ts), which merges every source into the one
 * stream of updates the agent runs; a file's pods admitted one by one and the rest removed make
 * the source's set (config.go podStorage.merge).
 */
export interface PodAdmitter {
  /** admit adds one pod to its source (replacing one of its name there), or says why it is refused. */
  admit(pod: Pod, source: string, options?: AdmitOptions): AdmitResult;
  /** removeSource takes out of a source every pod whose UID is not in `keep`. */
  removeSource(source: string, keep?: ReadonlySet<string>): void;
  /**
   * putConfigObjects makes the store hold a source's ConfigMaps and Secrets (ManifestConfigObjects.put);
   * returns the errors.
   */
  putConfigObjects(source: string, objects: readonly KubeObject[], keep?: readonly ObjectRef[]): string[];
  /** manifestRejected is told what a watched manifest file could not apply (the agent records an event). */
  manifestRejected?(file: string, errors: readonly string[]): void;
}

/** SourceReport lists what loading one manifest text produced. */
export interface SourceReport {
  source: string;
  admitted: string[];
  /** Human-readable errors, each prefixed by the pod or file they concern. */
  errors: string[];
  /** Probe linter warnings of the admitted pods (src/api/probe-lint.ts), each prefixed by its pod. */
  warnings: string[];
}

/** CheckedManifest is a manifest text decoded and validated, not yet admitted. */
export interface CheckedManifest {
  pods: Pod[];
  /** Human-readable errors, each prefixed by the file and pod they concern; none when the text is good. */
  errors: string[];
  /** Probe linter warnings (src/api/probe-lint.ts), each prefixed by its pod, and the skipped objects of other kinds. */
  warnings: string[];
  /** The ConfigMaps and Secrets, and those refused (their errors do not stop the rest of the file). */
  objects: ManifestObjects;
}

/**
 * checkManifest decodes and validates a manifest text without admitting anything, so that a
 * caller can refuse bad input before it touches a runtime. `.json` files are strict JSON, others
 * YAML streams; with requireObjects a text without objects is an error (`run -f`), without it
 * (a watched directory) it means "no pods from this file".
 */
export function checkManifest(text: string, fileName: string, requireObjects = true): CheckedManifest {
  const checked: CheckedManifest = { pods: [], errors: [], warnings: [], objects: emptyManifestObjects() };
  const decoded = decodePodsAndOthers(text, fileName, formatOfFile(fileName), (object) => collectManifestObject(object, fileName, checked.objects));
  if (!decoded.ok) {
    checked.errors.push(...decoded.errors);
    checked.objects = emptyManifestObjects();
    return checked;
  }
  checked.warnings.push(...checked.objects.warnings);
  const others = checked.objects.configObjects.length + checked.objects.refused.length + checked.objects.warnings.length;
  if (requireObjects && decoded.value.length + others === 0) {
    checked.errors.push(`${fileName}: ${NO_OBJECTS_MESSAGE}`);
    return checked;
  }
  for (const pod of decoded.value) {
    const result = defaultAndValidatePod(pod);
    if (!result.ok) checked.errors.push(`${fileName}: Pod "${pod.metadata?.name ?? ""}" is invalid:`, ...formatFieldErrors(result.errors).map((e) => `  * ${e}`));
    else checked.warnings.push(...lintPod(result.pod).map((w) => `${fileName}: pod/${pod.metadata.name ?? ""}: ${w}`));
  }
  checked.pods = decoded.value;
  return checked;
}

/**
 * applyManifest decodes and validates a manifest text, then loads its ConfigMaps and Secrets into
 * the store and admits its pods under one source, in that order, so the pods find the objects
 * they read. Any syntax, decode or validation error of a pod rejects the whole text and changes
 * nothing running; a refused ConfigMap or Secret is reported and the rest applies. With
 * replaceSource (a watched directory) a text without objects removes the file's pods and objects.
 */
export function applyManifest(admitter: PodAdmitter, text: string, fileName: string, source: string, replaceSource: boolean): SourceReport {
  const checked = checkManifest(text, fileName, !replaceSource);
  const report: SourceReport = { source, admitted: [], errors: checked.errors, warnings: checked.warnings };
  if (report.errors.length > 0) return report;
  const { configObjects, refused, errors } = checked.objects;
  report.errors.push(...errors, ...admitter.putConfigObjects(source, configObjects, refused).map((e) => (e.startsWith(" ") ? e : `${fileName}: ${e}`)));
  const keep = new Set<string>();
  for (const pod of checked.pods) {
    const result = admitter.admit(pod, source, { watched: replaceSource });
    if (result.ok) {
      keep.add(result.pod.metadata.uid ?? "");
      report.admitted.push(`${result.pod.metadata.namespace ?? "default"}/${result.pod.metadata.name ?? ""}`);
    } else {
      report.errors.push(`${fileName}: Pod "${result.name}" is invalid:`, ...result.errors.map((e) => `  * ${e}`));
    }
  }
  if (replaceSource) admitter.removeSource(source, keep);
  return report;
}

/** MANIFEST_RESCAN_MS is the kubelet's fileCheckFrequency (20 s). */
export const MANIFEST_RESCAN_MS = 20_000;
const MANIFEST_EXTENSIONS = /\.(ya?ml|json)$/i;
// What `seen` holds for a file over the size limit (never a sha256 hex digest).
const TOO_LARGE = "too-large";

/** ManifestDirectory watches a directory of pod manifests. */
export class ManifestDirectory {
  private readonly dir: string;
  private readonly seen = new Map<string, string>();
  private watcher: FSWatcher | undefined;
  private readonly stop = new AbortController();
  private scanning: Promise<void> | undefined;
  private rescanQueued = false;
  private loop: Promise<void> | undefined;

  constructor(
    dir: string,
    private readonly admitter: PodAdmitter,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly onReport: (report: SourceReport) => void = () => undefined,
  ) {
    this.dir = resolve(dir);
  }

  /** start scans once, then watches for changes and rescans periodically. */
  async start(): Promise<void> {
    await this.scan();
    try {
      this.watcher = watch(this.dir, () => this.queueScan());
      this.watcher.on("error", (err) => this.logger.warn("Manifest directory watch failed; relying on periodic rescans", { dir: this.dir, err }));
    } catch (err) {
      this.logger.warn("Cannot watch manifest directory; relying on periodic rescans", { dir: this.dir, err });
    }
    this.loop = this.periodic();
  }

  private async periodic(): Promise<void> {
    while (!this.stop.signal.aborted) {
      await this.clock.sleep(MANIFEST_RESCAN_MS, this.stop.signal, IN_BACKGROUND);
      if (!this.stop.signal.aborted) this.queueScan();
    }
  }

  /** queueScan coalesces change notifications into one rescan at a time. */
  queueScan(): void {
    if (this.scanning) {
      this.rescanQueued = true;
      return;
    }
    this.scanning = this.scan().finally(() => {
      this.scanning = undefined;
      if (this.rescanQueued && !this.stop.signal.aborted) {
        this.rescanQueued = false;
        this.queueScan();
      }
    });
  }

  /** scan reads every manifest whose content changed and forgets files that are gone. */
  async scan(): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => !n.startsWith(".") && MANIFEST_EXTENSIONS.test(n)).sort();
    } catch (err) {
      this.logger.error("Cannot read manifest directory", { dir: this.dir, err });
      return;
    }
    const present = new Set<string>();
    for (const name of names) {
      const path = join(this.dir, name);
      present.add(path);
      const read = await readFileBounded(path, MAX_INPUT_BYTES).catch(() => undefined);
      if (read === undefined) continue;
      if (!read.ok) {
        // Remembered, so an oversized file is reported once, not at every rescan.
        if (this.seen.get(path) === TOO_LARGE) continue;
        this.seen.set(path, TOO_LARGE);
        const report: SourceReport = { source: `file:${path}`, admitted: [], errors: [`${name}: ${tooLargeMessage(MAX_INPUT_BYTES)}`], warnings: [] };
        this.logger.error("Manifest rejected; pods already running from it are kept", { file: path, errors: report.errors });
        this.admitter.manifestRejected?.(path, report.errors);
        this.onReport(report);
        continue;
      }
      const text = read.text;
      const hash = createHash("sha256").update(text).digest("hex");
      if (this.seen.get(path) === hash) continue;
      this.seen.set(path, hash);
      const report = applyManifest(this.admitter, text, name, `file:${path}`, true);
      if (report.errors.length > 0) {
        this.logger.error("Manifest not applied in full; what it refused keeps running as before", { file: path, errors: report.errors });
        this.admitter.manifestRejected?.(path, report.errors);
      }
      this.onReport(report);
    }
    for (const path of [...this.seen.keys()]) {
      if (present.has(path)) continue;
      this.seen.delete(path);
      this.logger.info("Manifest removed; deleting its pods, ConfigMaps and Secrets", { file: path });
      this.admitter.removeSource(`file:${path}`);
      this.admitter.putConfigObjects(`file:${path}`, []);
    }
  }

  /** close stops watching. Pods stay (the agent decides). */
  async close(): Promise<void> {
    this.stop.abort();
    this.watcher?.close();
    await this.scanning;
    await this.loop;
  }
}
