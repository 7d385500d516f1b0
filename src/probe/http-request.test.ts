// Request construction tests (conformance cases 46–51, 54, 55; kubelet pkg/probe/http/request_test.go)
// plus the Go net/url behaviour the probe relies on (parsing, rendering, redirect resolution).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, HTTPGetAction } from "../api/types.js";
import {
  buildProbeHeaders,
  canonicalHeaderKey,
  formatURL,
  newHttpProbeRequest,
  parseUrlReference,
  renderUrl,
  resolveReference,
  splitHostPort,
  toHeaderMap,
  type UrlParts,
} from "./http-request.js";
import { PROBE_USER_AGENT } from "./user-agent.js";

const container: Container = { name: "c", ports: [{ name: "found", containerPort: 93 }] };

test("[case 46] TestFormatURL — scheme, host:port and path as Go renders them", () => {
  const rows: [string, string, number, string, string][] = [
    ["http", "localhost", 93, "", "http://localhost:93"],
    ["https", "localhost", 93, "/path", "https://localhost:93/path"],
    ["http", "localhost", 93, "?foo", "http://localhost:93?foo"],
    ["https", "localhost", 93, "/path?bar", "https://localhost:93/path?bar"],
  ];
  for (const [scheme, host, port, path, url] of rows) assert.equal(formatURL(scheme, host, port, path), url, path);
});

test("formatURL keeps Go's quirks: fragments, escaping, unparsable paths, absolute paths", () => {
  const rows: [string, string][] = [
    ["path", "http://h:1/path"],
    ["/a b", "http://h:1/a%20b"],
    ["/%zz", "http://h:1/%25zz"], // does not parse: used verbatim, then escaped
    ["/x#frag", "http://h:1/x#frag"],
    ["/p?", "http://h:1/p?"],
    ["/é", "http://h:1/%C3%A9"],
    ["http://elsewhere:9/x?y", "http://h:1/x?y"], // scheme and host are forced
    ["/a;b=c/@d:e", "http://h:1/a;b=c/@d:e"],
  ];
  for (const [path, url] of rows) assert.equal(formatURL("http", "h", 1, path), url, path);
  assert.equal(formatURL("http", "fe80::1%eth0", 80, "/"), "http://[fe80::1%25eth0]:80/");
});

test("[case 47][case 48][case 49] Test_v1HeaderToHTTPHeader — names canonicalised, values kept", () => {
  const notEmpty = toHeaderMap([
    { name: "Connection", value: "Keep-Alive" },
    { name: "Content-Type", value: "text/html" },
    { name: "Accept-Ranges", value: "bytes" },
  ]);
  assert.deepEqual([...notEmpty], [["Connection", ["Keep-Alive"]], ["Content-Type", ["text/html"]], ["Accept-Ranges", ["bytes"]]]);
  const insensitive = toHeaderMap([{ name: "HOST", value: "example.com" }, { name: "FOO-bAR", value: "value" }]);
  assert.deepEqual([...insensitive], [["Host", ["example.com"]], ["Foo-Bar", ["value"]]]);
  assert.deepEqual([...toHeaderMap([])], []);
  assert.deepEqual([...toHeaderMap(undefined)], []);
});

test("[case 50] TestHTTPHeaders — repeated names accumulate in order", () => {
  const map = toHeaderMap([
    { name: "X-Muffins-Or-Cupcakes", value: "Muffins" },
    { name: "X-Muffins-Or-Cupcakes", value: "Cupcakes, too" },
  ]);
  assert.deepEqual([...map], [["X-Muffins-Or-Cupcakes", ["Muffins", "Cupcakes, too"]]]);
});

test("canonicalHeaderKey matches Go's CanonicalMIMEHeaderKey", () => {
  const rows: [string, string][] = [
    ["user-agent", "User-Agent"], ["FOO-bAR", "Foo-Bar"], ["HOST", "Host"], ["x_bad", "X_bad"],
    ["a--b", "A--B"], ["X Bad", "X Bad"], ["", ""], ["WWW-authenticate", "Www-Authenticate"],
  ];
  for (const [name, key] of rows) assert.equal(canonicalHeaderKey(name), key, name);
});

