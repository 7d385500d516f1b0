# shellcheck shell=bash
# A private apt configuration for fetching Debian packages into a cache directory without
# touching the machine's own apt state (sources, lists, caches, dpkg status). Sourced by
# scripts/kube-clients.sh and scripts/control-plane.sh.
#
#   debian_mirror                        prints the Debian mirror URL the machine's apt uses
#   private_apt_init DIR LINE...         writes DIR/apt.conf with its own sources list (one
#                                        sources.list LINE each, "deb"/"deb-src" + suite, e.g.
#                                        "deb bookworm"), lists, cache and an empty dpkg status
#   private_apt DIR apt-get ARGS...      runs an apt command under that configuration
#
# The mirror is never written in this project's files: it is read from
# /etc/apt/sources.list.d/*.sources (URIs:) or /etc/apt/sources.list (deb lines), or taken from
# PROBELET_DEBIAN_MIRROR when set.

# debian_mirror prints the first non-security Debian archive URI the machine's apt uses.
debian_mirror() {
  if [ -n "${PROBELET_DEBIAN_MIRROR:-}" ]; then
    printf '%s\n' "${PROBELET_DEBIAN_MIRROR%/}"
    return 0
  fi
  local uri
  uri=$(
    {
      # deb822 stanzas: the URIs of stanzas with Types: deb whose suites are not -security.
      for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk '
          function flush() { if (types ~ /(^| )deb( |$)/ && suites !~ /-security/ && uris != "") print uris; types = ""; suites = ""; uris = "" }
          /^[ \t]*$/ { flush(); next }
          /^[ \t]*#/ { next }
          tolower($1) == "types:" { types = substr($0, index($0, ":") + 1) }
          tolower($1) == "suites:" { suites = substr($0, index($0, ":") + 1) }
          tolower($1) == "uris:" { uris = $2 }
          END { flush() }
        ' "$f"
      done
      # One-line format: deb [options] URI SUITE COMPONENTS...
      for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if ($(i+1) !~ /-security/) print $i }' "$f"
      done
    } | grep -E '^(https?|file)://' | grep -v -- '-security' | head -n 1
  ) || true
  [ -n "$uri" ] || return 1
  printf '%s\n' "${uri%/}"
}

# private_apt_init DIR LINE...: (re)writes the private configuration; LINE is "deb SUITE" or
# "deb-src SUITE" (component main). Fails with a clear message when no mirror is configured.
private_apt_init() {
  local dir=$1 mirror keyring="" line
  shift
  mirror=$(debian_mirror) || {
    printf 'no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list (set PROBELET_DEBIAN_MIRROR)\n' >&2
    return 1
  }
  mkdir -p "$dir"/{lists/partial,cache/archives/partial,parts,preferences.d,sources.list.d}
  : >"$dir/status"
  [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] && keyring=' [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
  : >"$dir/sources.list"
  for line in "$@"; do
    printf '%s%s %s %s main\n' "${line%% *}" "$keyring" "$mirror" "${line#* }" >>"$dir/sources.list"
  done
  # APT_CONFIG is read before /etc/apt/apt.conf.d, so Dir::Etc::Parts here keeps the machine's
  # fragments (post-invoke hooks, caches) out of it.
  cat >"$dir/apt.conf" <<CONF
Dir::Etc::Main "$dir/apt.conf.main";
Dir::Etc::Parts "$dir/parts";
Dir::Etc::SourceList "$dir/sources.list";
Dir::Etc::SourceParts "$dir/sources.list.d";
Dir::Etc::Preferences "$dir/preferences";
Dir::Etc::PreferencesParts "$dir/preferences.d";
Dir::State "$dir";
Dir::State::Lists "$dir/lists";
Dir::State::Status "$dir/status";
Dir::Cache "$dir/cache";
Dir::Cache::Archives "$dir/cache/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Sandbox::User "$(id -un)";
Acquire::Check-Valid-Until "false";
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
CONF
  : >"$dir/apt.conf.main"
}

# private_apt DIR COMMAND ARGS...: runs an apt command (apt-get, apt-cache) with DIR's config.
private_apt() {
  local dir=$1
  shift
  APT_CONFIG="$dir/apt.conf" "$@"
}
