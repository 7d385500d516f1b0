#!/usr/bin/env bash
# A private containerd for probelet's CRI runtime tests (see docs/cri.md and
# ../shared/runtime/cri-containerd.md). Everything lives under one run directory,
# $PROBELET_CRI_DIR (default /tmp/probelet-cri): config, root, state, socket, runc root, logs,
# CNI state. No registry is used: the test images are built here as an OCI layout tarball and
# imported with ctr into the k8s.io namespace, where the CRI plugin looks for them.
#
#   scripts/containerd.sh install   apt-get install containerd, runc, busybox-static (root only)
#   scripts/containerd.sh start     write the config, start containerd, build + import the images;
#                                   prints export lines: eval "$(scripts/containerd.sh start)"
#   scripts/containerd.sh env       print the export lines again
#   scripts/containerd.sh images    (re)build and import the images into a running instance
#   scripts/containerd.sh stop      remove every container and sandbox, stop containerd, kill
#                                   leftover shims and container processes, unmount, rmdir cgroups
#   scripts/containerd.sh clean     stop, then delete the run directory
#
# Options (environment):
#   PROBELET_CRI_DIR=DIR         the run directory
#   PROBELET_CRI_CNI=1           also configure a pod network (bridge + host-local; installs
#                                containernetworking-plugins); default 0: hostNetwork pods only
#   PROBELET_CRI_SUBNET=CIDR     pod subnet when PROBELET_CRI_CNI=1 (default 10.244.77.0/24)
#   PROBELET_CRI_NODE_IMAGE=0    skip the node-based gRPC health image (default 1 when node exists)
#   PROBELET_CRI_SANDBOX_IMAGE=NAME  the pod sandbox image containerd runs (default the probelet
#                                pause image below; scripts/e2e-conformance.sh names the real pause
#                                of scripts/e2e-images.sh)
#
# Every step is idempotent; stop is safe after a half-finished start and when run twice.
set -euo pipefail

RUN_DIR=${PROBELET_CRI_DIR:-/tmp/probelet-cri}
RUN_DIR=${RUN_DIR%/}
SOCK="$RUN_DIR/containerd.sock"
CNI=${PROBELET_CRI_CNI:-0}
SUBNET=${PROBELET_CRI_SUBNET:-10.244.77.0/24}
NODE_IMAGE=${PROBELET_CRI_NODE_IMAGE:-1}
# A per-run-dir suffix keeps cgroups and the bridge of two instances apart (gotcha 11).
TAG=$(printf '%s' "$RUN_DIR" | sha256sum | cut -c1-8)
CGROUP_PARENT="/probelet-$TAG"
BRIDGE="plcri$TAG"
BUSYBOX_IMAGE=localhost/probelet/busybox:1
PAUSE_IMAGE=localhost/probelet/pause:1
GRPC_IMAGE=localhost/probelet/grpc-health:1
SANDBOX_IMAGE=${PROBELET_CRI_SANDBOX_IMAGE:-$PAUSE_IMAGE}
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=deb-packages.sh
. "$SCRIPT_DIR/deb-packages.sh"
# shellcheck source=scripts/cgroup-dirs.sh
. "$SCRIPT_DIR/cgroup-dirs.sh"

log() { printf 'containerd.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
ctr_() { ctr -a "$SOCK" -n k8s.io "$@"; }

# ---- install ----------------------------------------------------------------------------

cmd_install() {
  local need=()
  command -v containerd >/dev/null 2>&1 || need+=(containerd)
  command -v runc >/dev/null 2>&1 || need+=(runc)
  deb_installed busybox-static || need+=(busybox-static)
  if [ "$CNI" = 1 ] && [ ! -x /usr/lib/cni/bridge ]; then need+=(containernetworking-plugins); fi
  command -v ip >/dev/null 2>&1 || need+=(iproute2)
  deb_install ${need[@]+"${need[@]}"}
}

# ---- start ------------------------------------------------------------------------------

containerd_pid() {
  local pid
  pid=$(cat "$RUN_DIR/containerd.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = containerd ] || return 1
  case "$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" in *"$RUN_DIR/config.toml"*) ;; *) return 1 ;; esac
  echo "$pid"
}

