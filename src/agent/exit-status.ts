// Whether a container's exit was a failure, for the places that count them (the health
// summary's "failures lately", the console's strips): a non-zero code or a signal. An init
// container that completes, or any container that exits 0, has not failed.

/** failedExit reports whether an exit (a terminated state, an instance, a summary's exit) was a failure. */
export function failedExit(exit: { exitCode?: number; signal?: number }): boolean {
  return (exit.exitCode ?? 0) !== 0 || exit.signal !== undefined;
}
