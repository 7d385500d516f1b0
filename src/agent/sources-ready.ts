// Whether every pod source has told the agent its pods once (kubelet pkg/kubelet/config/sources.go
// SourcesReady, answered by config.go PodConfig.SeenAllSources). Until it has, a pod the agent
// does not know may still be one a source has not listed yet, so nothing of it is cleaned up:
// the kubelet runs HandlePodCleanups only once its sources are ready, and its container GC
// removes what deleted pods left (containers, sandboxes, log directories) only then.

/** SourcesReady tracks the pod sources the agent waits for and which of them were seen. */
export class SourcesReady {
  private readonly waited = new Set<string>();
  private readonly seenSources = new Set<string>();

  /**
   * add makes the agent wait for a source (SourcesReady.AddSource) until seen(source). A source
   * added after it was seen stays seen.
   */
  add(source: string): void {
    this.waited.add(source);
  }

  /** seen records that a source has listed its pods once (podStorage.markSourceSet). */
  seen(source: string): void {
    this.seenSources.add(source);
  }

  /** allReady tells whether every source added has been seen (SourcesReady.AllReady); true when none was added. */
  allReady(): boolean {
    for (const source of this.waited) if (!this.seenSources.has(source)) return false;
    return true;
  }

  /** pending lists the sources added and not seen yet, in the order they were added. */
  pending(): string[] {
    return [...this.waited].filter((source) => !this.seenSources.has(source));
  }
}
