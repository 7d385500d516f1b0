#!/usr/bin/env bash
# A real Kubernetes v1.20.2 control plane on loopback for probelet's cluster tests (see
# docs/cluster-test-env.md and ../shared/spec/cluster-node.md): etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler, built once from Debian 12's `kubernetes` source
# package with Debian 11's Go 1.15 and kept in a cache directory.
#
#   scripts/control-plane.sh build    fetch the sources, Go 1.15 and etcd into the cache and build
#                                     the three binaries (about 9 minutes and 2.5 GB of disk at the peak, once; later
#                                     runs see the stamp and return at once; 282 MB stay)
#   scripts/control-plane.sh start    start the control plane in the run directory; prints export
#                                     lines: eval "$(scripts/control-plane.sh start)"
#   scripts/control-plane.sh env      print the export lines again
#   scripts/control-plane.sh status   which components run, and whether /readyz answers
#   scripts/control-plane.sh stop     end the processes start started (by their recorded PIDs)
#                                     and remove the run directory
#
# Options (environment):
#   PROBELET_CACHE_DIR=DIR            the cache (default /var/cache/probelet); this script owns
#                                     DIR/control-plane/
#   PROBELET_CP_DIR=DIR               the run directory (default /tmp/probelet-cp)
#   PROBELET_CP_NODES="a b"           node names that get a token and a kubeconfig
#                                     (default "probelet-a probelet-b probelet-c probelet-d")
#   PROBELET_CP_NODE_GRACE=40s        kube-controller-manager's --node-monitor-grace-period
#   PROBELET_DEBIAN_MIRROR=URL        the Debian mirror (default: read from the machine's apt)
#
# Nothing listens beyond 127.0.0.1; tokens and keys are files of mode 0600; stop ends only
# processes whose PIDs start recorded, and only while their command line still matches.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/private-apt.sh
source "$SCRIPT_DIR/private-apt.sh"

CACHE_DIR=${PROBELET_CACHE_DIR:-/var/cache/probelet}
CACHE_DIR=${CACHE_DIR%/}
CP_CACHE="$CACHE_DIR/control-plane"
BIN_DIR="$CP_CACHE/bin"
STAMP="$BIN_DIR/stamp"
RUN_DIR=${PROBELET_CP_DIR:-/tmp/probelet-cp}
RUN_DIR=${RUN_DIR%/}
NODES=${PROBELET_CP_NODES:-probelet-a probelet-b probelet-c probelet-d}
NODE_GRACE=${PROBELET_CP_NODE_GRACE:-40s}
COMPONENTS="etcd kube-apiserver kube-controller-manager kube-scheduler"
# The Debian packages this script builds from (suite names; the mirror comes from the machine).
SOURCE_PACKAGE=kubernetes/bookworm
GO_PACKAGES="golang-1.15-go/bullseye golang-1.15-src/bullseye"
ETCD_PACKAGE=etcd-server/bookworm

