#!/bin/sh
# Builds the exec-probe spawner helper (native/spawner.c) into build/probelet-spawner.
# Optional: without a C compiler the agent falls back to child_process.spawn (and logs a
# warning once), so a missing `cc` is reported but never fails the build.
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cc_bin=${CC:-cc}
if [ "$(uname -s)" != "Linux" ]; then
  echo "build-native: skipped (the spawner helper is Linux-only)" >&2
  exit 0
fi
if ! command -v "$cc_bin" >/dev/null 2>&1; then
  echo "build-native: no C compiler ($cc_bin); exec probes will use child_process.spawn" >&2
  exit 0
fi
mkdir -p "$root/build"
"$cc_bin" -O2 -Wall -Wextra -std=gnu11 -o "$root/build/probelet-spawner.tmp" "$root/native/spawner.c"
mv -f "$root/build/probelet-spawner.tmp" "$root/build/probelet-spawner"
