// Image names parsed as the kubelet parses them before a pull (distribution/reference
// ParseNormalizedNamed, go-digest): what parses, and each error's text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { imageNameError } from "./image-reference.js";

test("image references that parse: short names, registries with ports, IPs, tags, digests, an upper-case registry host", () => {
  for (const image of ["busybox", "busybox:1.36", "localhost/probelet/busybox:1", "localhost:5000/app", "127.0.0.1:9/nothing:1", "registry.k8s.io/e2e-test-images/agnhost:2.53", `app@sha256:${"a".repeat(64)}`, `app:1@sha512:${"b".repeat(128)}`, "EXAMPLE.com/a:1", "[::1]:5000/a:b", "a__b.c-d---e/f"]) {
    assert.equal(imageNameError(image), undefined, image);
  }
});

test("names that do not parse get distribution/reference's error after couldn't parse image name", () => {
  const cases: [string, string][] = [
    ["Busybox", "invalid reference format: repository name (library/Busybox) must be lowercase"],
    ["localhost:5000/App:1", "invalid reference format: repository name (App) must be lowercase"],
    ["a".repeat(64), `invalid repository name (${"a".repeat(64)}), cannot specify 64-byte hexadecimal strings`],
    ["bad image", "invalid reference format"],
    ["x:", "invalid reference format"],
    [`x:${"t".repeat(129)}`, "invalid reference format"],
    ["x@sha256:abc", "invalid reference format"],
    [`x@md5:${"a".repeat(32)}`, "unsupported digest algorithm"],
    [`x@sha256:${"a".repeat(65)}`, "invalid checksum digest length"],
    [`x@sha256:${"A".repeat(64)}`, "invalid checksum digest format"],
    [`a/${"b".repeat(260)}`, "repository name must not be more than 255 characters"],
  ];
  for (const [image, reason] of cases) assert.equal(imageNameError(image), `couldn't parse image name "${image}": ${reason}`, image);
});

test("a name past 1024 characters is refused without running the patterns", () => {
  const started = performance.now();
  assert.match(imageNameError(`${"a-".repeat(5_000)}!`) ?? "", /repository name must not be more than 255 characters$/);
  assert.ok(performance.now() - started < 50);
});
