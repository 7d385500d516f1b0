#!/usr/bin/env bash
# Kubernetes v1.37 commands for probelet's tests, built from the Go module proxy with the
# machine's Go (GOTOOLCHAIN=local) through the wrapper modules in tools/k8s and tools/etcd, and
# kept in a cache directory this script owns (docs/cluster-test-env.md). No Kubernetes source is
# committed; the module cache holds it while the build runs.
#
#   scripts/k8s-tools.sh build [SET]   build what SET needs, once (a stamp per binary makes a
#                                      second build a no-op):
#                                        control-plane  etcd kube-apiserver kube-controller-manager
#                                                       kube-scheduler kubectl (the default)
#                                        node           + kubelet (cgo)
#                                        e2e            + e2e.test ginkgo agnhost pause
#                                        all            all of them
#   scripts/k8s-tools.sh path NAME     print a built binary's path (exit 1 with a hint if absent)
#   scripts/k8s-tools.sh version       print the pinned Kubernetes and etcd versions
#   scripts/k8s-tools.sh status        list the built binaries and their stamps
#
# Options (environment):
#   PROBELET_CACHE_DIR=DIR       the cache (default /var/cache/probelet); this script owns
#                                DIR/k8s-<version>/
#   PROBELET_K8S_KEEP_GOCACHE=1  keep the Go build cache after a build (default: dropped once the
#                                binaries are in place; it reaches 10 GB)
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
TOOLS="$ROOT/tools/k8s"
ETCD_TOOLS="$ROOT/tools/etcd"

# The versions come from the wrapper modules' go.mod files, the one place they are pinned.
# required_version FILE MODULE: the version a go.mod requires (one-line or block form).
required_version() {
  awk -v m="$2" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m && $2 ~ /^v/ && $3 != "=>") { print $2; exit }' "$1"
}
K8S_VERSION=$(required_version "$TOOLS/go.mod" k8s.io/kubernetes)
ETCD_VERSION=$(required_version "$ETCD_TOOLS/go.mod" go.etcd.io/etcd/server/v3)
[ -n "$K8S_VERSION" ] || { echo "k8s-tools.sh: no k8s.io/kubernetes version in $TOOLS/go.mod" >&2; exit 1; }

CACHE_DIR=${PROBELET_CACHE_DIR:-/var/cache/probelet}
CACHE_DIR=${CACHE_DIR%/}
K8S_CACHE="$CACHE_DIR/k8s-${K8S_VERSION#v}"
BIN_DIR="$K8S_CACHE/bin"

log() { printf 'k8s-tools.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
# The Go build cache lives in the cache directory (dropped after a build unless kept), so a
# build never fills the user's own cache with 10 GB.
export GOCACHE="$K8S_CACHE/gocache"

set_members() {
  case "$1" in
    control-plane) echo "etcd kube-apiserver kube-controller-manager kube-scheduler kubectl" ;;
    node) echo "$(set_members control-plane) kubelet" ;;
    e2e) echo "$(set_members control-plane) e2e.test ginkgo agnhost pause" ;;
    all) echo "$(set_members control-plane) kubelet e2e.test ginkgo agnhost pause" ;;
    *) die "unknown set '$1' (control-plane, node, e2e or all)" ;;
  esac
}

# ldflags: the version stamps upstream's hack/lib/version.sh sets, so /version and the
# User-Agent say v1.37.x as a release build does.
ldflags() {
  local minor rest
  rest=${K8S_VERSION#v1.}
  minor=${rest%%.*}
  local date flags="-s -w" key val
  date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    for kv in "gitVersion=$K8S_VERSION" "gitMajor=1" "gitMinor=$minor" "gitTreeState=clean" "buildDate=$date"; do
      key=${kv%%=*}
      val=${kv#*=}
      flags+=" -X $pkg.$key=$val"
    done
  done
  printf '%s' "$flags"
}

stamp_of() { printf '%s %s go=%s\n' "$1" "$2" "$(go env GOVERSION)"; }

is_built() {
  local name=$1 want
  want=$(version_of "$name")
  [ -x "$BIN_DIR/$name" ] && [ -s "$BIN_DIR/$name.stamp" ] && [ "$(cut -d' ' -f2 "$BIN_DIR/$name.stamp")" = "$want" ]
}

version_of() {
  case "$1" in
    etcd) echo "$ETCD_VERSION" ;;
    *) echo "$K8S_VERSION" ;;
  esac
}