log() { printf 'control-plane.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---- build ------------------------------------------------------------------------------

# need_writable_cache: the cache must be writable; otherwise say what to run.
need_writable_cache() {
  if mkdir -p "$CP_CACHE" 2>/dev/null && [ -w "$CP_CACHE" ]; then return 0; fi
  die "cannot write $CP_CACHE: run 'sudo $0 build' once, or set PROBELET_CACHE_DIR to a directory you own"
}

# built: the three binaries and etcd are in the cache with a stamp.
built() {
  [ -s "$STAMP" ] || return 1
  local b
  for b in kube-apiserver kube-controller-manager kube-scheduler etcd; do [ -x "$BIN_DIR/$b" ] || return 1; done
}

cmd_build() {
  if built; then
    log "already built: $(cat "$STAMP") ($BIN_DIR)"
    return 0
  fi
  need_writable_cache
  exec 9>"$CP_CACHE/build.lock"
  flock -n 9 || die "another build is running (lock $CP_CACHE/build.lock)"
  local t0 apt="$CP_CACHE/apt" src="$CP_CACHE/src" go="$CP_CACHE/go" etcd="$CP_CACHE/etcd"
  t0=$(date +%s)
  private_apt_init "$apt" "deb bookworm" "deb bullseye" "deb-src bookworm"
  log "updating the private package lists ($apt)"
  private_apt "$apt" apt-get update -qq >&2
  if ! command -v rsync >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || die "the build needs rsync: install it (sudo apt-get install rsync)"
    log "installing rsync (the kubernetes Makefile needs it)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rsync >&2 ||
      { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rsync >&2; }
  fi

  log "fetching Go 1.15 (${GO_PACKAGES})"
  rm -rf "$go" && mkdir -p "$go/debs" "$go/root"
  # shellcheck disable=SC2086
  (cd "$go/debs" && private_apt "$apt" apt-get download -qq $GO_PACKAGES >&2)
  local deb
  for deb in "$go"/debs/*.deb; do dpkg -x "$deb" "$go/root"; done
  local goroot
  goroot=$(find "$go/root/usr/lib" -maxdepth 1 -name 'go-1.15' -type d | head -n 1)
  [ -x "$goroot/bin/go" ] || die "no go binary in the unpacked $GO_PACKAGES"

  log "fetching etcd ($ETCD_PACKAGE)"
  rm -rf "$etcd" && mkdir -p "$etcd/debs" "$etcd/root"
  (cd "$etcd/debs" && private_apt "$apt" apt-get download -qq "$ETCD_PACKAGE" >&2)
  for deb in "$etcd"/debs/*.deb; do dpkg -x "$deb" "$etcd/root"; done
  [ -x "$etcd/root/usr/bin/etcd" ] || die "no etcd binary in the unpacked $ETCD_PACKAGE"

  log "fetching the source package ($SOURCE_PACKAGE)"
  rm -rf "$src" && mkdir -p "$src"
  (cd "$src" && private_apt "$apt" apt-get source -qq "$SOURCE_PACKAGE" >&2)
  local tree version
  tree=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
  [ -f "$tree/Makefile" ] || die "no kubernetes tree with a Makefile under $src"
  version=$(cd "$tree" && dpkg-parsechangelog -S Version)

  log "building kube-apiserver, kube-controller-manager, kube-scheduler with $("$goroot/bin/go" version) (about 9 minutes)"
  # Debian's version 1.20.5+really1.20.2-… is upstream v1.20.2; without .git the build would
  # stamp the binaries with a placeholder version.
  local upstream=${version#*really}
  upstream=${upstream%%-*}
  # The tree's hack/lib/golang.sh points GOPATH and GOCACHE into _output/local/go itself.
  (
    cd "$tree"
    export GOROOT="$goroot" PATH="$goroot/bin:$PATH" CGO_ENABLED=0 GOPROXY=off GOFLAGS=-mod=vendor \
      KUBE_GIT_VERSION="v$upstream" KUBE_GIT_TREE_STATE=clean \
      KUBE_GIT_MAJOR="${upstream%%.*}" KUBE_GIT_MINOR="$(echo "$upstream" | cut -d. -f2)"
    nice -n 19 make WHAT="cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler" >&2
  )
  mkdir -p "$BIN_DIR"
  local b
  for b in kube-apiserver kube-controller-manager kube-scheduler; do install -m 0755 "$tree/_output/bin/$b" "$BIN_DIR/$b"; done
  install -m 0755 "$etcd/root/usr/bin/etcd" "$BIN_DIR/etcd"
  printf 'kubernetes %s %s etcd %s\n' "$version" "$("$goroot/bin/go" version | awk '{ print $3 }')" \
    "$(dpkg-deb -f "$etcd"/debs/etcd-server_*.deb Version)" >"$STAMP"
  # Only bin/ is used from here on: the package lists, Go, etcd's package and the tree with
  # its _output (binaries, Go build cache) go.
  rm -rf "$apt" "$src" "$go" "$etcd"
  log "built in $(( $(date +%s) - t0 )) s: $(cat "$STAMP")"
}

# ---- start ------------------------------------------------------------------------------

# component_pid NAME: the recorded PID of NAME while that process is still the one start ran
# (its command is NAME and its command line names the run directory); fails otherwise.
component_pid() {
  local name=$1 pid
  pid=$(cat "$RUN_DIR/$name.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "${name:0:15}" ] || return 1
  case "$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" in *"$RUN_DIR/"*) ;; *) return 1 ;; esac
  echo "$pid"
}

# alive PID: the process exists and is not a zombie.
alive() {
  local state
  state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# free_ports N: N distinct loopback TCP ports that are free right now.
free_ports() {
  node -e '
    const net = require("node:net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((ok) => s.listen(0, "127.0.0.1", () => ok(s.address().port)))))
      .then((ports) => { console.log(ports.join(" ")); servers.forEach((s) => s.close()); });
  ' "$1"
}

# check_node_names: 1 to 32 names, each a DNS-1123 subdomain (what the API server accepts for a
# Node) of at most 200 characters (so node-<name>.kubeconfig stays a valid file name).
check_node_names() {
  local name count=0
  for name in $NODES; do count=$((count + 1)); done
  [ "$count" -ge 1 ] || die "PROBELET_CP_NODES: Required value: at least one node name"
  [ "$count" -le 32 ] || die "PROBELET_CP_NODES: Too many: $count: must have at most 32 items"
  for name in $NODES; do
    [ ${#name} -le 200 ] || die "PROBELET_CP_NODES: Invalid value: \"${name:0:40}...\": must be no more than 200 characters"
    if ! [[ "$name" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ ]]; then
      die "PROBELET_CP_NODES: Invalid value: \"$name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
    fi
  done
}

# new_ca NAME CN: a self-signed CA (pki/NAME.crt, pki/NAME.key).
new_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 -subj "/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    -keyout "$RUN_DIR/pki/$1.key" -out "$RUN_DIR/pki/$1.crt" 2>/dev/null
  chmod 0644 "$RUN_DIR/pki/$1.crt"
}

# new_cert NAME CA SUBJECT EXTENSIONS: a key and a certificate signed by pki/CA.
new_cert() {
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$3" \
    -keyout "$RUN_DIR/pki/$1.key" -out "$RUN_DIR/pki/$1.csr" 2>/dev/null
  printf '%b' "$4" >"$RUN_DIR/pki/$1.ext"
  openssl x509 -req -in "$RUN_DIR/pki/$1.csr" -CA "$RUN_DIR/pki/$2.crt" -CAkey "$RUN_DIR/pki/$2.key" \
    -CAcreateserial -days 7 -extfile "$RUN_DIR/pki/$1.ext" -out "$RUN_DIR/pki/$1.crt" 2>/dev/null
  rm -f "$RUN_DIR/pki/$1.csr" "$RUN_DIR/pki/$1.ext"
}

# new_token USER UID GROUP FILE: a random bearer token in FILE (0600), added to tokens.csv.
new_token() {
  local token
  token=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  printf '%s' "$token" >"$4"
  printf '%s,%s,%s,"%s"\n' "$token" "$1" "$2" "$3" >>"$RUN_DIR/tokens.csv"
}

# write_kubeconfig FILE USER TOKEN_FILE: a kubeconfig that reads its bearer token from a file.
write_kubeconfig() {
  cat >"$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: probelet-cp
  cluster:
    server: $SERVER
    certificate-authority: $RUN_DIR/pki/server-ca.crt
users:
- name: $2
  user:
    tokenFile: $3
contexts:
- name: $2@probelet-cp
  context:
    cluster: probelet-cp
    user: $2
current-context: $2@probelet-cp
KUBECONFIG
}

# show_log NAME: why NAME failed: its error lines when it wrote any, else the end of its log.
show_log() {
  local file="$RUN_DIR/$1.log"
  grep -m 5 -E '^(Error: |F[0-9]{4} )' "$file" >&2 || tail -n 20 "$file" >&2 || true
}

# launch NAME ARGS...: starts a component detached from our stdout, logging to NAME.log.
launch() {
  local name=$1
  shift
  "$BIN_DIR/$name" "$@" </dev/null >>"$RUN_DIR/$name.log" 2>&1 &
  echo $! >"$RUN_DIR/$name.pid"
}

# wait_for WHAT SECONDS COMPONENT COMMAND...: retries COMMAND every 0.2 s until it succeeds,
# failing when COMPONENT exits or SECONDS pass (with the tail of its log).
wait_for() {
  local what=$1 seconds=$2 component=$3 i
  shift 3
  for i in $(seq 1 $((seconds * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    if ! component_pid "$component" >/dev/null; then
      show_log "$component"
      die "$component exited while waiting for $what (log: $RUN_DIR/$component.log)"
    fi
    sleep 0.2
  done
  show_log "$component"
  die "$what not within $seconds s (log: $RUN_DIR/$component.log)"
}

# api_get PATH: GET on the API server as admin (token read by curl from a header file).
api_get() {
  curl -sf --max-time 5 --cacert "$RUN_DIR/pki/server-ca.crt" -H "@$RUN_DIR/tokens/admin.header" "$SERVER$1"
}

running_components() {
  local name
  for name in $COMPONENTS; do component_pid "$name" >/dev/null && echo "$name"; done
  return 0
}

cmd_start() {
  [ "$(id -u)" = 0 ] || die "the control plane tests run as root (run: sudo $0 start)"
  built || die "the control plane is not built in $CP_CACHE (run: sudo $0 build)"
  command -v curl >/dev/null 2>&1 || die "start needs curl"
  command -v node >/dev/null 2>&1 || die "start needs node (to find free ports)"
  check_node_names
  if [ -n "$(running_components)" ]; then
    [ "$(running_components | wc -l)" = 4 ] || die "a partly running control plane is in $RUN_DIR (run: $0 stop)"
    log "already running in $RUN_DIR"
    cmd_env
    return 0
  fi
  if [ -e "$RUN_DIR" ]; then
    [ -f "$RUN_DIR/.probelet-cp" ] || die "$RUN_DIR exists and is not a control plane run directory: choose another PROBELET_CP_DIR"
    rm -rf "$RUN_DIR"
  fi
  umask 077
  mkdir -p "$RUN_DIR"/{pki,tokens,etcd,kubeconfig}
  : >"$RUN_DIR/.probelet-cp"
  # A failed start ends what it started; the run directory stays for its logs.
  trap 'end_components; log "start failed: logs in $RUN_DIR"' EXIT
  local t0 etcd_client etcd_peer secure_port name
  t0=$(date +%s%N)
  read -r etcd_client etcd_peer secure_port <<<"$(free_ports 3)"
  SERVER="https://127.0.0.1:$secure_port"

  new_ca server-ca probelet-cp-server-ca
  new_cert apiserver server-ca /CN=kube-apiserver \
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1\n'
  new_ca kubelet-client-ca probelet-cp-kubelet-client-ca
  new_cert apiserver-kubelet-client kubelet-client-ca /O=system:masters/CN=kube-apiserver-kubelet-client \
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n'
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$RUN_DIR/pki/service-account.key" 2>/dev/null
  openssl pkey -in "$RUN_DIR/pki/service-account.key" -pubout -out "$RUN_DIR/pki/service-account.pub" 2>/dev/null

  : >"$RUN_DIR/tokens.csv"
  new_token admin admin system:masters "$RUN_DIR/tokens/admin.token"
  printf 'Authorization: Bearer %s\n' "$(cat "$RUN_DIR/tokens/admin.token")" >"$RUN_DIR/tokens/admin.header"
  write_kubeconfig "$RUN_DIR/kubeconfig/admin.kubeconfig" admin "$RUN_DIR/tokens/admin.token"
  for name in $NODES; do
    new_token "system:node:$name" "system:node:$name" system:nodes "$RUN_DIR/tokens/node-$name.token"
    write_kubeconfig "$RUN_DIR/kubeconfig/node-$name.kubeconfig" "system:node:$name" "$RUN_DIR/tokens/node-$name.token"
  done

  launch etcd --name probelet-cp --data-dir "$RUN_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "probelet-cp=http://127.0.0.1:$etcd_peer" --initial-cluster-state new
  wait_for "etcd health" 30 etcd curl -sf --max-time 2 "http://127.0.0.1:$etcd_client/health"

  launch kube-apiserver --etcd-servers "http://127.0.0.1:$etcd_client" \
    --bind-address=127.0.0.1 --secure-port="$secure_port" --insecure-port=0 \
    --tls-cert-file="$RUN_DIR/pki/apiserver.crt" --tls-private-key-file="$RUN_DIR/pki/apiserver.key" \
    --token-auth-file="$RUN_DIR/tokens.csv" \
    --authorization-mode=Node,RBAC \
    --enable-admission-plugins=NodeRestriction --disable-admission-plugins=ServiceAccount \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$RUN_DIR/pki/service-account.pub" \
    --service-account-signing-key-file="$RUN_DIR/pki/service-account.key" \
    --service-cluster-ip-range=10.96.0.0/16 \
    --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
    --kubelet-preferred-address-types=InternalIP \
    --kubelet-client-certificate="$RUN_DIR/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$RUN_DIR/pki/apiserver-kubelet-client.key" \
    --profiling=false
  wait_for "kube-apiserver /readyz" 60 kube-apiserver api_get /readyz
  wait_for "the default namespace" 30 kube-apiserver api_get /api/v1/namespaces/default

  launch kube-controller-manager --kubeconfig="$RUN_DIR/kubeconfig/admin.kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port=0 --port=0 \
    --service-account-private-key-file="$RUN_DIR/pki/service-account.key" \
    --root-ca-file="$RUN_DIR/pki/server-ca.crt" \
    --controllers='*,-csrsigning,-csrapproving' --node-monitor-grace-period="$NODE_GRACE"
  launch kube-scheduler --kubeconfig="$RUN_DIR/kubeconfig/admin.kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port=0 --port=0
  sleep 0.5
  for name in kube-controller-manager kube-scheduler; do
    component_pid "$name" >/dev/null || { show_log "$name"; die "$name exited at start (log: $RUN_DIR/$name.log)"; }
  done

  {
    echo "export PROBELET_CP_DIR='$RUN_DIR'"
    echo "export PROBELET_CP_SERVER='$SERVER'"
    echo "export PROBELET_CP_CA='$RUN_DIR/pki/server-ca.crt'"
    echo "export PROBELET_CP_ADMIN_KUBECONFIG='$RUN_DIR/kubeconfig/admin.kubeconfig'"
    echo "export PROBELET_CP_NODES='$NODES'"
    for name in $NODES; do
      echo "export PROBELET_CP_NODE_KUBECONFIG_$(printf '%s' "$name" | tr -- '-.' '__')='$RUN_DIR/kubeconfig/node-$name.kubeconfig'"
    done
    echo "export PROBELET_CP_KUBELET_CLIENT_CA='$RUN_DIR/pki/kubelet-client-ca.crt'"
  } >"$RUN_DIR/env.sh"
  trap - EXIT
  log "running in $RUN_DIR (server $SERVER), started in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  cmd_env
}

cmd_env() {
  [ -f "$RUN_DIR/env.sh" ] || die "no control plane in $RUN_DIR (run: $0 start)"
  cat "$RUN_DIR/env.sh"
}

cmd_status() {
  local name pid up=0
  for name in $COMPONENTS; do
    if pid=$(component_pid "$name"); then
      echo "$name running (pid $pid)"
      up=$((up + 1))
    else
      echo "$name not running"
    fi
  done
  if [ -f "$RUN_DIR/env.sh" ] && [ -f "$RUN_DIR/tokens/admin.header" ]; then
    SERVER=$(sed -n "s/^export PROBELET_CP_SERVER='\(.*\)'$/\1/p" "$RUN_DIR/env.sh")
    if [ "$(api_get /readyz 2>/dev/null)" = ok ]; then echo "readyz ok ($SERVER)"; else echo "readyz failing ($SERVER)"; fi
  fi
  [ "$up" = 4 ]
}

# ---- stop -------------------------------------------------------------------------------

# end_components: SIGTERM to each running component (reverse start order: the API server's
# clients first, etcd last), SIGKILL after 10 s.
end_components() {
  local name pid i stopped=""
  for name in kube-scheduler kube-controller-manager kube-apiserver etcd; do
    pid=$(component_pid "$name") || continue
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      log "$name (pid $pid) did not exit within 10 s of SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    stopped+=" $name($pid)"
  done
  if [ -n "$stopped" ]; then log "stopped:$stopped"; fi
}

cmd_stop() {
  end_components
  if [ -e "$RUN_DIR" ]; then
    [ -f "$RUN_DIR/.probelet-cp" ] || die "$RUN_DIR is not a control plane run directory: not removing it"
    rm -rf "$RUN_DIR"
  fi
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start ;;
  env) cmd_env ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  *)
    echo "usage: $0 build|start|env|status|stop" >&2
    exit 2
    ;;
esac
