// `probelet kubeconfig`: a kubeconfig for the running local agent, so kubectl and client libraries
// reach it with `kubectl --kubeconfig <(probelet kubeconfig) get pods` or KUBECONFIG=FILE. The
// server is the agent's HTTPS listener, which kubectl authenticates with the state directory's
// certificate (certificate-authority-data) before it sends the token: kubectl sends no token over
// plain HTTP (client-go clientcmd reads a user's credentials for https:// servers only), and a
// port someone took over gets nothing.
import { access, open } from "node:fs/promises";
import { constants } from "node:fs";
import { resolve } from "node:path";
import { openStateDirectory } from "../agent/state-directory.js";
import { tokenPath } from "../server/agent-token.js";
import { servingCertPath } from "../server/serving-cert.js";
import { readSmallFile } from "../util/read-bounded-file.js";
import { UsageError } from "./args.js";
import { readAgentUrl } from "./agent-url-file.js";
import { clientFromFlags, parseCommandArgs, parseServerUrl, reportClientError } from "./agent-client.js";
import { stateDirOf } from "./client-credentials.js";
import { buildKubeconfig, clientServerUrl } from "./agent-kubeconfig.js";
import type { CommandContext } from "./probe-command.js";

/** KUBECONFIG_HELP is the text of `probelet kubeconfig --help`. */
export const KUBECONFIG_HELP = `Usage:
  probelet kubeconfig [--state-dir DIR] [--server URL] [--token-file FILE]
                      [--certificate-authority FILE] [-n NS] [-o FILE]

Prints a kubeconfig for the local agent (or writes it to FILE, mode 0600):
  kubectl --kubeconfig <(probelet kubeconfig) get pods
  probelet kubeconfig -o ~/.kube/probelet && KUBECONFIG=~/.kube/probelet kubectl get pods

The server is the HTTPS URL the running agent recorded in its state directory (or --server, an
https:// URL: kubectl sends no token over plain HTTP). The user authenticates with tokenFile: the
path of the agent's token, never the token itself. The state directory's serving certificate is
the certificate authority, so kubectl sends the token only to the agent that holds its key.

Flags:
      --state-dir DIR       the agent's state directory (default $PROBELET_STATE_DIR or
                            ~/.local/state/probelet)
      --server URL          the agent's https:// URL, when it is not the recorded one
      --token-file FILE     the token file (default: the state directory's agent-token)
      --certificate-authority FILE
                            the CA to trust (default: the state directory's pki/probelet.crt)
  -n, --namespace NS        the context's namespace (default "default")
  -o, --output FILE         write the kubeconfig to FILE (mode 0600) instead of stdout
  -h, --help                show this help
`;

const OPTIONS = {
  "state-dir": { type: "string" },
  server: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  "certificate-authority": { type: "string" },
  namespace: { type: "string", short: "n" },
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const;

/** Certificate bundles larger than this are refused (as the client refuses them). */
const MAX_CA_BYTES = 1024 * 1024;

/** runKubeconfigCommand runs `probelet kubeconfig ARGS…`: exit 0, 1 when no agent is found or a file cannot be read or written. */
export async function runKubeconfigCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(KUBECONFIG_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`kubeconfig takes no arguments, got ${positionals.join(", ")}`);
  if (values.token !== undefined) throw new UsageError("--token would show the token to every user of this machine (ps): use --token-file FILE");
  const stateDir = stateDirOf(values);
  const server = values.server ?? (await runningAgentUrl(stateDir, ctx));
  if (server === undefined) return 1;
  const url = checkServer(server);
  const tokenFile = resolve(values["token-file"] ?? tokenPath(stateDir));
  await access(tokenFile, constants.R_OK).catch(() => {
    throw new Error(`cannot read the agent's token ${tokenFile}: pass --token-file FILE for an agent started with its own token`);
  });
  const ca = Buffer.from(await readSmallFile(values["certificate-authority"] ?? servingCertPath(stateDir), MAX_CA_BYTES));
  const text = buildKubeconfig({ server: url, tokenFile, namespace: values.namespace ?? "default", certificateAuthority: ca });
  if (values.output === undefined) ctx.stdout(text);
  else await writePrivateFile(values.output, text);
  return 0;
}

/**
 * runningAgentUrl reads the HTTPS URL the agent of stateDir recorded, once the agent has answered
 * on its socket (a URL left by an agent that died is never handed out); undefined, said on
 * stderr, when there is none. A state directory that is not safe to trust rejects.
 */
async function runningAgentUrl(stateDir: string, ctx: CommandContext): Promise<string | undefined> {
  try {
    // The state directory's own socket, whatever $PROBELET_SERVER says: it alone proves the agent runs.
    await clientFromFlags({ "state-dir": stateDir }, ctx.signal, {}).text("/healthz");
  } catch (err) {
    reportClientError(err, ctx.stderr, ctx.signal);
    return undefined;
  }
  const dir = (await openStateDirectory(stateDir)) ?? stateDir;
  const url = await readAgentUrl(dir, { preferHttps: true });
  if (url === undefined) ctx.stderr(`error: the agent of ${stateDir} recorded no URL: start "probelet run" (with --state-dir ${stateDir}) again, or pass --server URL\n`);
  return url;
}

/** checkServer accepts an https:// URL: kubectl sends no token to an http:// one. */
function checkServer(server: string): string {
  const parsed = parseServerUrl(server);
  if (parsed.protocol !== "https:") {
    throw new UsageError(`${server} is plain HTTP, and kubectl sends no token over plain HTTP: give the agent's https:// URL (an agent that could not make its certificate, without openssl, has none)`);
  }
  return clientServerUrl(server);
}

/** writePrivateFile writes text readable by its owner only, also when the file existed with a wider mode. */
async function writePrivateFile(path: string, text: string): Promise<void> {
  const handle = await open(path, "w", 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}
