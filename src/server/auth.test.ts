import assert from "node:assert/strict";
import { test } from "node:test";
import { BearerAuthenticator, isLoopbackHost, parseListenAddress } from "./auth.js";

test("parseListenAddress splits host and port, unbracketing IPv6", () => {
  const cases: { listen: string; host: string; port: number }[] = [
    { listen: "127.0.0.1:10255", host: "127.0.0.1", port: 10255 },
    { listen: "[::1]:0", host: "::1", port: 0 },
    { listen: "localhost:8080", host: "localhost", port: 8080 },
    { listen: ":10255", host: "", port: 10255 },
    { listen: "[fe80::1%eth0]:65535", host: "fe80::1%eth0", port: 65535 },
  ];
  for (const c of cases) assert.deepEqual(parseListenAddress(c.listen), { host: c.host, port: c.port }, c.listen);
});

test("parseListenAddress rejects malformed addresses with a clear error", () => {
  const cases: { listen: string; message: RegExp }[] = [
    { listen: "127.0.0.1", message: /missing port in address/ },
    { listen: "::1:80", message: /too many colons/ },
    { listen: "[::1]80", message: /missing port after '\]'/ },
    { listen: "[::1:80", message: /missing '\]'/ },
    { listen: "[1.2.3.4]:80", message: /is not an IPv6 address/ },
    { listen: "127.0.0.1:65536", message: /port "65536" is not a number in 0\.\.65535/ },
    { listen: "127.0.0.1:http", message: /port "http" is not a number/ },
    { listen: "127.0.0.1:", message: /port "" is not a number/ },
  ];
  for (const c of cases) assert.throws(() => parseListenAddress(c.listen), c.message, c.listen);
});

test("isLoopbackHost accepts only loopback hosts", () => {
  const cases: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["", false],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.1", false],
    ["128.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    ["fe80::1", false],
    ["fe80::1%lo", false],
    ["example.com", false],
    ["localhost.example.com", false],
  ];
  for (const [host, expected] of cases) assert.equal(isLoopbackHost(host), expected, host);
});

test("BearerAuthenticator accepts exactly 'Bearer <token>'", () => {
  const auth = new BearerAuthenticator("s3cret");
  const cases: [string | undefined, boolean][] = [
    ["Bearer s3cret", true],
    ["bearer s3cret", true],
    ["BEARER  s3cret ", true],
    [undefined, false],
    ["", false],
    ["Bearer", false],
    ["Bearer ", false],
    ["Bearer s3cre", false],
    ["Bearer s3cret2", false],
    ["Bearer s3cret extra", false],
    ["Basic s3cret", false],
    ["s3cret", false],
  ];
  for (const [header, expected] of cases) assert.equal(auth.authenticate(header), expected, String(header));
});

test("BearerAuthenticator refuses an empty token or one with whitespace", () => {
  for (const token of ["", " ", "two words", "tab\there"]) {
    assert.throws(() => new BearerAuthenticator(token), /must not be empty or contain whitespace/, JSON.stringify(token));
  }
});
