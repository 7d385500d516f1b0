// The node's certificate files as the kubelet keeps them (client-go util/certificate
// certificate_store.go fileStore): each issued certificate with its key in one PEM file,
// `<pair>-<YYYY-MM-DD-HH-MM-SS>.pem` (0600), and `<pair>-current.pem`, a symlink to the newest,
// swapped in one rename. The directory must be its owner's alone (not writable by group or
// others), as the files hold the node's private key.
import { X509Certificate } from "node:crypto";
import { lstat, rename, rm, stat, symlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import { readSmallFile } from "../util/read-bounded-file.js";

/** MAX_PEM_BYTES bounds a certificate file. */
const MAX_PEM_BYTES = 64 * 1024;

/** StoredCertificate is a certificate with its key, as the TLS client uses them. */
export interface StoredCertificate {
  /** The certificate chain (PEM). */
  cert: Buffer;
  /** The private key (PEM). */
  key: Buffer;
  notBefore: number;
  notAfter: number;
  subject: string;
}

/** splitPem separates a PEM file's certificates from its private key. */
export function splitPem(pem: string): { cert: Buffer; key: Buffer } {
  const blocks = pem.match(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----\n?/g) ?? [];
  const cert = blocks.filter((b) => b.startsWith("-----BEGIN CERTIFICATE-----")).join("");
  const key = blocks.filter((b) => / PRIVATE KEY-----/.test(b.split("\n")[0] ?? "")).join("");
  return { cert: Buffer.from(cert), key: Buffer.from(key) };
}

/** parseStored reads the validity of a PEM certificate and key; undefined when either is missing or unreadable. */
export function parseStored(pem: string): StoredCertificate | undefined {
  const { cert, key } = splitPem(pem);
  if (cert.length === 0 || key.length === 0) return undefined;
  try {
    const leaf = new X509Certificate(cert);
    return { cert, key, notBefore: Date.parse(leaf.validFrom), notAfter: Date.parse(leaf.validTo), subject: leaf.subject };
  } catch {
    return undefined;
  }
}

/** checkPrivateDirectory refuses a directory that someone other than its owner could write, or that another user owns. */
export async function checkPrivateDirectory(dir: string): Promise<void> {
  const info = await stat(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid && info.uid !== 0) throw new Error(`${dir}: owned by uid ${info.uid}, not by this user (${uid}): the node's key must not go there`);
  if ((info.mode & 0o022) !== 0) throw new Error(`${dir}: writable by group or others (mode ${(info.mode & 0o777).toString(8)}): the node's key must not go there`);
}

/** timestamp formats a time as the store names files (Go "2006-01-02-15-04-05", local time). */
function timestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}`;
}

/** CertificateStore keeps one pair's certificates in a directory. */
export class CertificateStore {
  constructor(
    private readonly dir: string,
    private readonly pair: string,
  ) {}

  /** currentPath is the symlink a kubeconfig names. */
  get currentPath(): string {
    return join(this.dir, `${this.pair}-current.pem`);
  }

  /** current reads the newest certificate and key, or undefined when there is none that parses. */
  async current(): Promise<StoredCertificate | undefined> {
    try {
      return parseStored(await readSmallFile(this.currentPath, MAX_PEM_BYTES));
    } catch {
      return undefined;
    }
  }

  /** update writes a new certificate and key (0600) and points the current symlink at it. */
  async update(cert: Buffer, key: Buffer, now: number): Promise<StoredCertificate> {
    await checkPrivateDirectory(this.dir);
    const stored = parseStored(`${cert.toString("utf8").trimEnd()}\n${key.toString("utf8")}`);
    if (stored === undefined) throw new Error("invalid certificate data: the issued certificate or the key does not parse");
    const file = join(this.dir, `${this.pair}-${timestamp(now)}.pem`);
    await writeFileAtomic(file, `${stored.cert.toString("utf8")}${stored.key.toString("utf8")}`);
    const link = `${this.currentPath}.${process.pid}.tmp`;
    await rm(link, { force: true });
    await symlink(basename(file), link);
    const existing = await lstat(this.currentPath).catch(() => undefined);
    if (existing !== undefined && !existing.isSymbolicLink()) {
      await rm(link, { force: true });
      throw new Error(`${this.currentPath} exists and is not a symlink: not replacing it`);
    }
    await rename(link, this.currentPath);
    return stored;
  }
}
