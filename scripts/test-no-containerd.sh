#!/usr/bin/env bash
# Proves the README's test command stays green on a machine without containerd: runs every test
# file that needs a CRI runtime with the private containerd's environment removed, as the current
# user and, when root, again as the unprivileged user "nobody" from a world-readable copy of the
# build. Every case must pass or report itself skipped with its reason; one failure fails the script.
# Run after `npm run build` (it uses dist/).
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
# The files that reach for a CRI runtime: "-cri" or "cri-" in the name, or under runtime/cri/.
mapfile -t files < <(find dist -name '*.test.js' \( -name '*-cri*' -o -name 'cri-*' -o -path '*/runtime/cri/*' \) | sort)
[ ${#files[@]} -gt 0 ] || { echo "test-no-containerd: no CRI test files under dist/ (run npm run build first)" >&2; exit 1; }

clean_env=(env -u PROBELET_CRI_SOCKET -u PROBELET_CRI_DIR -u PROBELET_CRI_CGROUP_PARENT -u PROBELET_CRI_CNI -u PROBELET_CRI_IMAGES -u PROBELET_CRI_SUBNET)

run_suite() {
  local who=$1; shift
  local out
  out=$(mktemp)
  local rc=0
  "$@" node --test --test-reporter=tap --test-concurrency=2 "${files[@]}" >"$out" 2>&1 || rc=$?
  local pass fail skip
  pass=$(sed -n 's/^# pass //p' "$out" | tail -n 1)
  fail=$(sed -n 's/^# fail //p' "$out" | tail -n 1)
  skip=$(sed -n 's/^# skipped //p' "$out" | tail -n 1)
  echo "test-no-containerd ($who): ${pass:-?} passed, ${fail:-?} failed, ${skip:-?} skipped"
  if [ "$rc" -ne 0 ] || [ "${fail:-1}" != 0 ]; then
    grep -E '^not ok|^# Subtest' "$out" | grep -B1 '^not ok' | head -n 20 >&2 || true
    rm -f "$out"
    return 1
  fi
  rm -f "$out"
}

run_suite "$(id -un)" "${clean_env[@]}" HOME="${HOME:-/tmp}"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  copy=$(mktemp -d /tmp/probelet-nocri.XXXXXX)
  trap 'rm -rf "$copy"' EXIT
  cp -a dist node_modules package.json proto "$copy"/
  [ -d build ] && cp -a build "$copy"/
  chmod -R a+rX "$copy"
  mkdir "$copy/home" && chown 65534:65534 "$copy/home"
  cd "$copy"
  run_suite nobody "${clean_env[@]}" HOME="$copy/home" setpriv --reuid=65534 --regid=65534 --clear-groups
fi