write_config() {
  mkdir -p "$RUN_DIR"/{root,state,runc,opt,cni/net.d,cni/ipam}
  cat >"$RUN_DIR/config.toml" <<EOF
version = 2
root = "$RUN_DIR/root"
state = "$RUN_DIR/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "$SOCK"

[ttrpc]
  address = "$SOCK.ttrpc"

[debug]
  level = "info"

[plugins]
  [plugins."io.containerd.internal.v1.opt"]
    path = "$RUN_DIR/opt"
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "$SANDBOX_IMAGE"
    systemd_cgroup = false
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
    enable_selinux = false
    disable_apparmor = true
    # Required where the sandbox lacks CAP_SYS_RESOURCE: without it every RunPodSandbox fails.
    restrict_oom_score_adj = true
    max_container_log_line_size = 16384
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          BinaryName = "$(command -v runc)"
          Root = "$RUN_DIR/runc"
          SystemdCgroup = false
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/usr/lib/cni"
      conf_dir = "$RUN_DIR/cni/net.d"
      max_conf_num = 1
EOF
  rm -f "$RUN_DIR/cni/net.d/"*.conflist
  if [ "$CNI" = 1 ]; then
    [ -x /usr/lib/cni/bridge ] || die "PROBELET_CRI_CNI=1 needs containernetworking-plugins (run install)"
    # The bridge plugin turns on ip_forward for a gateway; remember the value to restore it.
    [ -f "$RUN_DIR/ip_forward.orig" ] || cat /proc/sys/net/ipv4/ip_forward >"$RUN_DIR/ip_forward.orig"
    echo "$BRIDGE" >"$RUN_DIR/bridge"
    cat >"$RUN_DIR/cni/net.d/10-probelet.conflist" <<EOF
{ "cniVersion": "1.0.0", "name": "probelet-$TAG",
  "plugins": [ { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "isDefaultGateway": false,
      "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "$SUBNET" }]], "routes": [],
                "dataDir": "$RUN_DIR/cni/ipam" } } ] }
EOF
  fi
}

cmd_start() {
  [ "$(id -u)" = 0 ] || die "containerd needs root"
  command -v containerd >/dev/null 2>&1 || die "containerd is not installed (run: $0 install)"
  command -v runc >/dev/null 2>&1 || die "runc is not installed (run: $0 install)"
  [ -x /bin/busybox ] || die "busybox-static is not installed (run: $0 install)"
  local pid
  if pid=$(containerd_pid); then
    log "containerd already running (pid $pid)"
  else
    write_config
    # Detached from our stdout: `eval "$(containerd.sh start)"` must not wait for containerd.
    containerd --config "$RUN_DIR/config.toml" </dev/null >>"$RUN_DIR/containerd.log" 2>&1 &
    pid=$!
    echo "$pid" >"$RUN_DIR/containerd.pid"
    local i
    for i in $(seq 1 200); do
      ctr -a "$SOCK" version >/dev/null 2>&1 && break
      kill -0 "$pid" 2>/dev/null || { tail -n 20 "$RUN_DIR/containerd.log" >&2; die "containerd exited during start"; }
      [ "$i" = 200 ] && { tail -n 20 "$RUN_DIR/containerd.log" >&2; die "containerd did not answer on $SOCK within 20 s"; }
      sleep 0.1
    done
    log "containerd running (pid $pid, socket $SOCK)"
  fi
  cmd_images_if_needed
  cmd_env
}

cmd_env() {
  local cni=0
  [ -f "$RUN_DIR/cni/net.d/10-probelet.conflist" ] && cni=1
  echo "export PROBELET_CRI_DIR='$RUN_DIR'"
  echo "export PROBELET_CRI_SOCKET='$SOCK'"
  echo "export PROBELET_CRI_CGROUP_PARENT='$CGROUP_PARENT'"
  echo "export PROBELET_CRI_CNI='$cni'"
  [ "$cni" = 1 ] && echo "export PROBELET_CRI_SUBNET='$SUBNET'"
  if [ -f "$RUN_DIR/images.list" ]; then
    echo "export PROBELET_CRI_IMAGES='$(tr '\n' ' ' <"$RUN_DIR/images.list" | sed 's/ $//')'"
  fi
}

# ---- images -----------------------------------------------------------------------------

