// One run of a container as the agent's API reports it (GET …/pods/{name}/instances): what the
// console draws each restart and exit from. The agent's container-instances.ts keeps them.

/** ContainerInstance is one run of a container (one container ID): started, and exited unless it still runs. */
export interface ContainerInstance {
  container: string;
  /** "<runtime>://<id>", as the pod's status names it. */
  containerID: string;
  /** RFC 3339 times, as the status has them. */
  startedAt?: string;
  finishedAt?: string;
  exitCode?: number;
  signal?: number;
  /** The termination reason: Completed, Error, OOMKilled, ContainerStatusUnknown… */
  reason?: string;
}
