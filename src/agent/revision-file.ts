// The resourceVersions a previous agent may have handed out, kept in the state directory so a
// restarted agent's store continues above them (ObjectStore.seedRevision). Writing the counter at
// every change would cost a write per status update; instead the file holds a reservation, a
// mark the counter stays below: a restarted agent starts at the mark, and the running one moves
// the mark ahead, by REVISION_BLOCK, whenever the counter comes within half a block of it. A
// crash loses at most the unused part of a block.
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Logger } from "../util/logger.js";
import { readFileBounded } from "../util/read-bounded-file.js";

/** REVISION_BLOCK is how far ahead of the counter the mark is moved. */
export const REVISION_BLOCK = 100_000;

/** RevisionFile is `<stateDir>/state/revision`: the reserved resourceVersion mark. */
export class RevisionFile {
  private readonly dir: string;
  private reserved: number | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    stateDir: string,
    private readonly logger: Logger,
  ) {
    this.dir = join(stateDir, "state");
  }

  /**
   * load reads the mark a previous agent reserved (0 without one) and reserves the next block
   * above max(mark, current); resolves with the mark to seed the store with.
   */
  async load(current: number): Promise<number> {
    const read = await readFileBounded(join(this.dir, "revision"), 64).catch(() => undefined);
    const text = read?.ok === true ? read.text.trim() : "";
    const mark = /^\d{1,15}$/.test(text) ? Number(text) : 0;
    if (read !== undefined && mark === 0) this.logger.warn("Ignoring an unreadable resourceVersion mark; watches from before this start may see reused resourceVersions", { file: join(this.dir, "revision") });
    this.reserved = Math.max(mark, current);
    await this.write(this.reserved + REVISION_BLOCK);
    return mark;
  }

  /** keepAhead moves the mark ahead once the counter is within half a block of it (only after load). */
  keepAhead(current: number): void {
    if (this.reserved === undefined || this.writing !== undefined || current + REVISION_BLOCK / 2 < this.reserved) return;
    this.writing = this.write(current + REVISION_BLOCK)
      .catch((err: unknown) => this.logger.warn("Cannot save the resourceVersion mark", { err }))
      .finally(() => (this.writing = undefined));
  }

  /** idle resolves once a write in progress is on disk. */
  async idle(): Promise<void> {
    await this.writing;
  }

  private async write(mark: number): Promise<void> {
    await writeFileAtomic(join(this.dir, "revision"), String(mark));
    this.reserved = mark;
  }
}
