// TLS bootstrapping as the kubelet does it with --bootstrap-kubeconfig (pkg/kubelet/certificate/
// bootstrap/bootstrap.go LoadClientCert): when --kubeconfig is missing or its client certificate
// expired, the bootstrap kubeconfig's credentials (a bootstrap token) create a
// kubernetes.io/kube-apiserver-client-kubelet CSR for CN system:node:<node>, O system:nodes with a
// new ECDSA P-256 key; once kube-controller-manager approved and signed it, the certificate and
// key go into the kubeconfig's directory (kubelet-client-<time>.pem, kubelet-client-current.pem)
// and the kubeconfig is written to use them. The key waits in kubelet-client.key.tmp (0600) until
// then, so a restart while the CSR is pending asks again with the same key and finds the same CSR.
import { createPrivateKey, generateKeyPairSync, X509Certificate, type KeyObject } from "node:crypto";
import { access, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { stringify as toYaml } from "yaml";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { readSmallFile } from "../util/read-bounded-file.js";
import { RestClient, ApiStatusError } from "../client/rest-client.js";
import { digestedName, KUBELET_CLIENT_SIGNER, requestCertificate, waitForCertificate } from "./certificate-requests.js";
import { CertificateStore, checkPrivateDirectory, type StoredCertificate } from "./certificate-store.js";
import { makeCsr } from "./csr-der.js";
import { loadKubeconfig, type ClusterCredentials } from "./kubeconfig.js";

/** CLIENT_PAIR names the client certificate files (kubelet-client-current.pem). */
export const CLIENT_PAIR = "kubelet-client";
/** SERVING_PAIR names the serving certificate files (kubelet-server-current.pem in the state directory's pki/). */
export const SERVING_PAIR = "kubelet-server";
/** TMP_PRIVATE_KEY_FILE keeps the key of a pending CSR (bootstrap.go tmpPrivateKeyFile). */
export const TMP_PRIVATE_KEY_FILE = "kubelet-client.key.tmp";
/** BOOTSTRAP_CSR_TIMEOUT_MS is how long the bootstrap waits for its certificate (requestNodeCertificate: 3600 s). */
export const BOOTSTRAP_CSR_TIMEOUT_MS = 3600_000;
/** SERVER_WAIT_MS bounds the retries while the API server does not answer (waitForServer: 1 minute). */
const SERVER_WAIT_MS = 60_000;
/** CLIENT_USAGES are a node client certificate's usages for an ECDSA key (DefaultKubeletClientGetUsages). */
export const CLIENT_USAGES: readonly string[] = ["digital signature", "client auth"];

/** NodeClientSubject is the subject of a node's client certificate. */
export function nodeClientSubject(nodeName: string): { commonName: string; organizations: string[] } {
  return { commonName: `system:node:${nodeName}`, organizations: ["system:nodes"] };
}

/** BootstrapOptions configure loadClientCert. */
export interface BootstrapOptions {
  kubeconfig: string;
  bootstrapKubeconfig: string;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  userAgent: string;
  signal?: AbortSignal;
}

/** newEcKey makes the kind of key the kubelet makes for its certificates (keyutil: ECDSA P-256). */
export function newEcKey(): KeyObject {
  return generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
}

/** ecKeyPem writes a key as SEC1 "EC PRIVATE KEY" PEM, as keyutil.MarshalPrivateKeyToPEM does. */
export function ecKeyPem(key: KeyObject): Buffer {
  return Buffer.from(key.export({ type: "sec1", format: "pem" }));
}

/**
 * clientConfigStillValid tells whether `kubeconfig` exists and names a client certificate that has
 * not expired (isClientConfigStillValid); a kubeconfig without one does not count.
 */
export async function clientConfigStillValid(kubeconfig: string, now: number): Promise<boolean> {
  if (!(await access(kubeconfig).then(() => true, () => false))) return false;
  try {
    const credentials = await loadKubeconfig(kubeconfig);
    if (credentials.clientCert === undefined || credentials.clientKey === undefined) return false;
    return now <= Date.parse(new X509Certificate(credentials.clientCert).validTo);
  } catch {
    return false;
  }
}

/** writeNodeKubeconfig writes the kubeconfig the node uses from then on (writeKubeconfigFromBootstrapping), 0600. */
export async function writeNodeKubeconfig(path: string, cluster: ClusterCredentials, pemPath: string): Promise<void> {
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "default-cluster",
        cluster: {
          server: cluster.server,
          ...(cluster.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
          ...(cluster.ca !== undefined ? { "certificate-authority-data": cluster.ca.toString("base64") } : {}),
        },
      },
    ],
    users: [{ name: "default-auth", user: { "client-certificate": pemPath, "client-key": pemPath } }],
    contexts: [{ name: "default-context", context: { cluster: "default-cluster", user: "default-auth", namespace: "default" } }],
    "current-context": "default-context",
  };
  await writeFileAtomic(path, toYaml(doc));
}