images_stamp() {
  {
    sha256sum "$SCRIPT_DIR/containerd.sh" "$SCRIPT_DIR/oci-image.sh" | cut -c1-64
    sha256sum "$(readlink -f /bin/busybox)" | cut -c1-64
    if [ "$NODE_IMAGE" = 1 ] && command -v node >/dev/null 2>&1; then node --version; fi
  } | sha256sum | cut -c1-64
}

cmd_images_if_needed() {
  local stamp name present ok=1
  stamp=$(images_stamp)
  if [ "$(cat "$RUN_DIR/images.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$RUN_DIR/images.list" ]; then
    present=$'\n'"$(ctr_ images ls -q 2>/dev/null || true)"$'\n'
    for name in $(cat "$RUN_DIR/images.list"); do
      case "$present" in *$'\n'"$name"$'\n'*) ;; *) ok=0 ;; esac
    done
    if [ "$ok" = 1 ]; then log "images up to date"; return 0; fi
  fi
  cmd_images
}

cmd_images() {
  containerd_pid >/dev/null || die "containerd is not running (run: $0 start)"
  local t0 t1
  t0=$(date +%s%N)
  build_images "$RUN_DIR/build" >"$RUN_DIR/images.list.new"
  t1=$(date +%s%N)
  ctr_ images import "$RUN_DIR/build/images.tar" >&2
  mv "$RUN_DIR/images.list.new" "$RUN_DIR/images.list"
  images_stamp >"$RUN_DIR/images.stamp"
  log "images built in $(( (t1 - t0) / 1000000 )) ms, imported in $(( ($(date +%s%N) - t1) / 1000000 )) ms: $(tr '\n' ' ' <"$RUN_DIR/images.list")"
  rm -rf "$RUN_DIR/build"
}

# ---- image building (an OCI image layout tarball; no registry: scripts/oci-image.sh) -----

# shellcheck source=scripts/oci-image.sh
. "$SCRIPT_DIR/oci-image.sh"

# busybox_rootfs DIR: busybox-static with every applet linked in /bin, plus the test servers.
busybox_rootfs() {
  local root=$1
  busybox_base_rootfs "$root"
  mkdir -p "$root/var/www"
  # A file that exists only in the image: exec probes prove they run inside the container.
  echo "probelet test image" >"$root/etc/probelet-image"
  echo ok >"$root/var/www/index.html"

  # test-webserver [PORT]: agnhost test-webserver's stand-in, 200 "ok" on / (default port 80).
  cat >"$root/bin/test-webserver" <<'EOF'
#!/bin/sh
# busybox httpd ignores SIGTERM as PID 1; this wrapper exits 0 on TERM instead.
trap 'kill "$pid" 2>/dev/null; exit 0' TERM INT
httpd -f -p "${1:-80}" -h /var/www &
pid=$!
wait "$pid"
EOF
  # liveness [PORT]: agnhost liveness's stand-in (default port 8080): /healthz answers 200 "ok"
  # for the first 10 s after start, then 500 "error: <seconds>"; /redirect?loc=X answers 302 to X.
  cat >"$root/bin/liveness" <<'EOF'
#!/bin/sh
read -r up _ </proc/uptime
echo "$up" >/tmp/.liveness-started
trap 'kill "$pid" 2>/dev/null; exit 0' TERM INT
nc -ll -p "${1:-8080}" -e /bin/liveness-handler &
pid=$!
wait "$pid"
EOF
  cat >"$root/bin/liveness-handler" <<'EOF'
#!/bin/sh
# One HTTP/1.1 exchange on stdin/stdout (started by `nc -ll -e` per connection).
exec 2>/dev/null
cr=$(printf '\r')
read -r method target _ || exit 0
while IFS= read -r line; do
  line=${line%"$cr"}
  [ -z "$line" ] && break
done
respond() { # STATUS TEXT CONTENT-TYPE BODY [LOCATION]
  printf 'HTTP/1.1 %s %s\r\n' "$1" "$2"
  if [ -n "${5:-}" ]; then printf 'Location: %s\r\n' "$5"; fi
  printf 'Content-Type: %s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' "$3" "${#4}" "$4"
}
path=${target%%\?*}
query=
case $target in *\?*) query=${target#*\?} ;; esac
case $path in
/healthz)
  read -r now _ </proc/uptime
  read -r started </tmp/.liveness-started
  elapsed=$(awk -v a="$now" -v b="$started" 'BEGIN { printf "%.2f", a - b }')
  if awk -v e="$elapsed" 'BEGIN { exit !(e > 10) }'; then
    respond 500 "Internal Server Error" "text/plain; charset=utf-8" "error: $elapsed"
  else
    respond 200 OK "text/plain; charset=utf-8" ok
  fi
  ;;
