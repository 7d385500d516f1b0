// Checks a container config before the process runtime records it: what runc or execve would
// reject later is refused at create time, as containerd refuses a spec it cannot generate.
import type { ContainerConfig } from "../runtime.js";

/**
 * validateContainerConfig returns why `config` cannot become a process, or undefined when it
 * can: a name is required, command + args must not be empty (containerd: "no command
 * specified"), strings passed to execve must not contain NUL bytes, and env names must be
 * non-empty and free of "=".
 */
export function validateContainerConfig(config: ContainerConfig): string | undefined {
  if (config.name === "") return "container name must not be empty";
  const argv = [...config.command, ...config.args];
  if (argv.length === 0 || argv[0] === "") return "no command specified";
  if (argv.some(hasNul)) return "command or args contain a NUL byte";
  if (config.workingDir !== undefined && hasNul(config.workingDir)) return "working directory contains a NUL byte";
  for (const { key, value } of config.envs) {
    if (key === "" || key.includes("=") || hasNul(key)) return `invalid environment variable name "${key}"`;
    if (hasNul(value)) return `environment variable "${key}" contains a NUL byte`;
  }
  return undefined;
}

function hasNul(text: string): boolean {
  return text.includes("\0");
}