# build_one NAME: builds one binary into BIN_DIR (a temporary name, then an atomic rename).
build_one() {
  local name=$1 tmp="$BIN_DIR/.$1.tmp" t0
  t0=$(date +%s)
  rm -f "$tmp"
  case "$name" in
    etcd)
      (cd "$ETCD_TOOLS" && nice -n 19 go build -trimpath -ldflags "-s -w" -o "$tmp" go.etcd.io/etcd/server/v3) ;;
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl)
      (cd "$TOOLS" && nice -n 19 go build -trimpath -tags selinux,notest -ldflags "$(ldflags)" -o "$tmp" "k8s.io/kubernetes/cmd/$name") ;;
    kubelet)
      # The kubelet is built with cgo, as upstream builds it (hack/lib/golang.sh).
      (cd "$TOOLS" && CGO_ENABLED=1 nice -n 19 go build -trimpath -tags selinux,notest -ldflags "$(ldflags)" -o "$tmp" k8s.io/kubernetes/cmd/kubelet) ;;
    e2e.test)
      (cd "$TOOLS" && nice -n 19 go test -c -trimpath -tags selinux -ldflags "$(ldflags)" -o "$tmp" k8s.io/kubernetes/test/e2e) ;;
    ginkgo)
      (cd "$TOOLS" && nice -n 19 go build -trimpath -ldflags "-s -w" -o "$tmp" github.com/onsi/ginkgo/v2/ginkgo) ;;
    agnhost)
      (cd "$TOOLS" && nice -n 19 go build -trimpath -ldflags "-s -w" -o "$tmp" k8s.io/kubernetes/test/images/agnhost) ;;
    pause)
      # The pause container's program, from the same module (build/pause/linux/pause.c), static.
      local dir
      dir=$(cd "$TOOLS" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)
      [ -f "$dir/build/pause/linux/pause.c" ] || (cd "$TOOLS" && go mod download k8s.io/kubernetes)
      dir=$(cd "$TOOLS" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)
      cc -Os -Wall -Werror -static -DVERSION="${K8S_VERSION}-probelet" -o "$tmp" "$dir/build/pause/linux/pause.c" ;;
    *) die "unknown binary '$name'" ;;
  esac
  mv -f "$tmp" "$BIN_DIR/$name"
  stamp_of "$name" "$(version_of "$name")" >"$BIN_DIR/$name.stamp"
  log "built $name $(version_of "$name") in $(($(date +%s) - t0)) s"
}

need_writable_cache() {
  if mkdir -p "$BIN_DIR" 2>/dev/null && [ -w "$BIN_DIR" ]; then return 0; fi
  die "cannot write $BIN_DIR: run 'sudo $0 build' once, or set PROBELET_CACHE_DIR to a directory you own"
}

cmd_build() {
  local set=${1:-control-plane} name todo=() t0
  for name in $(set_members "$set"); do is_built "$name" || todo+=("$name"); done
  if [ ${#todo[@]} -eq 0 ]; then
    log "already built ($set): $BIN_DIR"
    return 0
  fi
  command -v go >/dev/null 2>&1 || die "go is not installed (Go 1.26 is needed to build ${todo[*]})"
  need_writable_cache
  exec 9>"$K8S_CACHE/build.lock"
  flock -n 9 || die "another build is running (lock $K8S_CACHE/build.lock)"
  t0=$(date +%s)
  log "building ${todo[*]} ($K8S_VERSION, etcd $ETCD_VERSION) into $BIN_DIR"
  for name in "${todo[@]}"; do build_one "$name"; done
  if [ "${PROBELET_K8S_KEEP_GOCACHE:-}" != 1 ]; then
    go clean -cache >/dev/null 2>&1 || true
    rm -rf "$GOCACHE"
  fi
  log "built ${todo[*]} in $(($(date +%s) - t0)) s"
}

cmd_path() {
  local name=${1:?usage: k8s-tools.sh path NAME}
  if is_built "$name"; then
    printf '%s\n' "$BIN_DIR/$name"
  else
    log "$name is not built: run 'scripts/k8s-tools.sh build all' (or the set that has it)"
    return 1
  fi
}

cmd_status() {
  local name
  for name in $(set_members all); do
    if is_built "$name"; then printf '%-24s %s\n' "$name" "$(cat "$BIN_DIR/$name.stamp")"; else printf '%-24s not built\n' "$name"; fi
  done
}

case "${1:-}" in
  build) cmd_build "${2:-control-plane}" ;;
  path) cmd_path "${2:-}" ;;
  version) printf 'kubernetes %s\netcd %s\n' "$K8S_VERSION" "$ETCD_VERSION" ;;
  status) cmd_status ;;
  *) die "usage: $0 build [control-plane|node|e2e|all] | path NAME | version | status" ;;
esac
