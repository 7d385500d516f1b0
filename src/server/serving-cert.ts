// The serving certificate of an agent that listens off loopback. As the kubelet does when it is
// given no --tls-cert-file, the agent makes a self-signed certificate at first start (valid for a
// year, for its host name, "localhost" and its addresses) and keeps it in the state directory
// (pki/probelet.crt, pki/probelet.key, mode 0600 for the key); later starts reuse it. Clients pin
// it: the CLI trusts the state directory's certificate, others are given the file or check the
// SHA-256 fingerprint the agent prints.
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import { isIP } from "node:net";
import { systemClock, type Clock } from "../util/clock.js";
import { readSmallFile } from "../util/read-bounded-file.js";

/** ServingCert is a PEM certificate chain and its private key. */
export interface ServingCert {
  cert: Buffer;
  key: Buffer;
  /** The certificate's SHA-256 fingerprint, "AB:CD:…". */
  fingerprint256: string;
}

/** SERVING_CERT_FILE and SERVING_KEY_FILE are where a generated certificate lives in the state directory. */
export const SERVING_CERT_FILE = join("pki", "probelet.crt");
export const SERVING_KEY_FILE = join("pki", "probelet.key");

/** PEM files larger than this are not certificates or keys. */
const MAX_PEM_BYTES = 64 * 1024;
/** The kubelet's self-signed serving certificates are valid for one year. */
const VALIDITY_DAYS = 365;
const OPENSSL_TIMEOUT_MS = 30_000;

/** servingCertPath is the generated certificate of stateDir (what a local client pins). */
export function servingCertPath(stateDir: string): string {
  return join(stateDir, SERVING_CERT_FILE);
}

/**
 * loadServingCert reads a certificate and key from files (the --tls-cert-file and
 * --tls-private-key-file flags), checking that they parse; it rejects with an Error naming the file.
 */
export async function loadServingCert(certFile: string, keyFile: string): Promise<ServingCert> {
  const cert = Buffer.from(await readSmallFile(certFile, MAX_PEM_BYTES));
  const key = Buffer.from(await readSmallFile(keyFile, MAX_PEM_BYTES));
  let fingerprint256: string;
  try {
    fingerprint256 = new X509Certificate(cert).fingerprint256;
  } catch (err) {
    throw new Error(`${certFile} does not hold a PEM certificate: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { cert, key, fingerprint256 };
}

/**
 * loadOrCreateServingCert returns the state directory's self-signed certificate, generating it
 * with openssl(1) when there is none. extraHosts (the listen host) are added to the names the
 * certificate is valid for.
 */
export async function loadOrCreateServingCert(stateDir: string, extraHosts: readonly string[] = [], clock: Clock = systemClock): Promise<ServingCert> {
  const certFile = join(stateDir, SERVING_CERT_FILE);
  const keyFile = join(stateDir, SERVING_KEY_FILE);
  const existing = await loadServingCert(certFile, keyFile).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  });
  if (existing !== undefined) return existing;
  await mkdir(join(stateDir, "pki"), { recursive: true, mode: 0o700 });
  const tmpCert = `${certFile}.${process.pid}.tmp`;
  const tmpKey = `${keyFile}.${process.pid}.tmp`;
  try {
    await generateSelfSigned(tmpCert, tmpKey, `/CN=${hostname()}@${Math.floor(clock.now() / 1000)}`, subjectAltNames(extraHosts));
    await rename(tmpKey, keyFile);
    await rename(tmpCert, certFile);
  } finally {
    await rm(tmpCert, { force: true });
    await rm(tmpKey, { force: true });
  }
  return loadServingCert(certFile, keyFile);
}

/** subjectAltNames lists the host name, localhost, loopback and every interface address, plus extra hosts. */
function subjectAltNames(extraHosts: readonly string[]): string[] {
  const names = new Set<string>([`DNS:${hostname()}`, "DNS:localhost", "IP:127.0.0.1", "IP:::1"]);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (!a.address.includes("%")) names.add(`IP:${a.address}`);
  }
  for (const host of extraHosts) {
    if (host === "" || host === "0.0.0.0" || host === "::") continue;
    names.add(isIP(host) === 0 ? `DNS:${host}` : `IP:${host}`);
  }
  return [...names];
}

/** generateSelfSigned writes an ECDSA P-256 self-signed certificate (CN "host@unix-time", as the kubelet names it) and its key, 0600. */
function generateSelfSigned(certFile: string, keyFile: string, subject: string, altNames: readonly string[]): Promise<void> {
  const args = [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-sha256", "-nodes",
    "-days", String(VALIDITY_DAYS), "-subj", subject, "-addext", `subjectAltName=${altNames.join(",")}`,
    "-keyout", keyFile, "-out", certFile,
  ];
  return new Promise((resolve, reject) => {
    // umask-independent: openssl creates the key file, the umask 077 keeps it owner-only.
    execFile("sh", ["-c", 'umask 077 && exec openssl "$@"', "openssl", ...args], { timeout: OPENSSL_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (err === null) return resolve();
      const missing = (err as { code?: unknown }).code === 127;
      reject(new Error(missing ? "openssl is not installed: install it, or give --tls-cert-file and --tls-private-key-file" : `openssl could not make a serving certificate: ${String(stderr).trim().split("\n").pop() ?? err.message}`));
    });
  });
}
