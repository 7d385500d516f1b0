// A PKCS#10 certificate signing request in DER/PEM, as Go's x509.CreateCertificateRequest writes
// the kubelet's (certutil.MakeCSR): subject Organization then CommonName, the public key of an
// ECDSA P-256 key, the DNS names and IP addresses of a serving certificate in an
// extensionRequest attribute, signed with ecdsa-with-SHA256. Node's crypto signs; only the
// ASN.1 around it is written here.
import { createPublicKey, sign, type KeyObject } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";

/** CsrSubject is what a node's CSR names. */
export interface CsrSubject {
  commonName: string;
  organizations: readonly string[];
  /** Subject alternative names of a serving certificate. */
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...c: Buffer[]): Buffer => tlv(0x30, ...c);
const set = (...c: Buffer[]): Buffer => tlv(0x31, ...c);

function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const bytes = [parts[0]! * 40 + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** text encodes a string as Go's asn1 does: PrintableString when every character allows it, else UTF8String. */
function text(value: string): Buffer {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/.test(value);
  return tlv(printable ? 0x13 : 0x0c, Buffer.from(value, "utf8"));
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split(".").map(Number));
  if (!isIPv6(ip)) throw new Error(`not an IP address: ${ip}`);
  const [head = "", tail = ""] = ip.split("::");
  const groups = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = ip.includes("::") ? groups(tail) : [];
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

const OID_ORGANIZATION = "2.5.4.10";
const OID_COMMON_NAME = "2.5.4.3";
const OID_EXTENSION_REQUEST = "1.2.840.113549.1.9.14";
const OID_SUBJECT_ALT_NAME = "2.5.29.17";
const OID_ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";

/** makeCsr returns the PEM CSR of `subject` for the ECDSA key `privateKey` (certutil.MakeCSR). */
export function makeCsr(privateKey: KeyObject, subject: CsrSubject): string {
  const rdn = (type: string, value: string): Buffer => set(sequence(oid(type), text(value)));
  const name = sequence(...subject.organizations.map((o) => rdn(OID_ORGANIZATION, o)), rdn(OID_COMMON_NAME, subject.commonName));
  const spki = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  const sans = [...(subject.dnsNames ?? []).map((d) => tlv(0x82, Buffer.from(d, "ascii"))), ...(subject.ipAddresses ?? []).map((ip) => tlv(0x87, ipBytes(ip)))];
  const attributes = sans.length === 0 ? tlv(0xa0) : tlv(0xa0, sequence(oid(OID_EXTENSION_REQUEST), set(sequence(sequence(oid(OID_SUBJECT_ALT_NAME), tlv(0x04, sequence(...sans)))))));
  const info = sequence(tlv(0x02, Buffer.from([0])), name, spki, attributes);
  const signature = sign("sha256", info, privateKey);
  const der = sequence(info, sequence(oid(OID_ECDSA_WITH_SHA256)), tlv(0x03, Buffer.from([0]), signature));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE REQUEST-----\n${lines.join("\n")}\n-----END CERTIFICATE REQUEST-----\n`;
}
