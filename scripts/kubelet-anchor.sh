#!/usr/bin/env bash
# The real kubelet v1.37 as a node of the test control plane (scripts/control-plane.sh), beside
# probelet's nodes: the anchor of the differential suite (test/differential) and of the node
# overhead benchmark (bench/node). See docs/cluster-test-env.md.
#
#   scripts/kubelet-anchor.sh build    build the kubelet (scripts/k8s-tools.sh build node: about
#                                      4 minutes on 2 cores, once)
#   scripts/kubelet-anchor.sh start    start a containerd of its own (scripts/containerd.sh, with a
#                                      pod network and probelet's test images), then the kubelet,
#                                      and wait for its Node to be Ready; prints export lines:
#                                      eval "$(scripts/kubelet-anchor.sh start)". When the kubelet
#                                      was killed but its containerd runs, start runs the kubelet
#                                      again on the same state (an agent restart)
#   scripts/kubelet-anchor.sh env      print the export lines again
#   scripts/kubelet-anchor.sh status   whether the kubelet and its containerd run, the Node's Ready
#   scripts/kubelet-anchor.sh stop     end the kubelet by its PID, remove its containerd (pods,
#                                      shims, bridge, netns), its cgroups and mounts, restore the
#                                      kernel settings it changed, and remove the run directory
#
# Needs a control plane: PROBELET_CP_DIR names its run directory (default /tmp/probelet-cp),
# whose env.sh, cluster CA and key the node identity comes from.
#
# Options (environment):
#   PROBELET_ANCHOR_DIR=DIR        the run directory (default /tmp/probelet-anchor): config,
#                                  certificates, the kubelet's root, pod logs, its containerd
#   PROBELET_ANCHOR_NODE=NAME      the Node's name (default kubelet-anchor)
#   PROBELET_ANCHOR_SUBNET=CIDR    its containerd's pod subnet (default 10.244.90.0/24)
#   PROBELET_ANCHOR_V=N            the kubelet's log verbosity (default 2)
#   PROBELET_ANCHOR_SCHEDULABLE=1  register without the taint probelet.dev/kubelet-anchor:NoSchedule
#                                  (default 0: only pods pinned with spec.nodeName, or tolerating it,
#                                  land there, so other suites' Deployments on a shared control
#                                  plane never do)
#
# What the kubelet does to the host, and what this script does about it:
#   - it sets six kernel settings at start (container_manager_linux.go setupKernelTunables): their
#     values are recorded before the first anchor of the machine starts (in
#     /run/probelet-kubelet-anchor, shared by every anchor) and restored when the last one stops,
#     unless someone changed them since;
#   - it removes pod cgroups it does not know under its cgroup root: each anchor has its own root,
#     made beforehand in every cgroup hierarchy and removed at stop;
#   - it kills sandboxes it did not make: each anchor has its own containerd, never shared;
#   - its iptables chains (makeIPTablesUtilChains) are turned off; its root directory, pod log
#     directory, volume plugin directory and certificates live in the run directory.
# Nothing it serves is unauthenticated: the kubelet API takes client certificates of the cluster
# CA (and of the CA of the API server's kubelet client certificate) or tokens it reviews with the
# API server, and asks the API server (SubjectAccessReview) what each caller may do; its read-only
# port is off and its healthz listens on 127.0.0.1. Keys and certificates are files of mode 0600.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=host-net.sh
. "$SCRIPT_DIR/host-net.sh"
# shellcheck source=scripts/cgroup-dirs.sh
. "$SCRIPT_DIR/cgroup-dirs.sh"
K8S_TOOLS="$SCRIPT_DIR/k8s-tools.sh"
CONTAINERD_SH="$SCRIPT_DIR/containerd.sh"
RUN_DIR=${PROBELET_ANCHOR_DIR:-/tmp/probelet-anchor}
RUN_DIR=${RUN_DIR%/}
NODE=${PROBELET_ANCHOR_NODE:-kubelet-anchor}
SUBNET=${PROBELET_ANCHOR_SUBNET:-10.244.90.0/24}
VERBOSITY=${PROBELET_ANCHOR_V:-2}
SCHEDULABLE=${PROBELET_ANCHOR_SCHEDULABLE:-0}
CP_DIR=${PROBELET_CP_DIR:-/tmp/probelet-cp}
CP_DIR=${CP_DIR%/}
CRI_DIR="$RUN_DIR/cri"
# A per-run-dir suffix keeps the cgroup roots of two anchors apart.
TAG=$(printf '%s' "$RUN_DIR" | sha256sum | cut -c1-8)
CGROUP_ROOT="/probelet-anchor-$TAG"
# The kubelet process itself (and anything it forks) runs in a cgroup of its own beside its root,
# so its CPU and memory can be read from cgroup accounting apart from the pods' (bench/node).
AGENT_CGROUP="/probelet-anchor-$TAG-agent"
# Shared by every anchor of the machine: the kernel settings as they were before the first one.
SHARED_DIR=/run/probelet-kubelet-anchor
SYSCTLS="vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes"

