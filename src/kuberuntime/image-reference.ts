// Image names as the kubelet parses them before a pull (pkg/util/parsers ParseImageName over
// github.com/distribution/reference ParseNormalizedNamed and go-digest's checks): a name the API
// server took (it asks only for a non-empty one) may still be no image reference, and the kubelet
// then reports InvalidImageName with the parser's error.
import { goQuote } from "../api/field-errors.js";

const ALNUM = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])`;
const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}";
/** reference.ReferenceRegexp: name, optional tag, optional digest. */
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
/** reference.anchoredNameRegexp splits a name into its domain and path. */
const NAME_PARTS = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;
/** RepositoryNameTotalLengthMax. */
const MAX_PATH_LENGTH = 255;
/** go-digest's available algorithms and their hex lengths. */
const DIGEST_HEX_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
/**
 * The longest image name looked at (a reference's parts add up to well under it): a longer one
 * fails as too long without running the patterns, which Go runs in linear time and JavaScript
 * need not.
 */
const MAX_IMAGE_LENGTH = 1024;

/**
 * imageNameError is why `image` is no image reference, worded as the kubelet's
 * applyDefaultImageTag reports it after "Failed to apply default image tag …: " (ParseImageName:
 * `couldn't parse image name "…": <reason>`), or undefined when it is one.
 */
export function imageNameError(image: string): string | undefined {
  const reason = parseError(image);
  return reason === undefined ? undefined : `couldn't parse image name ${goQuote(image)}: ${reason}`;
}

/** parseError is ParseNormalizedNamed's error for `s`, undefined when it parses. */
function parseError(s: string): string | undefined {
  if (IDENTIFIER.test(s)) return `invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`;
  if (s.length > MAX_IMAGE_LENGTH) return `repository name must not be more than ${MAX_PATH_LENGTH} characters`;
  const { domain, remainder } = splitDockerDomain(s);
  const colon = remainder.indexOf(":");
  const remote = colon >= 0 ? remainder.slice(0, colon) : remainder;
  if (remote.toLowerCase() !== remote) return `invalid reference format: repository name (${remote}) must be lowercase`;
  // reference.Parse of the canonical name.
  const full = `${domain}/${remainder}`;
  const match = REFERENCE.exec(full);
  if (!match) return REFERENCE.test(full.toLowerCase()) ? "repository name must be lowercase" : "invalid reference format";
  const path = NAME_PARTS.exec(match[1]!)?.[2] ?? match[1]!;
  if (path.length > MAX_PATH_LENGTH) return `repository name must not be more than ${MAX_PATH_LENGTH} characters`;
  return match[3] === undefined ? undefined : digestError(match[3]);
}

/** splitDockerDomain: the first element is a domain when it is localhost, has "." or ":", or is not lower case; else Docker Hub's. */
function splitDockerDomain(name: string): { domain: string; remainder: string } {
  const slash = name.indexOf("/");
  if (slash < 0) return { domain: "docker.io", remainder: `library/${name}` };
  const first = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  let domain: string;
  let remainder: string;
  if (first === "localhost" || /[.:]/.test(first) || first.toLowerCase() !== first) [domain, remainder] = [first === "index.docker.io" ? "docker.io" : first, rest];
  else [domain, remainder] = ["docker.io", name];
  if (domain === "docker.io" && !remainder.includes("/")) remainder = `library/${remainder}`;
  return { domain, remainder };
}

/** digestError is go-digest Digest.Validate's error (the reference grammar already holds). */
function digestError(digest: string): string | undefined {
  const colon = digest.indexOf(":");
  const length = DIGEST_HEX_LENGTHS[digest.slice(0, colon)];
  if (length === undefined) return "unsupported digest algorithm";
  const encoded = digest.slice(colon + 1);
  if (encoded.length !== length) return "invalid checksum digest length";
  return /^[a-f0-9]+$/.test(encoded) ? undefined : "invalid checksum digest format";
}
