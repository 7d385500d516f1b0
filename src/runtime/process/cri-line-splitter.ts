// Cuts one container output stream into CRI log entries, chunk by chunk, with the same entry
// boundaries containerd's redirectLogs produces (internal/cri/io/logger.go):
// - a line ends at "\n"; a "\r" right before it is dropped too;
// - a line longer than maxLen becomes P chunks of exactly maxLen bytes and a final F chunk with
//   the rest (1..maxLen bytes); an empty line is an F entry with empty content;
// - output that ends without a newline is a final P entry.
// Memory stays bounded: at most maxLen + 1 bytes of an unfinished line are held back.
import { LOG_TAG_FULL, LOG_TAG_PARTIAL, MAX_CONTAINER_LOG_LINE_SIZE, type LogTag } from "../log-format.js";

/** EntrySink receives the entries a chunk completed, in order. `content` may alias the chunk. */
export type EntrySink = (tag: LogTag, content: Buffer) => void;

const LF = 0x0a;
const CR = 0x0d;

/** CriLineSplitter turns a byte stream into (tag, content) entries; one instance per stream. */
export class CriLineSplitter {
  /** Bytes of the current unfinished line; their total is `pendingLength` (≤ maxLen + 1 between calls). */
  private pending: Buffer[] = [];
  private pendingLength = 0;

  constructor(private readonly maxLen: number = MAX_CONTAINER_LOG_LINE_SIZE) {
    if (!Number.isInteger(maxLen) || maxLen <= 0) throw new RangeError(`maxLen must be a positive integer, got ${maxLen}`);
  }

  /** push consumes one chunk of output and emits every entry it completes. */
  push(chunk: Buffer, emit: EntrySink): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (nl < 0) {
        this.hold(chunk.subarray(start), emit);
        return;
      }
      let line = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.pendingLength > 0) {
        this.pending.push(line);
        line = Buffer.concat(this.pending, this.pendingLength + line.length);
        this.pending = [];
        this.pendingLength = 0;
      }
      if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
      this.emitLine(line, LOG_TAG_FULL, emit);
    }
  }

  /** end flushes an unfinished last line as a partial entry (output ended without "\n"). */
  end(emit: EntrySink): void {
    if (this.pendingLength === 0) return;
    const line = Buffer.concat(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    this.emitLine(line, LOG_TAG_PARTIAL, emit);
  }

  /** pendingBytes reports how much of an unfinished line is buffered (for tests and metrics). */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  /** emitLine writes P chunks of maxLen bytes while more than maxLen remain, then `lastTag`. */
  private emitLine(line: Buffer, lastTag: LogTag, emit: EntrySink): void {
    let rest = line;
    while (rest.length > this.maxLen) {
      emit(LOG_TAG_PARTIAL, rest.subarray(0, this.maxLen));
      rest = rest.subarray(this.maxLen);
    }
    emit(lastTag, rest);
  }

  /**
   * hold keeps the start of an unfinished line. Whole maxLen-sized P chunks are emitted as soon
   * as the line is known to be longer than maxLen; a trailing "\r" does not count yet, because
   * it is dropped if the next byte turns out to be "\n".
   */
  private hold(part: Buffer, emit: EntrySink): void {
    if (part.length === 0) return;
    this.pending.push(part);
    this.pendingLength += part.length;
    if (this.pendingLength - (part[part.length - 1] === CR ? 1 : 0) <= this.maxLen) return;
    let buffered = Buffer.concat(this.pending, this.pendingLength);
    while (buffered.length - (buffered[buffered.length - 1] === CR ? 1 : 0) > this.maxLen) {
      emit(LOG_TAG_PARTIAL, buffered.subarray(0, this.maxLen));
      buffered = buffered.subarray(this.maxLen);
    }
    // Copy the small remainder so the large concatenation can be freed.
    this.pending = [Buffer.from(buffered)];
    this.pendingLength = buffered.length;
  }
}
