// A kubeconfig (client-go clientcmd's v1 Config) for one probelet agent: one cluster, one user,
// one context that is current. The user's token stays in its file, so the kubeconfig itself holds
// no secret: `tokenFile` is the field kubectl has read since 1.x; @kubernetes/client-node (1.4)
// reads only `token-file`, so both name the file (kubectl ignores the second).
import { stringify } from "yaml";

/** KubeconfigInput is what the kubeconfig says: where the agent is and how to trust and reach it. */
export interface KubeconfigInput {
  /** The agent's URL, e.g. "https://127.0.0.1:10255". */
  server: string;
  /** An absolute path to the agent's token. */
  tokenFile: string;
  /** PEM certificates to trust for an https:// server. */
  certificateAuthority?: Buffer;
  /** The context's namespace. */
  namespace: string;
}

/** KUBECONFIG_NAME names the cluster, user and context the kubeconfig defines. */
export const KUBECONFIG_NAME = "probelet";

/** clientServerUrl turns a listen-everywhere URL (0.0.0.0, [::]) into one a client can dial on this machine. */
export function clientServerUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === "0.0.0.0") parsed.hostname = "127.0.0.1";
  else if (parsed.hostname === "[::]") parsed.hostname = "[::1]";
  return parsed.toString().replace(/\/+$/, "");
}

/** buildKubeconfig renders the kubeconfig as YAML. */
export function buildKubeconfig(input: KubeconfigInput): string {
  const cluster: Record<string, string> = { server: input.server };
  if (input.certificateAuthority !== undefined) cluster["certificate-authority-data"] = input.certificateAuthority.toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: KUBECONFIG_NAME, cluster }],
    users: [{ name: KUBECONFIG_NAME, user: { tokenFile: input.tokenFile, "token-file": input.tokenFile } }],
    contexts: [{ name: KUBECONFIG_NAME, context: { cluster: KUBECONFIG_NAME, user: KUBECONFIG_NAME, namespace: input.namespace } }],
    "current-context": KUBECONFIG_NAME,
    preferences: {},
  };
  return stringify(config, { indentSeq: false, lineWidth: 0 });
}
