// `probelet version`: the CLI's and the running agent's versions, as kubectl version prints
// them (Client Version, Server Version), each with probelet's own release beside the Kubernetes
// release it emulates. Both come from one place: KUBE_VERSION (the emulated kubelet) through the
// API's version.Info, and package.json.
import { versionInfo, type VersionInfo } from "../apiserver/discovery/version-info.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError } from "./agent-client.js";
import { UsageError } from "./args.js";
import type { CommandContext } from "./probe-command.js";

/** VERSION_HELP is the text of `probelet version --help`. */
export const VERSION_HELP = `Usage:
  probelet version [--client] [-o json]

Prints the version of this probelet and of the agent it talks to:
  Client Version: v1.35.0-probelet (probelet 0.1.0)
  Server Version: v1.35.0-probelet (probelet 0.1.0)
The Kubernetes release is the kubelet's whose behaviour probelet reproduces.

Flags:
      --client              only this probelet's version (no agent needed)
  -o, --output json         as JSON: {"clientVersion": {...}, "serverVersion": {...}}
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = { ...CLIENT_OPTIONS, client: { type: "boolean" }, output: { type: "string", short: "o" } } as const;

/** line renders one version.Info as kubectl's short form, with probelet's release. */
function line(info: Partial<VersionInfo>): string {
  return `${info.gitVersion ?? "unknown"}${info.probeletVersion !== undefined ? ` (probelet ${info.probeletVersion})` : ""}`;
}

/** runVersionCommand runs `probelet version ARGS…`: exit 0, or 1 when the agent cannot be asked (the client's version is printed first). */
export async function runVersionCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(VERSION_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ""}"`);
  if (values.output !== undefined && values.output !== "json") throw new UsageError(`--output must be 'json', got "${values.output}"`);
  const client = versionInfo();
  let server: Partial<VersionInfo> | undefined;
  if (values.client !== true) {
    try {
      server = (await clientFromFlags(values, ctx.signal).getResource("/version")) as Partial<VersionInfo>;
    } catch (err) {
      if (values.output === undefined) ctx.stdout(`Client Version: ${line(client)}\n`);
      return reportClientError(err, ctx.stderr, ctx.signal);
    }
  }
  if (values.output === "json") ctx.stdout(`${JSON.stringify({ clientVersion: client, ...(server !== undefined ? { serverVersion: server } : {}) }, null, 2)}\n`);
  else ctx.stdout(`Client Version: ${line(client)}\n${server !== undefined ? `Server Version: ${line(server)}\n` : ""}`);
  return 0;
}
