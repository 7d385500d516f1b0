// Reading a kubeconfig as client-go's clientcmd does for one context (the current one): the
// cluster's server and CA, the user's bearer token or client certificate. Only what a node needs;
// exec plugins and auth providers are refused with a clear error (client-go
// tools/clientcmd/client_config.go ClientConfig, api/types.go).
import { dirname, isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { readSmallFile } from "../util/read-bounded-file.js";

/** MAX_KUBECONFIG_BYTES bounds a kubeconfig and every file it names. */
export const MAX_KUBECONFIG_BYTES = 1024 * 1024;

/** ClusterCredentials is what the API client needs to reach and authenticate to the API server. */
export interface ClusterCredentials {
  /** The server URL without a trailing slash (https://host:port). */
  server: string;
  /** PEM of the CA that signs the server's certificate; undefined uses the system's roots. */
  ca?: Buffer;
  /** Verify nothing about the server's certificate (only when the kubeconfig says so). */
  insecureSkipTlsVerify: boolean;
  /** A bearer token (never logged). */
  token?: string;
  /** A client certificate and its key (PEM). */
  clientCert?: Buffer;
  clientKey?: Buffer;
}

/** KubeconfigError is a kubeconfig that cannot be used; the message names the file and the field. */
export class KubeconfigError extends Error {
  override readonly name = "KubeconfigError";
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** named finds `name` in a kubeconfig list (clusters, users, contexts) and returns its inner map. */
function named(file: string, doc: Obj, list: string, inner: string, name: string): Obj {
  const items = doc[list];
  if (items !== undefined && !Array.isArray(items)) throw new KubeconfigError(`${file}: ${list}: must be a list`);
  const found = (items ?? []).find((i: unknown) => isObj(i) && i["name"] === name) as Obj | undefined;
  if (found === undefined) throw new KubeconfigError(`${file}: ${list}: no ${inner} named "${name}"`);
  const value = found[inner] ?? {};
  if (!isObj(value)) throw new KubeconfigError(`${file}: ${list}[name=${name}].${inner}: must be a map`);
  return value;
}

function optString(file: string, obj: Obj, path: string, key: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw new KubeconfigError(`${file}: ${path}.${key}: must be a string`);
  return v;
}

/**
 * loadKubeconfig reads a kubeconfig file and resolves its current context (or `context`).
 * Relative file paths in it are relative to the kubeconfig's directory, as clientcmd resolves them.
 */
export async function loadKubeconfig(file: string, context?: string): Promise<ClusterCredentials> {
  let text: string;
  try {
    text = await readSmallFile(file, MAX_KUBECONFIG_BYTES);
  } catch (err) {
    throw new KubeconfigError(`cannot read kubeconfig ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseKubeconfig(text, file, context);
}

/** parseKubeconfig resolves a kubeconfig text (see loadKubeconfig); `file` names it in errors and anchors relative paths. */
export async function parseKubeconfig(text: string, file: string, context?: string): Promise<ClusterCredentials> {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 10 });
  } catch (err) {
    throw new KubeconfigError(`${file}: not a kubeconfig: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
  if (!isObj(doc)) throw new KubeconfigError(`${file}: not a kubeconfig: expected a map with clusters, users and contexts`);
  const contextName = context ?? optString(file, doc, "", "current-context");
  if (contextName === undefined) throw new KubeconfigError(`${file}: current-context is not set`);
  const ctx = named(file, doc, "contexts", "context", contextName);
  const clusterName = optString(file, ctx, `contexts[name=${contextName}].context`, "cluster");
  if (clusterName === undefined) throw new KubeconfigError(`${file}: contexts[name=${contextName}].context.cluster: Required value`);
  const cluster = named(file, doc, "clusters", "cluster", clusterName);
  const userName = optString(file, ctx, `contexts[name=${contextName}].context`, "user");
  const user = userName === undefined ? {} : named(file, doc, "users", "user", userName);
  const clusterPath = `clusters[name=${clusterName}].cluster`;
  const userPath = `users[name=${userName ?? ""}].user`;

  const server = optString(file, cluster, clusterPath, "server");
  if (server === undefined) throw new KubeconfigError(`${file}: ${clusterPath}.server: Required value`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeconfigError(`${file}: ${clusterPath}.server: Invalid value: "${server}": not a URL`);
  }
  if (url.protocol !== "https:") throw new KubeconfigError(`${file}: ${clusterPath}.server: Invalid value: "${server}": only https servers are supported`);
  const base = dirname(file);
  const readRef = async (obj: Obj, path: string, fileKey: string, dataKey: string): Promise<Buffer | undefined> => {
    const data = optString(file, obj, path, dataKey);
    if (data !== undefined) return Buffer.from(data, "base64");
    const ref = optString(file, obj, path, fileKey);
    if (ref === undefined) return undefined;
    const full = isAbsolute(ref) ? ref : join(base, ref);
    try {
      return Buffer.from(await readSmallFile(full, MAX_KUBECONFIG_BYTES));
    } catch (err) {
      throw new KubeconfigError(`${file}: ${path}.${fileKey}: cannot read ${full}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const insecure = cluster["insecure-skip-tls-verify"] === true;
  const ca = await readRef(cluster, clusterPath, "certificate-authority", "certificate-authority-data");
  if (insecure && ca !== undefined) throw new KubeconfigError(`${file}: ${clusterPath}: specifying a root certificates file with the insecure flag is not allowed`);
  for (const refused of ["exec", "auth-provider", "username", "password"]) {
    if (user[refused] !== undefined) throw new KubeconfigError(`${file}: ${userPath}.${refused}: not supported by probelet (use a token, tokenFile or a client certificate)`);
  }
  let token = optString(file, user, userPath, "token");
  const tokenFile = optString(file, user, userPath, "tokenFile");
  if (token === undefined && tokenFile !== undefined) {
    const full = isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile);
    try {
      token = (await readSmallFile(full, 16 * 1024)).trim();
    } catch (err) {
      throw new KubeconfigError(`${file}: ${userPath}.tokenFile: cannot read ${full}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const clientCert = await readRef(user, userPath, "client-certificate", "client-certificate-data");
  const clientKey = await readRef(user, userPath, "client-key", "client-key-data");
  if ((clientCert === undefined) !== (clientKey === undefined)) throw new KubeconfigError(`${file}: ${userPath}: client-certificate and client-key go together`);
  return {
    server: server.replace(/\/+$/, ""),
    insecureSkipTlsVerify: insecure,
    ...(ca !== undefined ? { ca } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(clientCert !== undefined && clientKey !== undefined ? { clientCert, clientKey } : {}),
  };
}
