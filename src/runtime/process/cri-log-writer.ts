// Writes a container's stdout and stderr into one log file in the CRI log format (see
// ../log-format.ts), like containerd's CRI logger (internal/cri/io/logger.go): both streams go
// to the same file, each entry is written whole, a write error is logged and the output is still
// drained so the container never blocks on a dead log.
//
// Floods stay cheap: each chunk read from a pipe becomes ONE buffer (all its entries share one
// timestamp) and ONE file write; when the file falls behind, the pipe is paused until the file
// drains, which in turn blocks the container's writes (backpressure, as containerd's io.Pipe
// does). Memory is bounded by a few chunks per stream, whatever the container prints.
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import type { Clock } from "../../util/clock.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import { criLogPrefix, formatRfc3339Nano, MAX_CONTAINER_LOG_LINE_SIZE, type LogStreamType, type LogTag } from "../log-format.js";
import { CriLineSplitter } from "./cri-line-splitter.js";

/** CriLogWriterOptions configure a CriLogWriter. */
export interface CriLogWriterOptions {
  /** Timestamps come from this clock. */
  clock: Clock;
  logger?: Logger;
  /** Longest line content per entry (default MAX_CONTAINER_LOG_LINE_SIZE). */
  maxLineSize?: number;
}

/** FILE_HIGH_WATER_MARK is how many bytes may queue for the file before the pipes are paused. */
export const FILE_HIGH_WATER_MARK = 256 * 1024;

/**
 * CriLogWriter owns one log file and the output streams attached to it. Create it with
 * open(); attach() each stream once; close() resolves when every stream ended and the file is
 * flushed and closed. An empty path discards the output (CRI: no log path, no log).
 */
export class CriLogWriter {
  /** One entry per attached stream; settles when that stream ended, errored or was destroyed. */
  private readonly sources = new Map<Readable, Promise<void>>();
  /** Set after the first write error: later output is drained and dropped. */
  private broken = false;
  private closing: Promise<void> | undefined;
  private readonly logger: Logger;

  private constructor(
    /** The file's stream; undefined for a discarding writer. Replaced by reopen(). */
    private file: Writable | undefined,
    readonly path: string,
    private readonly options: CriLogWriterOptions,
  ) {
    this.logger = options.logger ?? silentLogger;
    file?.on("error", (err) => this.onWriteError(err));
  }

  /** open opens (creating, appending to) the log file; rejects if it cannot be opened. */
  static async open(path: string, options: CriLogWriterOptions): Promise<CriLogWriter> {
    if (path === "") return new CriLogWriter(undefined, path, options);
    const handle: FileHandle = await open(path, "a", 0o640);
    const file = handle.createWriteStream({ highWaterMark: FILE_HIGH_WATER_MARK });
    return new CriLogWriter(file, path, options);
  }

  /**
   * reopen sends later output to a new file at the log's path (the old one was renamed: log
   * rotation, CRI ReopenContainerLog); what was already queued still goes to the old file.
   */
  async reopen(): Promise<void> {
    if (!this.file || this.closing) return;
    const handle = await open(this.path, "a", 0o640);
    const old = this.file;
    const file = handle.createWriteStream({ highWaterMark: FILE_HIGH_WATER_MARK });
    file.on("error", (err) => this.onWriteError(err));
    this.file = file;
    this.broken = false;
    old.end();
  }

  /** attach starts copying `stream` into the file as `type` entries. */
  attach(stream: Readable, type: LogStreamType): void {
    if (this.closing) throw new Error("log writer is closing");
    const splitter = new CriLineSplitter(this.options.maxLineSize ?? MAX_CONTAINER_LOG_LINE_SIZE);
    const done = new Promise<void>((resolve) => {
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        this.write(this.render(type, (emit) => splitter.end(emit)));
        resolve();
      };
      stream.on("data", (chunk: Buffer) => {
        const flowing = this.write(this.render(type, (emit) => splitter.push(chunk, emit)));
        if (!flowing && this.file && !this.broken) {
          stream.pause();
          this.file.once("drain", () => stream.resume());
        }
      });
      stream.once("end", finish);
      stream.once("close", finish);
      stream.once("error", (err) => {
        this.logger.warn("error reading container output", { stream: type, path: this.path, err });
        finish();
      });
    });
    this.sources.set(stream, done);
  }

  /** destroyStreams stops reading every attached stream now (output still in the pipes is lost). */
  destroyStreams(): void {
    for (const stream of this.sources.keys()) stream.destroy();
  }

  /** streamsDone resolves once every attached stream has ended (the file may still be open). */
  async streamsDone(): Promise<void> {
    await Promise.all(this.sources.values());
  }

  /** close waits for the attached streams to end, then flushes and closes the file. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.closeFile();
    return this.closing;
  }

  private async closeFile(): Promise<void> {
    await this.streamsDone();
    const file = this.file;
    if (!file || file.destroyed) return;
    await new Promise<void>((resolve) => {
      file.once("close", resolve);
      file.end();
    });
  }

  /** write queues `data` for the file; returns false when the caller should wait for "drain". */
  private write(data: Buffer): boolean {
    if (data.length === 0 || !this.file || this.broken) return true;
    return this.file.write(data);
  }

  /** render collects the entries `feed` produces into one buffer, all with the current time. */
  private render(type: LogStreamType, feed: (emit: (tag: LogTag, content: Buffer) => void) => void): Buffer {
    const tags: LogTag[] = [];
    const contents: Buffer[] = [];
    let contentBytes = 0;
    feed((tag, content) => {
      tags.push(tag);
      contents.push(content);
      contentBytes += content.length;
    });
    if (tags.length === 0) return EMPTY;
    const timestamp = formatRfc3339Nano(this.options.clock.now());
    const full = criLogPrefix(timestamp, type, "F");
    const partial = criLogPrefix(timestamp, type, "P");
    const out = Buffer.allocUnsafe(tags.length * (full.length + 1) + contentBytes);
    let at = 0;
    for (let i = 0; i < tags.length; i++) {
      at += (tags[i] === "P" ? partial : full).copy(out, at);
      at += contents[i]!.copy(out, at);
      out[at++] = 0x0a;
    }
    return out;
  }

  private onWriteError(err: Error): void {
    if (this.broken) return;
    this.broken = true;
    this.logger.error("failed to write container log; dropping further output", { path: this.path, err });
    // Paused streams wait for a "drain" that will never come: let them flow again.
    for (const stream of this.sources.keys()) stream.resume();
  }
}

const EMPTY = Buffer.alloc(0);
