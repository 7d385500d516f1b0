// The response body a probe keeps: at most MAX_OUTPUT_BYTES (kubelet ReadAtMost), held as a
// view into the buffer it was read into for as long as that is safe, copied out otherwise.
import { MAX_OUTPUT_BYTES } from "./probe-result.js";

/**
 * CappedBody collects body bytes up to MAX_OUTPUT_BYTES. A body that arrives in one read (the
 * usual case) is decoded straight from the read buffer; detach() must be called before that
 * buffer is reused, and copies what is held into the body's own storage.
 */
export class CappedBody {
  /** bytes counts the bytes kept (or, for a drained body, seen) so far, at most the cap. */
  bytes = 0;
  private view: Buffer | undefined;
  private viewStart = 0;
  private copy: Buffer | undefined;
  private drained = false;

  /** reset empties the body for the next response. */
  reset(): void {
    this.bytes = 0;
    this.view = undefined;
    this.drained = false;
  }

  /**
   * add takes buf[start, end) up to the cap; with `keep` false it only counts (a redirect's
   * body is drained, not kept). It returns false once the cap is reached.
   */
  add(buf: Buffer, start: number, end: number, keep: boolean): boolean {
    const take = Math.min(end - start, MAX_OUTPUT_BYTES - this.bytes);
    if (!keep) {
      this.drained = true;
    } else if (this.bytes === 0) {
      this.view = buf;
      this.viewStart = start;
    } else {
      this.detach();
      buf.copy(this.copy!, this.bytes, start, start + take);
    }
    this.bytes += take;
    return this.bytes < MAX_OUTPUT_BYTES;
  }

  /** detach copies a body still held in a read buffer into the body's own storage. */
  detach(): void {
    const view = this.view;
    if (view === undefined) return;
    this.copy ??= Buffer.allocUnsafe(MAX_OUTPUT_BYTES);
    view.copy(this.copy, 0, this.viewStart, this.viewStart + this.bytes);
    this.view = undefined;
  }

  /** text decodes the kept bytes as UTF-8 (the probe output; "" for a drained body). */
  text(): string {
    if (this.drained) return "";
    if (this.view !== undefined) return this.view.toString("utf8", this.viewStart, this.viewStart + this.bytes);
    return this.bytes === 0 || this.copy === undefined ? "" : this.copy.toString("utf8", 0, this.bytes);
  }
}