test("buildProbeHeaders applies the User-Agent, Accept and Host rules", () => {
  const ua: [string, string] = ["User-Agent", PROBE_USER_AGENT];
  const rows: [string, { name: string; value: string }[], { host: string; headers: [string, string][] }][] = [
    ["defaults", [], { host: "", headers: [ua, ["Accept", "*/*"]] }],
    ["empty UA sends none", [{ name: "user-agent", value: "" }], { host: "", headers: [["Accept", "*/*"]] }],
    ["first UA value wins", [{ name: "User-Agent", value: "a" }, { name: "User-Agent", value: "b" }], { host: "", headers: [["User-Agent", "a"], ["Accept", "*/*"]] }],
    ["empty Accept removes it", [{ name: "accept", value: "" }, { name: "accept", value: "x" }], { host: "", headers: [ua] }],
    ["Accept values kept", [{ name: "Accept", value: "a" }, { name: "Accept", value: "" }], { host: "", headers: [ua, ["Accept", "a"], ["Accept", ""]] }],
    ["Host is the request Host", [{ name: "host", value: "h1" }, { name: "Host", value: "h2" }], { host: "h1", headers: [ua, ["Accept", "*/*"]] }],
    ["sorted, trimmed, body headers dropped", [
      { name: "Z-Last", value: " z " }, { name: "Content-Length", value: "5" }, { name: "a-first", value: "\ta" }, { name: "Transfer-Encoding", value: "chunked" },
    ], { host: "", headers: [ua, ["A-First", "a"], ["Accept", "*/*"], ["Z-Last", "z"]] }],
  ];
  for (const [name, input, expected] of rows) assert.deepEqual(buildProbeHeaders(input, PROBE_USER_AGENT), expected, name);
});

test("probes without user headers share one frozen header list per user agent", () => {
  const first = buildProbeHeaders(undefined, PROBE_USER_AGENT);
  assert.equal(buildProbeHeaders([], PROBE_USER_AGENT), first, "undefined and [] build the same lines once");
  assert.deepEqual(first, { host: "", headers: [["User-Agent", PROBE_USER_AGENT], ["Accept", "*/*"]] });
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.headers) && first.headers.every((field) => Object.isFrozen(field)));
  const other = buildProbeHeaders(undefined, "custom/1.0");
  assert.notEqual(other, first);
  assert.deepEqual(other.headers[0], ["User-Agent", "custom/1.0"]);
  const custom = buildProbeHeaders([{ name: "X-A", value: "1" }], PROBE_USER_AGENT);
  assert.equal(Object.isFrozen(custom.headers), false, "user headers get lines of their own");
});

test("[case 51] TestGetURLParts — URL built from host, resolved port and path", () => {
  const request = (action: HTTPGetAction) => newHttpProbeRequest(action, container, "127.0.0.1").url;
  assert.equal(request({ port: "found" }), "http://127.0.0.1:93");
  assert.equal(request({ port: 76 }), "http://127.0.0.1:76");
  assert.equal(request({ host: "hostname", port: 76, path: "path" }), "http://hostname:76/path");
  assert.throws(() => request({ port: -1 }), { message: "invalid port number: -1" });
  assert.throws(() => request({ port: "" }), { message: 'port "" not found' });
  assert.throws(() => request({ port: "-1" }), { message: 'port "-1" not found' });
  assert.throws(() => request({ port: "not-found" }), { message: 'port "not-found" not found' });
});

