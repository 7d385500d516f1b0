// Tests of request preparation: the exact request bytes (Go Request.write order), the Host
// rules, the per-request cache, and the errors of requests that cannot be sent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildProbeHeaders, parseUrlReference, type HttpProbeRequest, type UrlParts } from "./http-request.js";
import { buildTarget, hostHeader, prepareHttpRequest, serializeRequest } from "./http-target.js";
import { PROBE_USER_AGENT } from "./user-agent.js";

const UA = `User-Agent: ${PROBE_USER_AGENT}\r\n`;

function request(url: string, headers: { name: string; value: string }[] = []): HttpProbeRequest {
  const built = buildProbeHeaders(headers, PROBE_USER_AGENT);
  return { url, host: built.host, headers: built.headers };
}

function parts(url: string): UrlParts {
  return parseUrlReference(url) as UrlParts;
}

test("the first request's bytes are exactly what Go writes", () => {
  const rows: [string, { name: string; value: string }[], string][] = [
    ["http://10.0.0.5:8080/healthz", [], `GET /healthz HTTP/1.1\r\nHost: 10.0.0.5:8080\r\n${UA}Accept: */*\r\nConnection: close\r\n\r\n`],
    ["http://localhost:93", [], `GET / HTTP/1.1\r\nHost: localhost:93\r\n${UA}Accept: */*\r\nConnection: close\r\n\r\n`],
    ["http://localhost:93?foo", [], `GET /?foo HTTP/1.1\r\nHost: localhost:93\r\n${UA}Accept: */*\r\nConnection: close\r\n\r\n`],
    ["http://h:1/p?", [], `GET /p? HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nConnection: close\r\n\r\n`],
    ["http://h:1/x#frag", [], `GET /x HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nConnection: close\r\n\r\n`],
    ["http://[fd00::1]:8080/h", [{ name: "host", value: "x.example" }], `GET /h HTTP/1.1\r\nHost: x.example\r\n${UA}Accept: */*\r\nConnection: close\r\n\r\n`],
    ["http://h:1/", [{ name: "connection", value: "Close" }, { name: "x-b", value: "2" }, { name: "X-a", value: "1" }],
      `GET / HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nConnection: Close\r\nX-A: 1\r\nX-B: 2\r\n\r\n`],
    ["http://h:1/", [{ name: "Connection", value: "keep-alive" }], `GET / HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n`],
    ["http://h:1/", [{ name: "X-Name", value: "héllo" }], `GET / HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nX-Name: héllo\r\nConnection: close\r\n\r\n`],
  ];
  for (const [url, headers, wire] of rows) {
    const prepared = prepareHttpRequest(request(url, headers));
    assert.equal(prepared.failure, undefined, url);
    assert.equal(prepared.first?.head.toString("utf8"), wire, url);
  }
});

test("prepared requests are cached per request object and shared by its probes", () => {
  const a = request("http://127.0.0.1:8080/healthz");
  const first = prepareHttpRequest(a);
  assert.equal(prepareHttpRequest(a), first);
  assert.equal(prepareHttpRequest(a).first?.head, first.first?.head);
  const b = request("http://127.0.0.1:8080/healthz");
  assert.notEqual(prepareHttpRequest(b), first);
  assert.deepEqual(prepareHttpRequest(b).first?.head, first.first?.head);
  assert.deepEqual(
    { authority: first.authority, hostname: first.hostname, userReferer: first.userReferer },
    { authority: "127.0.0.1:8080", hostname: "127.0.0.1", userReferer: false },
  );
});

test("requests that cannot be made fail like Go's client", () => {
  const failure = (url: string, headers: [string, string][] = []) => prepareHttpRequest({ url, host: "", headers }).failure?.output;
  assert.equal(failure("http://h/%zz"), 'parse "http://h/%zz": invalid URL escape "%zz"');
  assert.equal(failure("http://h/", [["Bad Name", "x"]]), 'Get "http://h/": net/http: invalid header field name "Bad Name"');
  assert.equal(failure("http://h/", [["X", "a\nb"]]), 'Get "http://h/": net/http: invalid header field value for "X"');
  assert.equal(failure("http://h/", [["X", "tab\tok"]]), undefined);
  const unsendable: [string, string][] = [
    ["ftp://h/x", 'unsupported protocol scheme "ftp"'],
    ["http:///x", "http: no Host in request URL"],
    ["http:opaque", "http: no Host in request URL"],
    ["http://h:70000/", "dial tcp: address 70000: invalid port"],
  ];
  for (const [url, error] of unsendable) assert.equal(prepareHttpRequest({ url, host: "", headers: [] }).first?.error, error, url);
});

test("targets: dial address, default ports, SNI name", () => {
  const rows: [string, { dialAddr: string; connect: { host: string; port: number }; servername: string; tls: boolean }][] = [
    ["http://10.0.0.5/", { dialAddr: "10.0.0.5:80", connect: { host: "10.0.0.5", port: 80 }, servername: "", tls: false }],
    ["https://localhost/", { dialAddr: "localhost:443", connect: { host: "localhost", port: 443 }, servername: "localhost", tls: true }],
    ["http://[::1]:8080/", { dialAddr: "[::1]:8080", connect: { host: "::1", port: 8080 }, servername: "", tls: false }],
    ["http://:81/", { dialAddr: ":81", connect: { host: "127.0.0.1", port: 81 }, servername: "", tls: false }],
  ];
  for (const [url, expected] of rows) {
    const t = buildTarget(url, parts(url), "", [], "", false);
    assert.deepEqual({ dialAddr: t.dialAddr, connect: { host: t.connectHost, port: t.connectPort }, servername: t.servername, tls: t.tls }, expected, url);
  }
});

test("redirect requests: Referer in sorted place, credentials stripped off-domain", () => {
  const headers = buildProbeHeaders(
    [{ name: "Authorization", value: "Bearer t" }, { name: "Cookie", value: "c=1" }, { name: "X-Z", value: "z" }],
    PROBE_USER_AGENT,
  ).headers;
  const sent = (strip: boolean) => serializeRequest(parts("http://h:1/next"), "h:1", headers, "http://h:1/first", strip).toString();
  assert.equal(sent(false), `GET /next HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nAuthorization: Bearer t\r\nCookie: c=1\r\nReferer: http://h:1/first\r\nX-Z: z\r\nConnection: close\r\n\r\n`);
  assert.equal(sent(true), `GET /next HTTP/1.1\r\nHost: h:1\r\n${UA}Accept: */*\r\nReferer: http://h:1/first\r\nX-Z: z\r\nConnection: close\r\n\r\n`);
  const last = serializeRequest(parts("http://h:1/"), "h:1", [["Accept", "*/*"]], "http://h:1/a", false).toString();
  assert.equal(last, "GET / HTTP/1.1\r\nHost: h:1\r\nAccept: */*\r\nReferer: http://h:1/a\r\nConnection: close\r\n\r\n");
});

test("hostHeader: zones removed, IDN in Punycode, invalid hosts sent empty", () => {
  const rows: [string, string][] = [
    ["10.0.0.5:8080", "10.0.0.5:8080"],
    ["[fe80::1%eth0]:80", "[fe80::1]:80"],
    ["[fd00::1]:8080", "[fd00::1]:8080"],
    ["bücher.example:8080", "xn--bcher-kva.example:8080"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["bad host", ""],
    ["a/b", ""],
    ["", ""],
  ];
  for (const [host, sent] of rows) assert.equal(hostHeader(host), sent, host);
});
