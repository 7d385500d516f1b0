#!/usr/bin/env bash
# A real Kubernetes v1.37 control plane on loopback for probelet's cluster tests (see
# docs/cluster-test-env.md and ../shared/spec/cluster-node.md): etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler, built once from the Go module proxy by
# scripts/k8s-tools.sh (with kubectl) and kept in its cache directory.
#
#   scripts/control-plane.sh build    build etcd, kube-apiserver, kube-controller-manager,
#                                     kube-scheduler and kubectl (scripts/k8s-tools.sh build
#                                     control-plane: about 7 minutes on 2 cores, once; later runs
#                                     see the stamps and return at once)
#   scripts/control-plane.sh start    start the control plane in the run directory; prints export
#                                     lines: eval "$(scripts/control-plane.sh start)"
#   scripts/control-plane.sh env      print the export lines again
#   scripts/control-plane.sh status   which components run, and whether /readyz answers
#   scripts/control-plane.sh stop     end the processes start started (by their recorded PIDs)
#                                     and remove the run directory
#
# What runs is what a kubeadm cluster runs, on loopback: the Node and RBAC authorizers,
# NodeRestriction and ServiceAccount admission, client certificates of the cluster CA,
# bootstrap tokens, service-account tokens signed by the run's key; the controller manager
# signs CSRs with the cluster CA, approves node client CSRs, signs and cleans bootstrap tokens.
#
# Options (environment):
#   PROBELET_CACHE_DIR=DIR            the cache (default /var/cache/probelet); scripts/k8s-tools.sh
#                                     owns DIR/k8s-<version>/
#   PROBELET_CP_DIR=DIR               the run directory (default /tmp/probelet-cp)
#   PROBELET_CP_NODES="a b"           node names that get a token and a kubeconfig
#                                     (default "probelet-a probelet-b probelet-c probelet-d probelet-e")
#   PROBELET_CP_NODE_GRACE=40s        kube-controller-manager's --node-monitor-grace-period
#   PROBELET_CP_SIGNING_DURATION=24h  kube-controller-manager's --cluster-signing-duration: how
#                                     long the certificates it signs for CSRs last
#
# Nothing listens beyond 127.0.0.1; tokens and keys are files of mode 0600; stop ends only
# processes whose PIDs start recorded, and only while their command line still matches.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=host-net.sh
. "$SCRIPT_DIR/host-net.sh"
K8S_TOOLS="$SCRIPT_DIR/k8s-tools.sh"
RUN_DIR=${PROBELET_CP_DIR:-/tmp/probelet-cp}
RUN_DIR=${RUN_DIR%/}
NODES=${PROBELET_CP_NODES:-probelet-a probelet-b probelet-c probelet-d probelet-e}
NODE_GRACE=${PROBELET_CP_NODE_GRACE:-40s}
SIGNING_DURATION=${PROBELET_CP_SIGNING_DURATION:-24h}
COMPONENTS="etcd kube-apiserver kube-controller-manager kube-scheduler"

log() { printf 'control-plane.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---- build ------------------------------------------------------------------------------

# bin NAME: the path of a built component (scripts/k8s-tools.sh path); fails when it is not built.
bin() {
  "$K8S_TOOLS" path "$1" 2>/dev/null
}

# built: the four components and kubectl are in the cache with their stamps.
built() {
  local b
  for b in $COMPONENTS kubectl; do bin "$b" >/dev/null || return 1; done
}

cmd_build() {
  "$K8S_TOOLS" build control-plane
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
  local path
  path=$(bin "$name") || die "$name is not built (run: sudo $0 build)"
  "$path" "$@" </dev/null >>"$RUN_DIR/$name.log" 2>&1 &
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
  built || die "the control plane is not built (run: sudo $0 build; scripts/k8s-tools.sh status lists what is there)"
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

  # kube-apiserver as kubeadm runs it (cmd/kubeadm/app/phases/controlplane/manifests.go
  # getAPIServerCommand: privileged containers allowed), on loopback: one cluster CA for serving, client certificates and CSR
  # signing; bootstrap tokens; ServiceAccount admission with its issuer and keys (every pod gets
  # a projected kube-api-access volume); nodes limited by the Node authorizer and NodeRestriction.
  launch kube-apiserver --etcd-servers "http://127.0.0.1:$etcd_client" \
    --bind-address=127.0.0.1 --secure-port="$secure_port" \
    --tls-cert-file="$RUN_DIR/pki/apiserver.crt" --tls-private-key-file="$RUN_DIR/pki/apiserver.key" \
    --client-ca-file="$RUN_DIR/pki/server-ca.crt" \
    --token-auth-file="$RUN_DIR/tokens.csv" --enable-bootstrap-token-auth \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction,ServiceAccount \
    --allow-privileged=true \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
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

  # The default controllers plus the two kubeadm turns on for bootstrap tokens; csrsigning signs
  # with the cluster CA, csrapproving approves node client CSRs the requester may make.
  launch kube-controller-manager --kubeconfig="$RUN_DIR/kubeconfig/admin.kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port=0 \
    --service-account-private-key-file="$RUN_DIR/pki/service-account.key" \
    --root-ca-file="$RUN_DIR/pki/server-ca.crt" \
    --cluster-signing-cert-file="$RUN_DIR/pki/server-ca.crt" --cluster-signing-key-file="$RUN_DIR/pki/server-ca.key" \
    --cluster-signing-duration="$SIGNING_DURATION" \
    --controllers='*,bootstrapsigner,tokencleaner' --node-monitor-grace-period="$NODE_GRACE"
  launch kube-scheduler --kubeconfig="$RUN_DIR/kubeconfig/admin.kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port=0
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