test("[case 54] scheme HTTPS becomes https; an empty scheme is http", () => {
  assert.equal(newHttpProbeRequest({ port: 8443, scheme: "HTTPS", path: "/" }, container, "10.0.0.5").url, "https://10.0.0.5:8443/");
  assert.equal(newHttpProbeRequest({ port: 80, scheme: "", path: "/" }, container, "10.0.0.5").url, "http://10.0.0.5:80/");
  assert.equal(newHttpProbeRequest({ port: 80, path: "/" }, container, "10.0.0.5").url, "http://10.0.0.5:80/");
});

test("[case 55] IPv6 pod IP fd00::1, port 8080, path /h", () => {
  const request = newHttpProbeRequest({ port: 8080, path: "/h", httpHeaders: [{ name: "HOST", value: "x.example" }] }, container, "fd00::1");
  assert.deepEqual(request, {
    url: "http://[fd00::1]:8080/h",
    host: "x.example",
    headers: [["User-Agent", PROBE_USER_AGENT], ["Accept", "*/*"]],
  });
});

test("parseUrlReference rejects what Go's url.Parse rejects", () => {
  const rows: [string, string][] = [
    ["%zz", 'invalid URL escape "%zz"'],
    ["/a%2", 'invalid URL escape "%2"'],
    ["http://x:abc/", 'invalid port ":abc" after host'],
    ["http://[::1/", "missing ']' in host"],
    ["a:b/c", "OPAQUE"], // a scheme without "//" or "/": an opaque reference, not an error
    ["1a:b", "first path segment in URL cannot contain colon"],
    [":x", "missing protocol scheme"],
    ["/a\nb", "net/url: invalid control character in URL"],
  ];
  for (const [raw, error] of rows) {
    const parsed = parseUrlReference(raw);
    if (error === "OPAQUE") assert.equal((parsed as UrlParts).opaque, "b/c", raw);
    else assert.equal(parsed, error, raw);
  }
});

test("resolveReference follows RFC 3986 §5.4 like Go's ResolveReference", () => {
  const base = parseUrlReference("http://a/b/c/d;p?q") as UrlParts;
  const rows: [string, string][] = [
    ["g:h", "g:h"], ["g", "http://a/b/c/g"], ["./g", "http://a/b/c/g"], ["g/", "http://a/b/c/g/"], ["/g", "http://a/g"],
    ["//g", "http://g"], ["?y", "http://a/b/c/d;p?y"], ["g?y", "http://a/b/c/g?y"], ["#s", "http://a/b/c/d;p?q#s"],
    ["g#s", "http://a/b/c/g#s"], ["", "http://a/b/c/d;p?q"], [".", "http://a/b/c/"], ["./", "http://a/b/c/"],
    ["..", "http://a/b/"], ["../", "http://a/b/"], ["../g", "http://a/b/g"], ["../..", "http://a/"], ["../../g", "http://a/g"],
    ["../../../g", "http://a/g"], ["/./g", "http://a/g"], ["/../g", "http://a/g"], ["g.", "http://a/b/c/g."], [".g", "http://a/b/c/.g"],
    ["./../g", "http://a/b/g"], ["./g/.", "http://a/b/c/g/"], ["g/./h", "http://a/b/c/g/h"], ["g/../h", "http://a/b/c/h"],
    ["g;x=1/./y", "http://a/b/c/g;x=1/y"], ["g;x=1/../y", "http://a/b/c/y"], ["HTTPS://B:8/x", "https://B:8/x"],
  ];
  for (const [ref, url] of rows) assert.equal(renderUrl(resolveReference(base, parseUrlReference(ref) as UrlParts)), url, ref);
});

test("splitHostPort returns Go's Hostname and Port", () => {
  const rows: [string, [string, string]][] = [
    ["127.0.0.1:80", ["127.0.0.1", "80"]], ["[fd00::1]:8080", ["fd00::1", "8080"]], ["[::1]", ["::1", ""]],
    ["h", ["h", ""]], ["h:", ["h", ""]], ["", ["", ""]],
  ];
  for (const [authority, parts] of rows) assert.deepEqual(splitHostPort(authority), parts, authority);
});
