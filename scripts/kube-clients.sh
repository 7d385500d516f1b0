#!/usr/bin/env bash
# Real kubectl clients for probelet's tests (see docs/cluster-test-env.md and
# ../shared/spec/kube-api-clients.md): kubectl 1.20.2 from Debian 12's `kubernetes-client`
# and kubectl 1.32.x from Debian 13's `kubectl`, fetched with `apt-get download` and unpacked
# with `dpkg -x` into a cache directory (nothing is installed; the machine's apt state is
# untouched: a private apt configuration with its own sources list, lists, cache and status).
#
#   scripts/kube-clients.sh install       fetch and unpack both (once; later runs see the stamp)
#   scripts/kube-clients.sh path 1.20     print the path of kubectl 1.20 (or 1.32)
#   scripts/kube-clients.sh status        the installed versions
#
# Options (environment):
#   PROBELET_CACHE_DIR=DIR      the cache (default /var/cache/probelet); this script owns
#                               DIR/kube-clients/ (binaries kubectl-1.20, kubectl-1.32)
#   PROBELET_DEBIAN_MIRROR=URL  the Debian mirror (default: read from the machine's apt)
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/private-apt.sh
source "$SCRIPT_DIR/private-apt.sh"

CACHE_DIR=${PROBELET_CACHE_DIR:-/var/cache/probelet}
CACHE_DIR=${CACHE_DIR%/}
CLIENTS_DIR="$CACHE_DIR/kube-clients"
STAMP="$CLIENTS_DIR/stamp"
# minor version -> Debian package/suite that ships it as usr/bin/kubectl.
declare -A PACKAGES=([1.20]=kubernetes-client/bookworm [1.32]=kubectl/trixie)
MINORS="1.20 1.32"

log() { printf 'kube-clients.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

installed() {
  [ -s "$STAMP" ] || return 1
  local minor
  for minor in $MINORS; do [ -x "$CLIENTS_DIR/kubectl-$minor" ] || return 1; done
}

cmd_install() {
  if installed; then
    log "already installed: $(tr '\n' ' ' <"$STAMP")($CLIENTS_DIR)"
    return 0
  fi
  if ! { mkdir -p "$CLIENTS_DIR" 2>/dev/null && [ -w "$CLIENTS_DIR" ]; }; then
    die "cannot write $CLIENTS_DIR: run 'sudo $0 install' once, or set PROBELET_CACHE_DIR to a directory you own"
  fi
  exec 9>"$CLIENTS_DIR/install.lock"
  flock -w 300 9 || die "another install holds $CLIENTS_DIR/install.lock"
  if installed; then return 0; fi
  local apt="$CLIENTS_DIR/apt" minor debs root deb stamp=""
  private_apt_init "$apt" "deb bookworm" "deb trixie"
  log "updating the private package lists ($apt)"
  private_apt "$apt" apt-get update -qq >&2
  for minor in $MINORS; do
    debs="$CLIENTS_DIR/debs-$minor"
    root="$CLIENTS_DIR/root-$minor"
    rm -rf "$debs" "$root"
    mkdir -p "$debs" "$root"
    log "fetching ${PACKAGES[$minor]}"
    (cd "$debs" && private_apt "$apt" apt-get download -qq "${PACKAGES[$minor]}" >&2)
    for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root"; done
    [ -x "$root/usr/bin/kubectl" ] || die "${PACKAGES[$minor]} has no usr/bin/kubectl"
    install -m 0755 "$root/usr/bin/kubectl" "$CLIENTS_DIR/kubectl-$minor"
    stamp+="kubectl-$minor ${PACKAGES[$minor]%/*} $(dpkg-deb -f "$debs"/*.deb Version)"$'\n'
    rm -rf "$debs" "$root"
  done
  printf '%s' "$stamp" >"$STAMP"
  # The package lists (about 100 MB) are fetched again only when the stamp goes.
  rm -rf "$apt"
  log "installed: $(tr '\n' ' ' <"$STAMP")($CLIENTS_DIR)"
}

cmd_path() {
  local minor=${1:-}
  case " $MINORS " in
    *" $minor "*) ;;
    *) die "unknown kubectl version '${minor}': expected one of: $MINORS" ;;
  esac
  installed || die "kubectl $minor is not installed in $CLIENTS_DIR (run: $0 install)"
  printf '%s\n' "$CLIENTS_DIR/kubectl-$minor"
}

cmd_status() {
  installed || die "not installed in $CLIENTS_DIR (run: $0 install)"
  cat "$STAMP"
}

case "${1:-}" in
  install) cmd_install ;;
  path) cmd_path "${2:-}" ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 install | path 1.20|1.32 | status" >&2
    exit 2
    ;;
esac
