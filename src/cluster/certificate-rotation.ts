// Rotation of the node's certificates, as client-go's certificate manager does it for the
// kubelet (util/certificate/certificate_manager.go run, rotateCerts, nextRotationDeadline;
// pkg/kubelet/certificate/kubelet.go for the serving one): the next rotation is due at a jittered
// 70–90% of the certificate's lifetime (notBefore + total × (0.7 + 0.2 × random)), at once when
// there is none yet; then a new key and a CSR for the template are sent with the node's current
// client certificate (generateName csr-), awaited up to 15 minutes, stored and handed over: the
// client certificate to the node's API clients (kube-controller-manager approves a node renewing
// its own), the serving certificate to the daemon endpoint (someone approves
// kubernetes.io/kubelet-serving CSRs: kube-controller-manager does not). A failed rotation is
// tried again after 2, 4, 8, 16 and 32 s (±10%), then every 32 s.
import type { Clock } from "../util/clock.js";
import { IN_BACKGROUND } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { RestClient } from "../client/rest-client.js";
import { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, requestCertificate, waitForCertificate } from "./certificate-requests.js";
import type { CertificateStore, StoredCertificate } from "./certificate-store.js";
import { makeCsr, type CsrSubject } from "./csr-der.js";
import { CLIENT_USAGES, ecKeyPem, newEcKey, nodeClientSubject } from "./tls-bootstrap.js";

/** CERTIFICATE_WAIT_TIMEOUT_MS is the certificate manager's certificateWaitTimeout. */
export const CERTIFICATE_WAIT_TIMEOUT_MS = 15 * 60_000;
/** RETRY_DELAYS_MS are the back-off steps of a failed rotation (Duration 2 s, Factor 2, 5 steps). */
const RETRY_DELAYS_MS = [2000, 4000, 8000, 16000, 32000];
/** RETRY_FOREVER_MS is the period after the back-off is spent (PollInfinite 32 s). */
const RETRY_FOREVER_MS = 32_000;

/** rotationDeadline is when a certificate is due for rotation: 70–90% of its lifetime, by `random` in [0, 1). */
export function rotationDeadline(cert: Pick<StoredCertificate, "notBefore" | "notAfter">, random: number): number {
  const total = cert.notAfter - cert.notBefore;
  return cert.notBefore + Math.floor((total * 7 + total * 2 * random) / 10);
}

/** CertificateTemplate is what a node's certificate is requested for. */
export interface CertificateTemplate {
  subject: CsrSubject;
  signerName: string;
  usages: readonly string[];
}

/** SERVING_USAGES are a serving certificate's usages for an ECDSA key (DefaultKubeletServingGetUsages). */
export const SERVING_USAGES: readonly string[] = ["digital signature", "server auth"];

/** clientTemplate is the node client certificate's template (the kubelet's client certificate manager). */
export function clientTemplate(nodeName: string): CertificateTemplate {
  return { subject: nodeClientSubject(nodeName), signerName: KUBELET_CLIENT_SIGNER, usages: CLIENT_USAGES };
}

/**
 * servingTemplate is the daemon endpoint's certificate template (kubelet.go newGetTemplateFn):
 * the node's subject with its host names and IP addresses as subject alternative names.
 */
export function servingTemplate(nodeName: string, dnsNames: readonly string[], ipAddresses: readonly string[]): CertificateTemplate {
  return { subject: { ...nodeClientSubject(nodeName), dnsNames: [...new Set(dnsNames)], ipAddresses: [...new Set(ipAddresses)] }, signerName: KUBELET_SERVING_SIGNER, usages: SERVING_USAGES };
}

/** CertificateRotationOptions configure a CertificateRotation. */
export interface CertificateRotationOptions {
  store: CertificateStore;
  template: CertificateTemplate;
  /** The node's API client: the CSR goes with its current client certificate. */
  client: Pick<RestClient, "request">;
  /** Called with each new certificate once it is stored. */
  rotated: (cert: StoredCertificate) => void;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/** CertificateRotation keeps one of the node's certificates fresh until stopped. */
export class CertificateRotation {
  constructor(private readonly options: CertificateRotationOptions) {}

  /** run waits for each deadline (none without a certificate) and rotates, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.options;
    const random = this.options.random ?? Math.random;
    while (!signal.aborted) {
      const current = await this.options.store.current();
      const deadline = current === undefined ? clock.now() : rotationDeadline(current, random());
      const wait = deadline - clock.now();
      if (wait > 0) {
        logger.info("Waiting for next certificate rotation", { deadline: new Date(deadline).toISOString() });
        await clock.sleep(wait, signal, IN_BACKGROUND);
        if (signal.aborted) return;
      }
      for (let attempt = 0; !signal.aborted; attempt++) {
        if (await this.rotate(signal)) break;
        const base = RETRY_DELAYS_MS[attempt] ?? RETRY_FOREVER_MS;
        const delay = attempt < RETRY_DELAYS_MS.length ? base * (1 + 0.1 * random()) : base;
        if (attempt === RETRY_DELAYS_MS.length - 1) logger.error("Reached backoff limit, still unable to rotate certs");
        await clock.sleep(delay, signal, IN_BACKGROUND);
      }
    }
  }

  /** rotate requests, awaits and stores one new certificate; false when any step failed (logged). */
  async rotate(signal?: AbortSignal): Promise<boolean> {
    const { clock, logger, client, template } = this.options;
    logger.info("Rotating certificates", { signerName: template.signerName });
    const key = newEcKey();
    try {
      const csr = await requestCertificate(client, { csrPem: makeCsr(key, template.subject), signerName: template.signerName, usages: template.usages });
      logger.info("Waiting for the certificate to be issued", { csr: csr.name, signerName: template.signerName });
      const cert = await waitForCertificate(client, csr, CERTIFICATE_WAIT_TIMEOUT_MS, clock, signal);
      const stored = await this.options.store.update(cert, ecKeyPem(key), clock.now());
      logger.info("Certificate rotated", { csr: csr.name, notAfter: new Date(stored.notAfter).toISOString() });
      this.options.rotated(stored);
      return true;
    } catch (err) {
      if (!signal?.aborted) logger.error("Failed to rotate the client certificate", { err: err instanceof Error ? err.message : String(err) });
      return false;
    }
  }
}
