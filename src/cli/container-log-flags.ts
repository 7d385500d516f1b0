// `probelet run`'s container log rotation flags, named after the kubelet's configuration fields
// (containerLogMaxSize, containerLogMaxFiles, containerLogMaxWorkers, containerLogMonitorInterval;
// the kubelet has flags for the first two), with its defaults and configuration errors.
import { parseQuantityExact } from "../api/quantity.js";
import { DEFAULT_CONTAINER_LOG_POLICY, validateContainerLogPolicy, type ContainerLogPolicy } from "../agent/container-log-manager.js";
import { parseGoDuration } from "./go-duration.js";
import { UsageError } from "./args.js";

/** CONTAINER_LOG_OPTIONS are the flags for node:util parseArgs. */
export const CONTAINER_LOG_OPTIONS = {
  "container-log-max-size": { type: "string" },
  "container-log-max-files": { type: "string" },
  "container-log-max-workers": { type: "string" },
  "container-log-monitor-interval": { type: "string" },
} as const;

/** CONTAINER_LOG_HELP is the flags' part of `probelet run --help`. */
export const CONTAINER_LOG_HELP = `      --container-log-max-size QUANTITY
                         rotate a container's log once it reaches this size (default 10Mi; -1: never)
      --container-log-max-files N
                         the log and its rotated files kept per container, older ones gzipped (default 5, > 1)
      --container-log-max-workers N
                         logs rotated at once (default 1)
      --container-log-monitor-interval DURATION
                         how often log sizes are checked (default 10s, at least 3s)
`;

function integer(flag: string, text: string): number {
  if (!/^-?\d{1,9}$/.test(text)) throw new UsageError(`invalid argument "${text}" for "--${flag}" flag: want an integer`);
  return Number(text);
}

/** containerLogPolicy reads the flags over the kubelet's defaults; a bad value is a UsageError with the kubelet's text. */
export function containerLogPolicy(values: Partial<Record<keyof typeof CONTAINER_LOG_OPTIONS, string>>): ContainerLogPolicy {
  const policy = { ...DEFAULT_CONTAINER_LOG_POLICY };
  const size = values["container-log-max-size"];
  if (size !== undefined) {
    const bytes = parseQuantityExact(size);
    if (bytes === undefined || !Number.isSafeInteger(bytes)) throw new UsageError(`failed to parse container log max size "${size}": want a whole number of bytes, such as 10Mi`);
    policy.maxSize = bytes;
  }
  const files = values["container-log-max-files"];
  if (files !== undefined) policy.maxFiles = integer("container-log-max-files", files);
  const workers = values["container-log-max-workers"];
  if (workers !== undefined) policy.maxWorkers = integer("container-log-max-workers", workers);
  const interval = values["container-log-monitor-interval"];
  if (interval !== undefined) {
    const ms = parseGoDuration(interval);
    if (ms === undefined) throw new UsageError(`invalid argument "${interval}" for "--container-log-monitor-interval" flag: want a duration such as 10s`);
    policy.monitorIntervalMs = ms;
  }
  const errors = validateContainerLogPolicy(policy);
  if (errors.length > 0) throw new UsageError(errors.join("; "));
  return policy;
}