log() { printf 'kubelet-anchor.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---- processes --------------------------------------------------------------------------

# alive PID: the process exists and is not a zombie.
alive() {
  local state
  state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# kubelet_pid: the recorded PID while that process is still the kubelet start ran (its command is
# kubelet and its command line names this run directory's config); fails otherwise.
kubelet_pid() {
  local pid
  pid=$(cat "$RUN_DIR/kubelet.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = kubelet ] || return 1
  case "$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" in *"--config=$RUN_DIR/config.yaml "*) ;; *) return 1 ;; esac
  echo "$pid"
}

# containerd_running: the containerd of this anchor runs (its recorded PID, its config's path).
containerd_running() {
  local pid
  pid=$(cat "$CRI_DIR/containerd.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  case "$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" in *"$CRI_DIR/config.toml"*) return 0 ;; *) return 1 ;; esac
}


# accounting_mounts: the v1 hierarchies that count CPU or memory (cpu, cpuacct, memory, alone or
# co-mounted), or the cgroup2 mount on a pure v2 host; the agent cgroup lives in these only (a
# cpuset cgroup would need its cpus and mems set before a process may join).
accounting_mounts() {
  awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
           if ($(i+1) == "cgroup" && $(i+3) ~ /(^|,)(cpu|cpuacct|memory)(,|$)/) print $5;
           else if ($(i+1) == "cgroup2" && $5 == "/sys/fs/cgroup") print $5;
           break } }' /proc/self/mountinfo | sort -u
}

# cp_var NAME: a variable of the control plane's env.sh.
cp_var() {
  sed -n "s/^export $1='\(.*\)'$/\1/p" "$CP_DIR/env.sh"
}

# node_get PATH: GET on the API server with the node's own client certificate.
node_get() {
  curl -sf --max-time 5 --cacert "$CP_DIR/pki/server-ca.crt" --cert "$RUN_DIR/pki/node.crt" \
    --key "$RUN_DIR/pki/node.key" "$(cp_var PROBELET_CP_SERVER)$1"
}

# node_ready: the Node's Ready condition is True.
node_ready() {
  node_get "/api/v1/nodes/$NODE" 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      let ready;
      try { ready = (JSON.parse(s).status?.conditions ?? []).find((c) => c.type === "Ready"); } catch { ready = undefined; }
      process.exit(ready?.status === "True" ? 0 : 1);
    });'
}

# ---- kernel settings (shared by the anchors of the machine) --------------------------------

# with_shared_lock COMMAND...: runs COMMAND holding the lock of the shared directory.
with_shared_lock() {
  mkdir -p -m 0700 "$SHARED_DIR/holders"
  (
    flock -w 30 9 || die "could not lock $SHARED_DIR within 30 s"
    "$@"
  ) 9>"$SHARED_DIR/lock"
}

