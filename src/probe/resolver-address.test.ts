// The DNS server named in lookup errors, read from resolv.conf as Go's resolver reads it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { goDialErrorText } from "./go-errors.js";
import { firstNameserver, GO_DEFAULT_NAMESERVER, readResolvConf, ResolverAddressReader } from "./resolver-address.js";

test("firstNameserver names the first nameserver that is an IP address, with port 53", () => {
  const conf = ["# generated", "; also a comment", "search cluster.local", "nameserver resolver.example", "nameserver\t10.96.0.10 ", "nameserver 10.96.0.11"].join("\n");
  assert.equal(firstNameserver(conf), "10.96.0.10:53");
  assert.equal(firstNameserver("nameserver fd00::a\r\n"), "[fd00::a]:53");
  assert.equal(firstNameserver("#nameserver 1.1.1.1\nnameserver 9.9.9.9"), "9.9.9.9:53");
});

test("without a usable nameserver or without resolv.conf, Go's default 127.0.0.1:53 is named", () => {
  assert.equal(GO_DEFAULT_NAMESERVER, "127.0.0.1:53");
  assert.equal(firstNameserver(undefined), GO_DEFAULT_NAMESERVER);
  assert.equal(firstNameserver(""), GO_DEFAULT_NAMESERVER);
  assert.equal(firstNameserver("nameserver\nnameserver dns.example\noptions ndots:5"), GO_DEFAULT_NAMESERVER);
});

test("ResolverAddressReader reads the file it is given, and again only after 5 s", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "probelet-resolv-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "resolv.conf");
  writeFileSync(path, "nameserver 10.0.0.53\n");
  let now = 0;
  const reader = new ResolverAddressReader(path, () => now);
  assert.equal(reader.address(), "10.0.0.53:53");
  writeFileSync(path, "nameserver 10.0.0.54\n");
  now = 4999;
  assert.equal(reader.address(), "10.0.0.53:53");
  now = 5000;
  assert.equal(reader.address(), "10.0.0.54:53");
  rmSync(path);
  now = 10_000;
  assert.equal(reader.address(), GO_DEFAULT_NAMESERVER);
  assert.equal(readResolvConf(dir), undefined, "a directory is not read");
});

test("a failed lookup is worded as Go's dial error naming the resolver", () => {
  const resolver = { address: () => "10.96.0.10:53" };
  const notFound = { code: "ENOTFOUND", syscall: "getaddrinfo", hostname: "web.invalid" };
  assert.equal(goDialErrorText(notFound, "web.invalid:8080", "tcp", resolver), "dial tcp: lookup web.invalid on 10.96.0.10:53: no such host");
  const again = { code: "EAI_AGAIN", syscall: "getaddrinfo", hostname: "web.invalid" };
  assert.equal(goDialErrorText(again, "web.invalid:8080", "tcp", resolver), "dial tcp: lookup web.invalid on 10.96.0.10:53: server misbehaving");
  const nameless = { code: "ENOTFOUND", syscall: "getaddrinfo" };
  assert.equal(goDialErrorText(nameless, "api.invalid:443", "tcp", resolver), "dial tcp: lookup api.invalid on 10.96.0.10:53: no such host");
});
