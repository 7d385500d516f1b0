// CertificateSigningRequests as the kubelet sends and awaits them (client-go util/certificate/csr
// RequestCertificate, WaitForCertificate; kubelet certificate/bootstrap digestedName): a
// certificates.k8s.io/v1 CSR for a signer, then its status read until the certificate is issued,
// or it is denied, fails, is deleted or the time is up. The kubelet watches the CSR; probelet
// reads it once a second, which sees the same transitions.
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import type { Clock } from "../util/clock.js";
import { isStatus, type RestClient } from "../client/rest-client.js";

/** KUBELET_CLIENT_SIGNER signs the node's client certificate (auto-approved by kube-controller-manager's csrapproving). */
export const KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";
/** KUBELET_SERVING_SIGNER signs the daemon endpoint's serving certificate (approved by a person or an approver the cluster adds). */
export const KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving";
/** CSR_POLL_MS is how often a pending CSR is read again. */
const CSR_POLL_MS = 1000;

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

interface CsrObject {
  metadata: { name?: string; uid?: string };
  spec?: { signerName?: string; usages?: string[] };
  status?: { certificate?: string; conditions?: { type: string; reason?: string; message?: string }[] };
}

/**
 * digestedName names a node's client CSR after its key, subject and usages, so a node that
 * restarts while waiting finds its own CSR again (bootstrap.go digestedName):
 * "node-csr-" + base64url(SHA-512/256 of each part base64url-encoded and followed by "|").
 */
export function digestedName(privateKey: KeyObject, commonName: string, organizations: readonly string[], usages: readonly string[]): string {
  const hash = createHash("sha512-256");
  const write = (data: Buffer): void => {
    hash.update(data.toString("base64url"));
    hash.update("|");
  };
  write(createPublicKey(privateKey).export({ type: "spki", format: "der" }));
  write(Buffer.from(commonName, "utf8"));
  for (const o of organizations) write(Buffer.from(o, "utf8"));
  for (const u of usages) write(Buffer.from(u, "utf8"));
  return `node-csr-${hash.digest("base64url")}`;
}

/** CsrRequest is what requestCertificate sends. */
export interface CsrRequest {
  csrPem: string;
  /** A fixed name (reused when it exists), or undefined for generateName "csr-". */
  name?: string;
  signerName: string;
  usages: readonly string[];
}

/** requestCertificate creates the CSR; an existing one of the same name and signer is reused (RequestCertificate). */
export async function requestCertificate(client: Pick<RestClient, "request">, req: CsrRequest): Promise<{ name: string; uid: string }> {
  const body = {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: req.name !== undefined ? { name: req.name } : { generateName: "csr-" },
    spec: { request: Buffer.from(req.csrPem, "utf8").toString("base64"), signerName: req.signerName, usages: [...req.usages] },
  };
  try {
    const created = await client.request<CsrObject>("POST", CSRS, { body });
    return { name: created.metadata.name ?? "", uid: created.metadata.uid ?? "" };
  } catch (err) {
    if (!isStatus(err, 409) || req.name === undefined) throw new Error(`cannot create certificate signing request: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const existing = await client.request<CsrObject>("GET", `${CSRS}/${encodeURIComponent(req.name)}`);
  if (existing.spec?.signerName !== req.signerName || [...(existing.spec?.usages ?? [])].sort().join() !== [...req.usages].sort().join()) {
    throw new Error(`retrieved csr is not compatible: csr ${req.name} has another signer or usages`);
  }
  return { name: req.name, uid: existing.metadata.uid ?? "" };
}

/**
 * waitForCertificate reads the CSR until it carries a certificate (PEM) and is approved; a
 * denial, a failure, a deletion, another UID or the timeout rejects with client-go's words.
 */
export async function waitForCertificate(client: Pick<RestClient, "request">, csr: { name: string; uid: string }, timeoutMs: number, clock: Clock, signal?: AbortSignal): Promise<Buffer> {
  const until = clock.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted) throw new Error(`waiting for csr "${csr.name}" was stopped`);
    let current: CsrObject | undefined;
    try {
      current = await client.request<CsrObject>("GET", `${CSRS}/${encodeURIComponent(csr.name)}`, signal ? { signal } : {});
    } catch (err) {
      if (isStatus(err, 404)) throw new Error(`csr "${csr.name}" was deleted`, { cause: err });
      // Other errors (the API server restarting): keep waiting until the deadline.
    }
    if (current !== undefined) {
      if (csr.uid !== "" && current.metadata.uid !== csr.uid) throw new Error(`csr "${csr.name}" changed UIDs`);
      const conditions = current.status?.conditions ?? [];
      const ended = conditions.find((c) => c.type === "Denied" || c.type === "Failed");
      if (ended !== undefined) {
        throw new Error(`certificate signing request is ${ended.type === "Denied" ? "denied" : "failed"}, reason: ${ended.reason ?? ""}, message: ${ended.message ?? ""}`);
      }
      const certificate = current.status?.certificate ?? "";
      if (conditions.some((c) => c.type === "Approved") && certificate !== "") return Buffer.from(certificate, "base64");
    }
    if (clock.now() >= until) throw new Error(`timed out waiting for the certificate of csr "${csr.name}" to be issued`);
    await clock.sleep(Math.min(CSR_POLL_MS, until - clock.now()), signal);
  }
}