# live_holders: the anchors whose run directory still exists (stale entries are dropped).
live_holders() {
  local f dir
  for f in "$SHARED_DIR"/holders/*; do
    [ -f "$f" ] || continue
    dir=$(cat "$f")
    if [ -f "$dir/.probelet-anchor" ]; then echo "$dir"; else rm -f "$f"; fi
  done
}

# record_sysctls: the first anchor of the machine records the kernel settings; every anchor
# registers itself as a holder.
record_sysctls() {
  local name
  if [ -z "$(live_holders)" ]; then
    for name in $SYSCTLS; do
      [ -f "/proc/sys/$name" ] && printf '%s %s\n' "$name" "$(cat "/proc/sys/$name")"
    done >"$SHARED_DIR/sysctls.orig"
  fi
  echo "$RUN_DIR" >"$SHARED_DIR/holders/$TAG"
}

# restore_sysctls: the last anchor to stop puts the recorded values back (each only while it
# still has the value the kubelet sets, so a change someone made since stays).
restore_sysctls() {
  rm -f "$SHARED_DIR/holders/$TAG"
  [ -z "$(live_holders)" ] || return 0
  [ -f "$SHARED_DIR/sysctls.orig" ] || return 0
  local name value now wanted
  while read -r name value; do
    now=$(cat "/proc/sys/$name" 2>/dev/null) || continue
    [ "$now" = "$value" ] && continue
    wanted=$(kubelet_sets "$name")
    if [ "$now" = "$wanted" ]; then
      echo "$value" >"/proc/sys/$name" && log "restored $name = $value (the kubelet had set $now)"
    else
      log "left $name = $now (neither the recorded $value nor the kubelet's $wanted: someone else changed it)"
    fi
  done <"$SHARED_DIR/sysctls.orig"
  rm -f "$SHARED_DIR/sysctls.orig"
}

# kubelet_sets NAME: the value the kubelet writes (k8s.io/component-helpers/node/util/sysctl).
kubelet_sets() {
  case "$1" in
    vm/overcommit_memory) echo 1 ;;
    vm/panic_on_oom) echo 0 ;;
    kernel/panic) echo 10 ;;
    kernel/panic_on_oops) echo 1 ;;
    kernel/keys/root_maxkeys) echo 1000000 ;;
    kernel/keys/root_maxbytes) echo 25000000 ;;
  esac
}

# ---- start ------------------------------------------------------------------------------

# node_identity: a key and a client certificate of the cluster CA for system:node:NAME in
# system:nodes (what a bootstrap CSR of the node would get), and the kubeconfig naming them.
node_identity() {
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/O=system:nodes/CN=system:node:$NODE" -keyout "$RUN_DIR/pki/node.key" -out "$RUN_DIR/pki/node.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"$RUN_DIR/pki/node.ext"
  openssl x509 -req -in "$RUN_DIR/pki/node.csr" -CA "$CP_DIR/pki/server-ca.crt" -CAkey "$CP_DIR/pki/server-ca.key" \
    -CAserial "$RUN_DIR/pki/server-ca.srl" -CAcreateserial -days 7 -extfile "$RUN_DIR/pki/node.ext" \
    -out "$RUN_DIR/pki/node.crt" 2>/dev/null
  rm -f "$RUN_DIR/pki/node.csr" "$RUN_DIR/pki/node.ext" "$RUN_DIR/pki/server-ca.srl"
  # Clients of the kubelet API: the cluster CA's, and the API server's kubelet client certificate.
  cat "$CP_DIR/pki/server-ca.crt" "$CP_DIR/pki/kubelet-client-ca.crt" >"$RUN_DIR/pki/client-ca.crt"
  cat >"$RUN_DIR/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: probelet-cp
  cluster:
    server: $(cp_var PROBELET_CP_SERVER)
    certificate-authority: $CP_DIR/pki/server-ca.crt
users:
- name: system:node:$NODE
  user:
    client-certificate: $RUN_DIR/pki/node.crt
    client-key: $RUN_DIR/pki/node.key
contexts:
- name: $NODE@probelet-cp
  context:
    cluster: probelet-cp
    user: system:node:$NODE
current-context: $NODE@probelet-cp
KUBECONFIG
}

# write_config PORT HEALTHZ_PORT NODE_IP: the KubeletConfiguration (issue 30's list).
write_config() {
  cat >"$RUN_DIR/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $3
port: $1
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $2
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true, cacheTTL: 2m0s}
  x509: {clientCAFile: $RUN_DIR/pki/client-ca.crt}
authorization:
  mode: Webhook
  webhook: {cacheAuthorizedTTL: 5m0s, cacheUnauthorizedTTL: 30s}
containerRuntimeEndpoint: unix://$CRI_DIR/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
enforceNodeAllocatable: []
evictionHard: {memory.available: "1Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%", imagefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
makeIPTablesUtilChains: false
rotateCertificates: false
clusterDomain: cluster.local
clusterDNS: [10.96.0.10]
resolvConf: /etc/resolv.conf
podLogsDir: $RUN_DIR/pod-logs
volumePluginDir: $RUN_DIR/volume-plugins
EOF
  if [ "$SCHEDULABLE" != 1 ]; then
    printf 'registerWithTaints:\n- {key: probelet.dev/kubelet-anchor, effect: NoSchedule}\n' >>"$RUN_DIR/config.yaml"
  fi
}

# launch_kubelet: the kubelet detached from our stdout, logging to kubelet.log.
launch_kubelet() {
  local kubelet
  kubelet=$("$K8S_TOOLS" path kubelet 2>/dev/null) || die "the kubelet is not built (run: $0 build)"
  local mnt
  for mnt in $(accounting_mounts); do mkdir -p "$mnt$AGENT_CGROUP"; done
  # The subshell joins the agent cgroup, then becomes the kubelet.
  (
    for mnt in $(accounting_mounts); do echo "$BASHPID" >"$mnt$AGENT_CGROUP/cgroup.procs"; done
    exec "$kubelet" --config="$RUN_DIR/config.yaml" --kubeconfig="$RUN_DIR/kubeconfig" --hostname-override="$NODE" \
      --node-ip="$(cat "$RUN_DIR/node-ip")" --root-dir="$RUN_DIR/root" --cert-dir="$RUN_DIR/pki/serving" \
      --v="$VERBOSITY"
  ) </dev/null >>"$RUN_DIR/kubelet.log" 2>&1 &
  echo $! >"$RUN_DIR/kubelet.pid"
}

# healthz: the kubelet's own /healthz answers ok (a restarted kubelet's Node can still read Ready
# from before it was killed).
healthz() {
  local port
  port=$(sed -n 's/^healthzPort: //p' "$RUN_DIR/config.yaml")
  [ "$(curl -sf --max-time 2 "http://127.0.0.1:$port/healthz" 2>/dev/null)" = ok ]
}

# wait_ready: the kubelet's healthz answers and its Node is Ready, within 120 s, while it runs.
wait_ready() {
  local i t0
  t0=$(date +%s%N)
  for i in $(seq 1 600); do
    if healthz && node_ready; then
      log "node $NODE Ready $(( ($(date +%s%N) - t0) / 1000000 )) ms after the kubelet started (pid $(cat "$RUN_DIR/kubelet.pid"))"
      return 0
    fi
    # The recorded PID is the subshell until it execs the kubelet: alive, not kubelet_pid.
    alive "$(cat "$RUN_DIR/kubelet.pid")" || { grep -m 5 -E '^[EF][0-9]{4} ' "$RUN_DIR/kubelet.log" >&2 || tail -n 20 "$RUN_DIR/kubelet.log" >&2; die "the kubelet exited during start (log: $RUN_DIR/kubelet.log)"; }
    sleep 0.2
  done
  tail -n 20 "$RUN_DIR/kubelet.log" >&2
  die "node $NODE not Ready within 120 s (log: $RUN_DIR/kubelet.log)"
}

check_node_name() {
  [ ${#NODE} -le 200 ] || die "PROBELET_ANCHOR_NODE: Invalid value: \"${NODE:0:40}...\": must be no more than 200 characters"
  [[ "$NODE" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ ]] ||
    die "PROBELET_ANCHOR_NODE: Invalid value: \"$NODE\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
}

cmd_start() {
  [ "$(id -u)" = 0 ] || die "the kubelet anchor runs as root (run: sudo $0 start)"
  "$K8S_TOOLS" path kubelet >/dev/null 2>&1 || die "the kubelet is not built (run: $0 build)"
  for c in curl openssl flock node ip; do command -v "$c" >/dev/null 2>&1 || die "start needs $c"; done
  check_node_name
  [ -f "$CP_DIR/env.sh" ] && [ -f "$CP_DIR/pki/server-ca.key" ] ||
    die "no control plane in $CP_DIR (run: eval \"\$(scripts/control-plane.sh start)\", or set PROBELET_CP_DIR)"
  local pid
  if pid=$(kubelet_pid); then
    log "the kubelet already runs (pid $pid)"
    cmd_env
    return 0
  fi
  if [ -f "$RUN_DIR/.probelet-anchor" ] && [ -f "$RUN_DIR/config.yaml" ] && containerd_running; then
    # The kubelet was killed (an agent restart): the same state, certificates and ports.
    log "the kubelet is not running but its containerd is: starting it again on the same state"
    launch_kubelet
    wait_ready
    cmd_env
    return 0
  fi
  if [ -e "$RUN_DIR" ]; then
    [ -f "$RUN_DIR/.probelet-anchor" ] || die "$RUN_DIR exists and is not a kubelet anchor run directory: choose another PROBELET_ANCHOR_DIR"
    cmd_stop
  fi
  umask 077
  mkdir -p "$RUN_DIR"/{pki/serving,root,pod-logs,volume-plugins}
  : >"$RUN_DIR/.probelet-anchor"
  # A failed start ends what it started; the run directory stays for the logs until stop.
  trap 'stop_all; log "start failed: logs in $RUN_DIR"' EXIT
  local t0 port healthz node_ip mnt
  t0=$(date +%s%N)

  log "containerd in $CRI_DIR (pod subnet $SUBNET)"
  PROBELET_CRI_DIR="$CRI_DIR" PROBELET_CRI_CNI=1 PROBELET_CRI_SUBNET="$SUBNET" "$CONTAINERD_SH" start >"$RUN_DIR/cri.env"

  with_shared_lock record_sysctls
  for mnt in $(cgroup_mounts); do mkdir -p "$mnt$CGROUP_ROOT"; done

  read -r port healthz <<<"$(free_ports 2)"
  node_ip=$(host_ip)
  [ -n "$node_ip" ] || die "no non-loopback IPv4 address for the node IP"
  echo "$node_ip" >"$RUN_DIR/node-ip"
  node_identity
  write_config "$port" "$healthz" "$node_ip"
  launch_kubelet
  wait_ready
  {
    echo "export PROBELET_ANCHOR_DIR='$RUN_DIR'"
    echo "export PROBELET_ANCHOR_NODE='$NODE'"
    echo "export PROBELET_ANCHOR_KUBECONFIG='$RUN_DIR/kubeconfig'"
    echo "export PROBELET_ANCHOR_PID_FILE='$RUN_DIR/kubelet.pid'"
    echo "export PROBELET_ANCHOR_LOG='$RUN_DIR/kubelet.log'"
    echo "export PROBELET_ANCHOR_PORT='$port'"
    echo "export PROBELET_ANCHOR_HEALTHZ_PORT='$healthz'"
    echo "export PROBELET_ANCHOR_CGROUP_ROOT='$CGROUP_ROOT'"
    echo "export PROBELET_ANCHOR_AGENT_CGROUP='$AGENT_CGROUP'"
    echo "export PROBELET_ANCHOR_CRI_DIR='$CRI_DIR'"
    echo "export PROBELET_ANCHOR_CRI_SOCKET='$CRI_DIR/containerd.sock'"
    echo "export PROBELET_ANCHOR_SUBNET='$SUBNET'"
  } >"$RUN_DIR/env.sh"
  trap - EXIT
  log "running in $RUN_DIR (node $NODE, kubelet port $port), started in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  cmd_env
}

cmd_env() {
  [ -f "$RUN_DIR/env.sh" ] || die "no kubelet anchor in $RUN_DIR (run: $0 start)"
  cat "$RUN_DIR/env.sh"
  echo "export PROBELET_ANCHOR_PID='$(cat "$RUN_DIR/kubelet.pid")'"
}

cmd_status() {
  local pid ok=0
  if pid=$(kubelet_pid); then echo "kubelet running (pid $pid)"; else echo "kubelet not running"; ok=1; fi
  if containerd_running; then echo "containerd running (pid $(cat "$CRI_DIR/containerd.pid"))"; else echo "containerd not running"; ok=1; fi
  if [ -f "$RUN_DIR/kubeconfig" ] && [ -f "$CP_DIR/env.sh" ]; then
    if node_ready; then echo "node $NODE Ready"; else echo "node $NODE not Ready"; ok=1; fi
  fi
  return "$ok"
}

# ---- stop -------------------------------------------------------------------------------

# end_kubelet: SIGTERM to the kubelet, SIGKILL after 20 s.
end_kubelet() {
  local pid i
  pid=$(kubelet_pid) || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 200); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    log "the kubelet (pid $pid) did not exit within 20 s of SIGTERM: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  fi
  log "kubelet (pid $pid) stopped"
}

# remove_cgroups: processes left under the kubelet's cgroup root and its agent cgroup (the kubelet
# and its containerd are gone, so these are strays), then the cgroups, deepest first, in every
# hierarchy.
remove_cgroups() {
  local mnt dir p i
  for mnt in $(cgroup_mounts); do
    for dir in "$mnt$CGROUP_ROOT" "$mnt$AGENT_CGROUP"; do
      [ -d "$dir" ] && find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null
    done
  done | sort -u | while read -r p; do
    log "killing leftover process $p"
    kill -KILL "$p" 2>/dev/null || true
  done
  for dir in $(for mnt in $(cgroup_mounts); do echo "$mnt$CGROUP_ROOT" "$mnt$AGENT_CGROUP"; done); do
    remove_cgroup_tree "$dir" || log "could not remove cgroup $dir"
  done
}

# stop_all: every step goes on when one before it failed (safe after a half-finished start).
stop_all() {
  set +e
  end_kubelet
  if [ -d "$CRI_DIR" ]; then PROBELET_CRI_DIR="$CRI_DIR" "$CONTAINERD_SH" clean 2>&1 | sed 's/^/  /' >&2; fi
  remove_cgroups
  # Volumes the kubelet mounted (projected tokens, emptyDir tmpfs) under its root, deepest first.
  awk -v root="$RUN_DIR/" 'index($5, root) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null
  done
  if [ -d "$SHARED_DIR" ]; then with_shared_lock restore_sysctls; fi
  set -e
}

cmd_stop() {
  if [ -e "$RUN_DIR" ] && [ ! -f "$RUN_DIR/.probelet-anchor" ]; then
    die "$RUN_DIR is not a kubelet anchor run directory: not touching it"
  fi
  stop_all
  rm -rf "$RUN_DIR"
}

case "${1:-}" in
  build) "$K8S_TOOLS" build node ;;
  start) cmd_start ;;
  env) cmd_env ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  *)
    echo "usage: $0 build|start|env|status|stop" >&2
    exit 2
    ;;
esac
