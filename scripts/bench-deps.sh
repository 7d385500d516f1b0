#!/bin/sh
# Installs what `npm run bench` needs besides Node: Debian's Go toolchain (golang-go) to build
# the kubelet-method anchor, and Debian's packaged gRPC-Go sources (golang-google-grpc-dev) for
# the gRPC anchor, which is built in GOPATH mode because the Go module proxy is not used.
#
#   sh scripts/bench-deps.sh          install what is missing (as root), or say what to run
#   sh scripts/bench-deps.sh check    exit 0 when everything is there, 1 (and what is missing)
#
# Only the machine's own apt sources are used; nothing else is downloaded.
set -eu
grpc_src=/usr/share/gocode/src/google.golang.org/grpc/health/grpc_health_v1

missing=""
command -v go >/dev/null 2>&1 || missing="golang-go"
[ -d "$grpc_src" ] || missing="${missing:+$missing }golang-google-grpc-dev"

if [ -z "$missing" ]; then
  echo "bench-deps: ok ($(go version))"
  exit 0
fi
if [ "${1:-install}" = "check" ]; then
  echo "bench-deps: missing $missing; install with: sudo sh scripts/bench-deps.sh" >&2
  exit 1
fi
if [ "$(id -u)" != "0" ]; then
  echo "bench-deps: missing $missing; run as root: sudo sh scripts/bench-deps.sh (or: sudo apt-get install -y $missing)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "bench-deps: apt-get install -y $missing"
# shellcheck disable=SC2086 # one word per package
if ! apt-get install -y $missing; then
  apt-get update
  apt-get install -y $missing
fi
echo "bench-deps: ok ($(go version))"