/redirect)
  loc=
  IFS='&'
  for kv in $query; do case $kv in loc=*) loc=${kv#loc=} ;; esac; done
  unset IFS
  loc=$(httpd -d "$loc")
  escaped=$(printf '%s' "$loc" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&#34;/g' -e "s/'/\&#39;/g")
  respond 302 Found "text/html; charset=utf-8" "<a href=\"$escaped\">Found</a>.
" "$loc"
  ;;
*)
  respond 404 "Not Found" "text/plain; charset=utf-8" "404 page not found
"
  ;;
esac
EOF
  chmod 755 "$root/bin/test-webserver" "$root/bin/liveness" "$root/bin/liveness-handler"
}

# node_rootfs DIR: the host's node binary and its shared libraries, plus a dependency-free gRPC
# health server (agnhost grpc-health-checking's stand-in; busybox cannot speak HTTP/2).
node_rootfs() {
  local root=$1 node lib
  node=$(readlink -f "$(command -v node)")
  mkdir -p "$root/usr/bin"
  cp "$node" "$root/usr/bin/node"
  for lib in $(ldd "$node" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  cat >"$root/grpc-health-server.mjs" <<'EOF'
// grpc-health-server [--port 5000] [--http-port 8080]: grpc.health.v1.Health/Check over
// node:http2 without dependencies. The whole server (service "") is SERVING until
// GET /make-not-serving on the HTTP port (GET /make-serving turns it back); other
// services are NOT_FOUND, other methods UNIMPLEMENTED, as grpc-go's health server answers.
import http from "node:http";
import http2 from "node:http2";

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
let serving = true;

function serviceOf(message) {
  // HealthCheckRequest { string service = 1; }: tag 0x0a, varint length, bytes.
  if (message[0] !== 0x0a) return "";
  let len = 0, shift = 0, i = 1;
  for (; i < message.length; i++) {
    len |= (message[i] & 0x7f) << shift;
    shift += 7;
    if ((message[i] & 0x80) === 0) break;
  }
  return message.subarray(i + 1, i + 1 + len).toString("utf8");
}

const grpc = http2.createServer();
grpc.on("stream", (stream, headers) => {
  const fail = (code, message) =>
    stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": String(code), "grpc-message": encodeURIComponent(message) }, { endStream: true });
  if (headers[":path"] !== "/grpc.health.v1.Health/Check") return fail(12, `unknown method ${headers[":path"]}`);
  const chunks = [];
  stream.on("data", (chunk) => chunks.push(chunk));
  stream.on("end", () => {
    const service = serviceOf(Buffer.concat(chunks).subarray(5));
    if (service !== "") return fail(5, "unknown service");
    const reply = Buffer.from([0, 0, 0, 0, 2, 0x08, serving ? 1 : 2]);
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(reply);
  });
  stream.on("error", () => undefined);
});
grpc.listen(Number(flag("port", "5000")));

const control = http.createServer((req, res) => {
  if (req.url === "/make-serving") serving = true;
  else if (req.url === "/make-not-serving") serving = false;
  else if (req.url !== "/") return res.writeHead(404).end("not found\n");
  res.end(serving ? "serving\n" : "not serving\n");
});
control.listen(Number(flag("http-port", "8080")));

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
EOF
}

# build_images DIR: builds every test image into DIR/images.tar; prints the image names.
build_images() {
  local build=$1 bb pause_cfg
  oci_begin "$build"
  busybox_rootfs "$build/busybox"
  bb=$(layer "$build/busybox")
  image "$BUSYBOX_IMAGE" '{"Env":["PATH=/bin:/usr/bin"],"Cmd":["sh"]}' "$bb"
  # The sandbox's "pause": a sleep; pods use pid: CONTAINER, so it never needs to reap.
  pause_cfg='{"Env":["PATH=/bin"],"Entrypoint":["/bin/sleep","inf"]}'
  image "$PAUSE_IMAGE" "$pause_cfg" "$bb"
  if [ "$NODE_IMAGE" = 1 ] && command -v node >/dev/null 2>&1; then
    node_rootfs "$build/node"
    image "$GRPC_IMAGE" '{"Env":["PATH=/usr/bin:/bin"],"Entrypoint":["/usr/bin/node","/grpc-health-server.mjs"]}' "$bb" "$(layer "$build/node")"
  fi
  oci_finish "$build/images.tar"
}

# ---- stop -------------------------------------------------------------------------------


cmd_stop() {
  local pid id
  if pid=$(containerd_pid) && ctr -a "$SOCK" version >/dev/null 2>&1; then
    # Pod network namespaces are named in the sandbox specs; collect them before deleting.
    for id in $(ctr_ containers ls -q 2>/dev/null); do
      ctr_ containers info "$id" 2>/dev/null | grep -o '/var/run/netns/cni-[0-9a-f-]*' || true
    done | sort -u >"$RUN_DIR/netns.list"
    for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks rm -f "$id" >/dev/null 2>&1 || true; done
    for id in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$id" >/dev/null 2>&1 || true; done
  fi
  if [ -n "${pid:-}" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    log "containerd (pid $pid) stopped"
  fi
  rm -f "$RUN_DIR/containerd.pid"
  # Shims outlive containerd (gotcha 2): kill those started for our socket, by PID.
  local p cmdline
  for p in /proc/[0-9]*; do
    cmdline="$( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null || true) "
    if [[ "$cmdline" == containerd-shim*" -address $SOCK "* || "$cmdline" == */containerd-shim*" -address $SOCK "* ]]; then
      log "killing leftover shim ${p#/proc/}"
      kill -KILL "${p#/proc/}" 2>/dev/null || true
    fi
  done
  # Container processes left in our pod cgroups, then the cgroups themselves (gotcha 3).
  local mnt dir
  for mnt in $(cgroup_mounts); do
    dir="$mnt$CGROUP_PARENT"
    [ -d "$dir" ] || continue
    find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u | while read -r p; do
      log "killing leftover container process $p"
      kill -KILL "$p" 2>/dev/null || true
    done
  done
  for mnt in $(cgroup_mounts); do
    dir="$mnt$CGROUP_PARENT"
    [ -d "$dir" ] || continue
    remove_cgroup_tree "$dir" || log "could not remove cgroup $dir"
  done
  # Leftover mounts under the run dir (rootfs overlays, shm), deepest first; then pod netns.
  local m
  awk -v root="$RUN_DIR/" 'index($5, root) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done
  if [ -f "$RUN_DIR/netns.list" ]; then
    while read -r m; do
      [ -n "$m" ] || continue
      umount -l "$m" 2>/dev/null || true
      # A namespace file stays busy when /run/netns was bind-mounted over its mount later (ip netns
      # does that on first use); it is reported, and the rest of the cleanup goes on.
      rm -f "$m" 2>/dev/null || log "could not remove $m: still mounted under an older /run/netns"
    done <"$RUN_DIR/netns.list"
    rm -f "$RUN_DIR/netns.list"
  fi
  if [ -f "$RUN_DIR/bridge" ]; then
    ip link del "$(cat "$RUN_DIR/bridge")" 2>/dev/null || true
    rm -f "$RUN_DIR/bridge"
  fi
  if [ -f "$RUN_DIR/ip_forward.orig" ]; then
    cat "$RUN_DIR/ip_forward.orig" >/proc/sys/net/ipv4/ip_forward || true
    rm -f "$RUN_DIR/ip_forward.orig"
  fi
  rm -f "$SOCK" "$SOCK.ttrpc"
}

cmd_clean() {
  cmd_stop
  case "$RUN_DIR" in
    /|"") die "refusing to delete '$RUN_DIR'" ;;
  esac
  rm -rf "$RUN_DIR"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  env) cmd_env ;;
  images) cmd_images ;;
  stop) cmd_stop ;;
  clean) cmd_clean ;;
  *)
    echo "usage: $0 install|start|stop|images|env|clean" >&2
    exit 2
    ;;
esac
