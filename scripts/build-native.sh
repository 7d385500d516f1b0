#!/bin/sh
# Builds the native helpers into build/: the exec-probe spawner (native/spawner.c) and the
# per-container supervisor (native/supervisor.c) that lets process-runtime containers outlive
# the agent. Both are optional: without a C compiler exec probes fall back to
# child_process.spawn and containers to pipes read by the agent (each logged once), so a
# missing `cc` is reported but never fails the build.
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cc_bin=${CC:-cc}
if [ "$(uname -s)" != "Linux" ]; then
  echo "build-native: skipped (the native helpers are Linux-only)" >&2
  exit 0
fi
if ! command -v "$cc_bin" >/dev/null 2>&1; then
  echo "build-native: no C compiler ($cc_bin); exec probes will use child_process.spawn and process containers will not outlive the agent" >&2
  exit 0
fi
mkdir -p "$root/build"
for helper in spawner supervisor; do
  "$cc_bin" -O2 -Wall -Wextra -std=gnu11 -o "$root/build/probelet-$helper.tmp" "$root/native/$helper.c"
  mv -f "$root/build/probelet-$helper.tmp" "$root/build/probelet-$helper"
done
