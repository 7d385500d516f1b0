// The workers whose tcpSocket probe stands on the native engine (src/probe/tcp-standing.ts),
// by pod. A worker checks its gates (kubelet worker.go doProbe: the pod's status, the container's
// ID, state and started flag, the pod IP) before every probe; a standing probe skips that
// check, which is exact only while the pod's status stays the one the worker last checked. So
// every change of a pod's status takes its workers' tickers back, and they check again.

/** StandingMember is a worker whose probe stands. */
export interface StandingMember {
  /** The pod's status changed: take the ticker back. */
  podStatusChanged(): void;
}

/** StandingWorkers is the manager's registry of standing workers. */
export class StandingWorkers {
  private readonly byPod = new Map<string, Set<StandingMember>>();
  private open = true;

  /** @param coalesceMs how late the engine may run a standing tick to share a wake-up (the scheduler's window). */
  constructor(readonly coalesceMs: number) {}

  /** accepting reports whether workers may still stand (false once the manager is closing). */
  get accepting(): boolean {
    return this.open;
  }

  /** add registers a worker of pod `podUid` whose probe now stands. */
  add(podUid: string, member: StandingMember): void {
    let members = this.byPod.get(podUid);
    if (members === undefined) this.byPod.set(podUid, (members = new Set()));
    members.add(member);
  }

  /** delete forgets a worker whose standing probe ended. */
  delete(podUid: string, member: StandingMember): void {
    const members = this.byPod.get(podUid);
    if (members?.delete(member) && members.size === 0) this.byPod.delete(podUid);
  }

  /** podStatusChanged tells every standing worker of the pod. */
  podStatusChanged(podUid: string): void {
    const members = this.byPod.get(podUid);
    if (members === undefined) return;
    for (const member of [...members]) member.podStatusChanged();
  }

  /** close stops new workers from standing; those that stand end as the manager stops them. */
  close(): void {
    this.open = false;
  }

  /** size counts the standing workers. */
  get size(): number {
    let n = 0;
    for (const members of this.byPod.values()) n += members.size;
    return n;
  }
}
