// Whether an uncaught error ends the CLI process. One-shot commands exit (status 1); the agent
// (`probelet run`) keeps running, so that its pods are never orphaned by one stray error.

let survive = false;

/** surviveUncaughtErrors makes the process report uncaught errors instead of exiting on them. */
export function surviveUncaughtErrors(): void {
  survive = true;
}

/** survivesUncaughtErrors reports the current choice. */
export function survivesUncaughtErrors(): boolean {
  return survive;
}
