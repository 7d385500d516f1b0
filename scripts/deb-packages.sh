# Debian package helpers shared by containerd.sh and e2e-images.sh (sourced, never run; they use
# the caller's log and die):
#   deb_installed PKG      true when dpkg has PKG installed
#   deb_install PKG...     installs the packages named (none: "packages present"); root only;
#                          the package lists are refreshed only when apt cannot find them with
#                          the current ones

deb_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = 'install ok installed' ]
}

deb_install() {
  if [ "$#" -eq 0 ]; then log "packages present"; return 0; fi
  [ "$(id -u)" = 0 ] || die "missing packages ($*) and not root: install them first"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends "$@" >&2; then
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "$@" >&2
  fi
}