/** pendingKey reads the key a previous bootstrap left waiting, or makes and keeps a new one (keyutil.LoadOrGenerateKeyFile). */
async function pendingKey(path: string): Promise<KeyObject> {
  try {
    return createPrivateKey(await readSmallFile(path, 16 * 1024));
  } catch {
    const key = newEcKey();
    await rm(path, { force: true });
    await writeFileAtomic(path, ecKeyPem(key).toString("utf8"));
    return key;
  }
}

/** withServerRetries retries `fn` while the API server cannot be reached, up to a minute (waitForServer). */
async function withServerRetries<T>(fn: () => Promise<T>, clock: Clock, logger: Logger, signal?: AbortSignal): Promise<T> {
  const until = clock.now() + SERVER_WAIT_MS;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      const unreachable = !(err instanceof ApiStatusError) && !(err instanceof Error && err.cause instanceof ApiStatusError);
      if (!unreachable || clock.now() >= until || signal?.aborted) throw err;
      logger.info("Error waiting for apiserver to come up", { err: err instanceof Error ? err.message : String(err) });
      await clock.sleep(1000, signal);
    }
  }
}

/**
 * loadClientCert makes sure `kubeconfig` holds a valid node client certificate, bootstrapping
 * one with the bootstrap kubeconfig when it does not. Resolves with the stored certificate (or
 * undefined when the kubeconfig was valid already). Errors carry the kubelet's wording.
 */
export async function loadClientCert(options: BootstrapOptions): Promise<StoredCertificate | undefined> {
  const { kubeconfig, clock, logger } = options;
  if (await clientConfigStillValid(kubeconfig, clock.now())) {
    logger.info("Kubeconfig exists and is valid, skipping bootstrap", { path: kubeconfig });
    return undefined;
  }
  logger.info("Using bootstrap kubeconfig to generate TLS client cert, key and kubeconfig file", { bootstrapKubeconfig: options.bootstrapKubeconfig });
  let bootstrap: ClusterCredentials;
  try {
    bootstrap = await loadKubeconfig(options.bootstrapKubeconfig);
  } catch (err) {
    throw new Error(`unable to load bootstrap kubeconfig: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const certDir = dirname(kubeconfig);
  await checkPrivateDirectory(certDir);
  const store = new CertificateStore(certDir, CLIENT_PAIR);
  const keyPath = join(certDir, TMP_PRIVATE_KEY_FILE);
  const current = await store.current();
  const key = current !== undefined ? createPrivateKey(current.key) : await pendingKey(keyPath);
  const subject = nodeClientSubject(options.nodeName);
  const client = new RestClient({ credentials: bootstrap, clock, logger, userAgent: options.userAgent });
  try {
    const csr = await withServerRetries(
      () => requestCertificate(client, { csrPem: makeCsr(key, subject), name: digestedName(key, subject.commonName, subject.organizations, CLIENT_USAGES), signerName: KUBELET_CLIENT_SIGNER, usages: CLIENT_USAGES }),
      clock,
      logger,
      options.signal,
    );
    logger.info("Waiting for client certificate to be issued", { csr: csr.name });
    const cert = await waitForCertificate(client, csr, BOOTSTRAP_CSR_TIMEOUT_MS, clock, options.signal);
    const stored = await store.update(cert, ecKeyPem(key), clock.now());
    await rm(keyPath, { force: true });
    await writeNodeKubeconfig(kubeconfig, bootstrap, store.currentPath);
    logger.info("Client certificate issued", { csr: csr.name, subject: stored.subject, notAfter: new Date(stored.notAfter).toISOString() });
    return stored;
  } finally {
    client.close();
  }
}
