#!/bin/sh
# Builds the native parts into build/: the probe I/O engine addon (native/probe-engine.c, a
# Node-API module built by node-gyp from binding.gyp), the exec-probe spawner
# (native/spawner.c) and the per-container supervisor (native/supervisor.c) that lets
# process-runtime containers outlive the agent. All are optional: without the engine tcpSocket
# and httpGet probes run on Node sockets, without a C compiler exec probes fall back to
# child_process.spawn and containers to pipes read by the agent (each logged once at start),
# so a missing toolchain is reported but never fails the build.
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cc_bin=${CC:-cc}
if [ "$(uname -s)" != "Linux" ]; then
  echo "build-native: skipped (the native helpers are Linux-only)" >&2
  exit 0
fi
if ! command -v "$cc_bin" >/dev/null 2>&1; then
  echo "build-native: no C compiler ($cc_bin); probes will use Node sockets and child_process.spawn, and process containers will not outlive the agent" >&2
  exit 0
fi
mkdir -p "$root/build"

# The engine first: node-gyp owns build/Makefile and build/Release (configure + build, not
# rebuild, which would delete the helpers below). npm puts its bundled node-gyp on PATH for
# scripts; otherwise use the one next to this node's npm.
node_gyp=$(command -v node-gyp 2>/dev/null || true)
if [ -z "$node_gyp" ]; then
  bundled="$(dirname "$(dirname "$(command -v node)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$bundled" ] && node_gyp="node $bundled"
fi
# Build against this node's own headers when npm does not name them (npm_config_nodedir), so
# node-gyp never tries to download them.
node_prefix=$(dirname "$(dirname "$(command -v node)")")
if [ -n "$node_gyp" ] && [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/node_api.h" ]; then
  node_gyp="$node_gyp --nodedir=$node_prefix"
fi
if [ -z "$node_gyp" ]; then
  echo "build-native: no node-gyp; tcpSocket and httpGet probes will use Node sockets (the JS engine)" >&2
elif ! (cd "$root" && $node_gyp configure build --loglevel=error >"$root/build/node-gyp.log" 2>&1); then
  echo "build-native: the probe engine addon did not build (see build/node-gyp.log); tcpSocket and httpGet probes will use Node sockets (the JS engine)" >&2
fi

for helper in spawner supervisor; do
  "$cc_bin" -O2 -Wall -Wextra -std=gnu11 -o "$root/build/probelet-$helper.tmp" "$root/native/$helper.c"
  mv -f "$root/build/probelet-$helper.tmp" "$root/build/probelet-$helper"
done
