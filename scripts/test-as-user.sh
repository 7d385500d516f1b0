#!/usr/bin/env bash
# Runs the README's test command (`npm ci && npm test`) as an unprivileged user, the way a
# developer without root would on this machine: a fresh copy of the checkout owned by that user,
# its own HOME and npm cache, and none of the root-started daemons' environment (the private
# containerd and control plane are root's: the suites that need them must report themselves
# skipped). Run as root, after (or before) the root run on the same machine; exits non-zero on
# any failure.
#
#   scripts/test-as-user.sh [UID]     default 65534 ("nobody")
#
# The copy holds the files git tracks plus untracked ones it does not ignore, as they are in the
# working tree, so uncommitted work is tested too; it is removed afterwards.
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
uid=${1:-65534}
[ "$(id -u)" = 0 ] || { echo "test-as-user.sh: run as root (it switches to uid $uid with setpriv)" >&2; exit 1; }
command -v setpriv >/dev/null 2>&1 || { echo "test-as-user.sh: setpriv (util-linux) is missing" >&2; exit 1; }
case "$uid" in '' | *[!0-9]* | 0) echo "test-as-user.sh: UID must be a number other than 0" >&2; exit 1 ;; esac

work=$(mktemp -d /tmp/probelet-as-user.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"
mkdir "$work/src" "$work/home"
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$work/src"
chown -R "$uid:$uid" "$work/src" "$work/home"

# Keep the caller's environment but the root daemons' handles and root's own HOME and npm state.
mapfile -t drop < <(env | sed -n 's/^\(PROBELET_CRI_[A-Z_]*\|PROBELET_CP_[A-Za-z0-9_]*\|npm_[A-Za-z_]*\|NPM_[A-Z_]*\)=.*/\1/p')
unset_args=(-u XDG_RUNTIME_DIR -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_STATE_HOME -u XDG_DATA_HOME)
for name in "${drop[@]}"; do unset_args+=(-u "$name"); done

echo "test-as-user.sh: npm ci && npm test as uid $uid in $work/src" >&2
cd "$work/src"
name=$(getent passwd "$uid" | cut -d: -f1) || name="uid$uid"
env "${unset_args[@]}" HOME="$work/home" USER="$name" LOGNAME="$name" npm_config_cache="$work/home/.npm" \
  setpriv --reuid="$uid" --regid="$uid" --clear-groups \
  sh -c 'npm ci --no-audit --no-fund && npm test'
