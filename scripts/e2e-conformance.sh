#!/usr/bin/env bash
# Kubernetes' own node conformance suite (e2e.test v1.37, focus [NodeConformance]) against a
# probelet node, and against a real kubelet v1.37 node as the baseline: each target gets its own
# control plane, its own containerd with the suite's images imported (scripts/e2e-images.sh) and
# one node, then the ginkgo CLI runs the suite with --provider=skeleton. The reports (JUnit and
# ginkgo's JSON) are kept under the cache directory; the summary gives per group and in all
# "N passed, N failed, N skipped", and, with both targets, every spec whose result differs with
# its first failure line (docs/conformance.md).
#
#   scripts/e2e-conformance.sh [run]        build what is missing, run the targets, summarize;
#                                           exits 1 when a spec failed on probelet that the
#                                           kubelet passed (or, without the kubelet, any failure)
#   scripts/e2e-conformance.sh summary DIR [BASELINE_DIR]
#                                           summarize a kept report (and compare it)
#   scripts/e2e-conformance.sh stop         end what a killed run left (by recorded PIDs) and
#                                           remove its containerds, cgroups and bridges
#
# Options (environment):
#   PROBELET_E2E_TARGETS="probelet kubelet"  which nodes to run (default both; "probelet" alone
#                                  for CI); both at once with PROBELET_E2E_PARALLEL=1 (default:
#                                  one after the other, the kubelet first)
#   PROBELET_E2E_FOCUS=REGEX       ginkgo --focus (default '\[NodeConformance\]')
#   PROBELET_E2E_SKIP=REGEX        ginkgo --skip (default: Serial, Disruptive, Flaky, Alpha, and
#                                  on a cgroup v1 host the in-place pod resize specs, which the
#                                  kubelet fails there)
#   PROBELET_E2E_PROCS=N           ginkgo processes per target (default 4)
#   PROBELET_E2E_RUNTIME=cri       the probelet node's runtime: cri (default) or process
#   PROBELET_E2E_INSTANCE=NAME     names this run's control planes, containerds, work directory and
#                                  pod subnets (default e2e: /tmp/probelet-cp-e2e, /tmp/probelet-cri-e2e,
#                                  /tmp/probelet-e2e, 10.244.78.0/24; "-kubelet" and .79 for the
#                                  kubelet), so two runs can share the machine
#   PROBELET_E2E_DIR=DIR           work directory for node state and logs (default /tmp/probelet-<instance>)
#   PROBELET_CACHE_DIR=DIR         the cache (default /var/cache/probelet); reports go to
#                                  DIR/e2e-<version>/reports/<time>-[<instance>-]<target>/ (the last
#                                  of each is reports/last-[<instance>-]<target>)
#
# Every process the run starts is ended by its PID; the control planes, containerds, the
# kubelet's cgroup root and sysctls, and the CNI bridges are removed or restored on every exit.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=host-net.sh
. "$SCRIPT_DIR/host-net.sh"
# shellcheck source=scripts/cgroup-dirs.sh
. "$SCRIPT_DIR/cgroup-dirs.sh"
ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
K8S_TOOLS="$SCRIPT_DIR/k8s-tools.sh"
K8S_VERSION=$("$K8S_TOOLS" version | awk '$1 == "kubernetes" { print $2 }')
CACHE_DIR=${PROBELET_CACHE_DIR:-/var/cache/probelet}
CACHE_DIR=${CACHE_DIR%/}
REPORTS="$CACHE_DIR/e2e-${K8S_VERSION#v}/reports"
INSTANCE=${PROBELET_E2E_INSTANCE:-e2e}
[[ "$INSTANCE" =~ ^[a-z0-9][a-z0-9-]{0,30}$ ]] || { echo "e2e-conformance.sh: PROBELET_E2E_INSTANCE: Invalid value: \"$INSTANCE\": lowercase letters, digits and '-', at most 31" >&2; exit 1; }
WORK=${PROBELET_E2E_DIR:-/tmp/probelet-$INSTANCE}
WORK=${WORK%/}
TARGETS=${PROBELET_E2E_TARGETS:-kubelet probelet}
PARALLEL=${PROBELET_E2E_PARALLEL:-0}
FOCUS=${PROBELET_E2E_FOCUS:-'\[NodeConformance\]'}
# The in-place resize specs ("PLR Pod InPlace Resize", "Pod InPlace Resize Init Container": 128
# of v1.37.2's) fail on the kubelet itself on a cgroup v1 host; they stay in on cgroup v2.
SKIP_DEFAULT='\[Serial\]|\[Disruptive\]|\[Flaky\]|\[Alpha\]'
[ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] || SKIP_DEFAULT+='|Pod InPlace Resize'
SKIP=${PROBELET_E2E_SKIP:-$SKIP_DEFAULT}
PROCS=${PROBELET_E2E_PROCS:-4}
RUNTIME=${PROBELET_E2E_RUNTIME:-cri}

log() { printf 'e2e-conformance.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---- per-target names -------------------------------------------------------------------

# Each target has its own control plane, containerd, pod subnet and node name.
suffix() { if [ "$1" = kubelet ]; then echo "$INSTANCE-kubelet"; else echo "$INSTANCE"; fi; }
cp_dir() { echo "/tmp/probelet-cp-$(suffix "$1")"; }
cri_dir() { echo "/tmp/probelet-cri-$(suffix "$1")"; }
# The third octet: 78 and 79 for the default instance, an even pair from 100 to 198 for others.
subnet() {
  local base=78
  [ "$INSTANCE" = e2e ] || base=$((100 + ($(printf '%s' "$INSTANCE" | cksum | cut -d' ' -f1) % 50) * 2))
  if [ "$1" = kubelet ]; then echo "10.244.$((base + 1)).0/24"; else echo "10.244.$base.0/24"; fi
}
node_name() { echo "$1-e2e"; }
# Reports are <time>-<target>, or <time>-<instance>-<target> for another instance.
report_name() { if [ "$INSTANCE" = e2e ]; then echo "$1"; else echo "$INSTANCE-$1"; fi; }
# The kubelet's cgroup root: its own, made beforehand in every hierarchy (it removes pod
# cgroups it does not know under its root).
KUBELET_CGROUP_ROOT="/probelet-$INSTANCE-kubelet"
# The sysctls the kubelet sets at start (pkg/kubelet/cm/container_manager_linux.go
# setupKernelTunables): recorded before it starts, restored after it stopped.
KUBELET_SYSCTLS="vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes"

# ---- processes we start -----------------------------------------------------------------

# alive PID: the process exists and is not a zombie.
alive() {
  local state
  state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# recorded_pid FILE MATCH: the PID in FILE while that process's command line still contains
# MATCH (a recycled PID is never signalled).
recorded_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  case "$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" in *"$2"*) echo "$pid" ;; *) return 1 ;; esac
}

# end_pid FILE MATCH NAME [AGAIN]: SIGTERM, SIGKILL after 20 s, to the recorded process; with
# AGAIN, a second SIGTERM after that many seconds (probelet stops its pods at once then).
end_pid() {
  local pid i again=${4:-0}
  pid=$(recorded_pid "$1" "$2") || { rm -f "$1"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 200); do
    alive "$pid" || break
    if [ "$again" -gt 0 ] && [ "$i" = $((again * 10)) ]; then kill -TERM "$pid" 2>/dev/null || true; fi
    sleep 0.1
  done
  if alive "$pid"; then
    log "$3 (pid $pid) did not exit within 20 s of SIGTERM: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
  log "stopped $3 (pid $pid)"
}


# ---- the kubelet baseline node (scripts/kubelet-anchor.sh of issue 30 takes this over) -----

# start_kubelet DIR CP_DIR SOCKET NODE: kubelet v1.37 on its own containerd, with its own root
# directory, cgroup root, ports and pod log directory; its PID in DIR/kubelet.pid.
start_kubelet() {
  local dir=$1 cp=$2 sock=$3 node=$4 kubelet port healthz node_ip mnt name
  kubelet=$("$K8S_TOOLS" path kubelet) || die "the kubelet is not built (run: scripts/k8s-tools.sh build all)"
  read -r port healthz <<<"$(free_ports 2)"
  node_ip=$(host_ip)
  mkdir -p "$dir"/{root,pki,pod-logs,volume-plugins}
  # Kernel tunables first (restored by stop_kubelet), then the cgroup root in every hierarchy.
  for name in $KUBELET_SYSCTLS; do
    [ -f "/proc/sys/$name" ] && printf '%s %s\n' "$name" "$(cat "/proc/sys/$name")"
  done >"$dir/sysctls.orig"
  for mnt in $(cgroup_mounts); do mkdir -p "$mnt$KUBELET_CGROUP_ROOT"; done
  cat >"$dir/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
port: $port
healthzBindAddress: 127.0.0.1
healthzPort: $healthz
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $cp/pki/kubelet-client-ca.crt}
authorization:
  mode: AlwaysAllow
containerRuntimeEndpoint: unix://$sock
cgroupDriver: cgroupfs
cgroupRoot: $KUBELET_CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
enforceNodeAllocatable: []
evictionHard: {memory.available: "1Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
podLogsDir: $dir/pod-logs
volumePluginDir: $dir/volume-plugins
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
EOF
  "$kubelet" --config="$dir/config.yaml" --kubeconfig="$cp/kubeconfig/node-$node.kubeconfig" \
    --hostname-override="$node" --node-ip="$node_ip" --root-dir="$dir/root" --cert-dir="$dir/pki" --v=2 \
    </dev/null >>"$dir/kubelet.log" 2>&1 &
  echo $! >"$dir/kubelet.pid"
  log "kubelet $node started (pid $(cat "$dir/kubelet.pid"), port $port, log $dir/kubelet.log)"
}

# stop_kubelet DIR: the kubelet by its PID.
stop_kubelet() {
  end_pid "$1/kubelet.pid" "$1/config.yaml" kubelet
}

# restore_after_kubelet DIR (once its containerd is gone): processes left in its cgroup root, the
# cgroups themselves, mounts under its root directory, and the sysctls as they were.
restore_after_kubelet() {
  local dir=$1 mnt name value
  for mnt in $(cgroup_mounts); do
    [ -d "$mnt$KUBELET_CGROUP_ROOT" ] && find "$mnt$KUBELET_CGROUP_ROOT" -name cgroup.procs -exec cat {} + 2>/dev/null
  done | sort -u | while read -r p; do
    log "killing leftover kubelet pod process $p"
    kill -KILL "$p" 2>/dev/null
  done
  for mnt in $(cgroup_mounts); do
    remove_cgroup_tree "$mnt$KUBELET_CGROUP_ROOT" || log "could not remove cgroup $mnt$KUBELET_CGROUP_ROOT"
  done
  awk -v root="$dir/" 'index($5, root) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r mnt; do
    umount -l "$mnt" 2>/dev/null
  done
  if [ -f "$dir/sysctls.orig" ]; then
    while read -r name value; do
      if [ "$(cat "/proc/sys/$name")" != "$value" ]; then echo "$value" >"/proc/sys/$name" && log "restored $name = $value"; fi
    done <"$dir/sysctls.orig"
    rm -f "$dir/sysctls.orig"
  fi
  return 0
}

# ---- the probelet node ------------------------------------------------------------------

# start_probelet DIR CP_DIR SOCKET CGROUP_PARENT NODE: `probelet run --kubeconfig` on the CRI
# runtime (or the process runtime); its PID in DIR/probelet.pid.
start_probelet() {
  local dir=$1 cp=$2 sock=$3 cgroup=$4 node=$5 port runtime_args=()
  read -r port <<<"$(free_ports 1)"
  mkdir -p "$dir"
  if [ "$RUNTIME" = cri ]; then runtime_args=(--runtime cri --cri-socket "$sock"); else runtime_args=(--runtime process); fi
  PROBELET_CRI_CGROUP_PARENT="$cgroup" node "$ROOT/dist/src/cli/main.js" run \
    --kubeconfig "$cp/kubeconfig/node-$node.kubeconfig" --node-name "$node" --state-dir "$dir/state" \
    --listen 127.0.0.1:0 --kubelet-port "$port" --client-ca-file "$cp/pki/kubelet-client-ca.crt" \
    "${runtime_args[@]}" --log-level info --quiet </dev/null >>"$dir/probelet.log" 2>&1 &
  echo $! >"$dir/probelet.pid"
  log "probelet $node started (pid $(cat "$dir/probelet.pid"), $RUNTIME runtime, port $port, log $dir/probelet.log)"
}

# stop_probelet DIR: the agent by its PID (a second SIGTERM after 3 s: its pods are stopped at
# once, the containerd cleanup removes them anyway).
stop_probelet() {
  local tag ns
  end_pid "$1/probelet.pid" "$1/state" probelet 3
  # On the process runtime the agent made a bridge and network namespaces of its own
  # (src/runtime/process/pod-network.ts: plp<tag>, /run/probelet/<tag>/netns).
  tag=$(printf '%s' "$1/state" | sha256sum | cut -c1-8)
  for ns in /run/probelet/"$tag"/netns/*; do
    [ -e "$ns" ] || continue
    umount "$ns" 2>/dev/null
    rm -f "$ns"
  done
  rm -rf "/run/probelet/$tag"
  ip link del "plp$tag" 2>/dev/null || true
}

# ---- helpers ----------------------------------------------------------------------------

kubectl_() { "$("$K8S_TOOLS" path kubectl)" --kubeconfig "$1/kubeconfig/admin.kubeconfig" "${@:2}"; }

# wait_node_ready CP_DIR NODE PID_FILE LOG: the Node exists and is Ready within 120 s, while its
# agent runs.
wait_node_ready() {
  local cp=$1 node=$2 i
  for i in $(seq 1 600); do
    if [ "$(kubectl_ "$cp" get node "$node" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; then
      log "node $node Ready after $((i / 5)) s"
      return 0
    fi
    if ! alive "$(cat "$3")"; then tail -n 20 "$4" >&2; die "the agent of $node exited (log: $4)"; fi
    sleep 0.2
  done
  tail -n 20 "$4" >&2
  die "node $node not Ready within 120 s (log: $4)"
}

# ---- one target -------------------------------------------------------------------------

# run_target TARGET: control plane, containerd, node, the suite; the report into REPORT_DIR.
# Everything it started is ended by its EXIT trap, success or not.
run_target() {
  local target=$1 cp cri node dir report t0 rc=0
  cp=$(cp_dir "$target")
  cri=$(cri_dir "$target")
  node=$(node_name "$target")
  dir="$WORK/$target"
  report="$REPORTS/$STAMP-$(report_name "$target")"
  trap 'stop_target '"$target"'' EXIT
  trap 'exit 130' INT TERM
  rm -rf "$dir"
  mkdir -p "$dir" "$report"
  log "[$target] control plane in $cp"
  PROBELET_CP_DIR=$cp PROBELET_CP_NODES=$node "$SCRIPT_DIR/control-plane.sh" start >/dev/null
  log "[$target] containerd in $cri"
  PROBELET_CRI_DIR=$cri PROBELET_CRI_CNI=1 PROBELET_CRI_SUBNET=$(subnet "$target") PROBELET_CRI_NODE_IMAGE=0 \
    PROBELET_CRI_SANDBOX_IMAGE=$("$SCRIPT_DIR/e2e-images.sh" pause-image) "$SCRIPT_DIR/containerd.sh" start >"$dir/cri.env"
  "$SCRIPT_DIR/e2e-images.sh" import "$cri/containerd.sock"
  local cgroup
  cgroup=$(sed -n "s/^export PROBELET_CRI_CGROUP_PARENT='\(.*\)'$/\1/p" "$dir/cri.env")
  if [ "$target" = kubelet ]; then
    start_kubelet "$dir" "$cp" "$cri/containerd.sock" "$node"
    wait_node_ready "$cp" "$node" "$dir/kubelet.pid" "$dir/kubelet.log"
  else
    start_probelet "$dir" "$cp" "$cri/containerd.sock" "$cgroup" "$node"
    wait_node_ready "$cp" "$node" "$dir/probelet.pid" "$dir/probelet.log"
    # A process-runtime node is tainted probelet.dev/runtime=process:NoSchedule (docs/cluster.md);
    # the suite's pods tolerate no such taint, so this cluster's admin takes it off.
    if [ "$RUNTIME" = process ]; then kubectl_ "$cp" taint nodes "$node" probelet.dev/runtime- >/dev/null; fi
  fi
  t0=$(date +%s)
  log "[$target] running the suite (focus '$FOCUS', $PROCS processes; log $report/ginkgo.log)"
  (
    cd "$report"
    KUBE_TEST_REPO_LIST=$("$SCRIPT_DIR/e2e-images.sh" repo-list) "$("$K8S_TOOLS" path ginkgo)" \
      --procs="$PROCS" --timeout=4h --no-color --focus="$FOCUS" --skip="$SKIP" \
      --output-dir="$report" --junit-report=junit.xml --json-report=report.json \
      "$("$K8S_TOOLS" path e2e.test)" -- --provider=skeleton --kubeconfig="$cp/kubeconfig/admin.kubeconfig" \
      --kubectl-path="$("$K8S_TOOLS" path kubectl)" --report-dir="$report" </dev/null >"$report/ginkgo.log" 2>&1
  ) || rc=$?
  echo "$(( $(date +%s) - t0 ))" >"$report/seconds"
  log "[$target] suite finished in $(( $(date +%s) - t0 )) s (ginkgo exit $rc)"
  cp "$dir"/*.log "$report/" 2>/dev/null || true
  ln -sfn "$(basename "$report")" "$REPORTS/last-$(report_name "$target")"
}

# stop_target TARGET: the node, the containerd, the control plane; safe when half started or
# run twice (every step goes on when one before it failed).
stop_target() {
  set +e
  local target=$1 dir="$WORK/$1"
  if [ "$target" = kubelet ]; then stop_kubelet "$dir"; else stop_probelet "$dir"; fi
  PROBELET_CRI_DIR=$(cri_dir "$target") "$SCRIPT_DIR/containerd.sh" clean 2>&1 | sed 's/^/  /' >&2
  if [ "$target" = kubelet ]; then restore_after_kubelet "$dir"; fi
  PROBELET_CP_DIR=$(cp_dir "$target") "$SCRIPT_DIR/control-plane.sh" stop 2>&1 | sed 's/^/  /' >&2
  return 0
}

# ---- commands ---------------------------------------------------------------------------

summary() {
  node "$ROOT/dist/test/conformance/report-main.js" "$@"
}

cmd_run() {
  [ "$(id -u)" = 0 ] || die "the suite's nodes run as root (containerd, the kubelet)"
  [ -f "$ROOT/dist/src/cli/main.js" ] || die "probelet is not built (run: npm ci)"
  local t
  for t in $TARGETS; do case "$t" in probelet | kubelet) ;; *) die "PROBELET_E2E_TARGETS: unknown target '$t' (probelet, kubelet)" ;; esac; done
  case "$RUNTIME" in cri | process) ;; *) die "PROBELET_E2E_RUNTIME: unknown runtime '$RUNTIME' (cri, process)" ;; esac
  [[ "$PROCS" =~ ^[0-9]+$ ]] && [ "$PROCS" -ge 1 ] && [ "$PROCS" -le 16 ] || die "PROBELET_E2E_PROCS: Invalid value: \"$PROCS\": must be between 1 and 16"
  local set=e2e
  case " $TARGETS " in *" kubelet "*) set=all ;; esac
  "$K8S_TOOLS" build "$set"
  "$SCRIPT_DIR/e2e-images.sh" install
  "$SCRIPT_DIR/containerd.sh" install
  PROBELET_CRI_CNI=1 "$SCRIPT_DIR/containerd.sh" install
  "$SCRIPT_DIR/e2e-images.sh" build
  mkdir -p "$REPORTS" "$WORK"
  STAMP=$(date -u +%Y%m%d-%H%M%S)
  local pids=() rc=0 pid
  if [ "$PARALLEL" = 1 ]; then
    trap 'for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait' INT TERM
    for t in $TARGETS; do
      (run_target "$t") &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    trap - INT TERM
  else
    for t in $TARGETS; do (run_target "$t") || rc=1; done
  fi
  [ "$rc" = 0 ] || die "a target could not be run (see the logs above)"
  case " $TARGETS " in
    *" kubelet "*)
      case " $TARGETS " in
        *" probelet "*) summary "$REPORTS/$STAMP-$(report_name probelet)" "$REPORTS/$STAMP-$(report_name kubelet)" ;;
        *) summary "$REPORTS/$STAMP-$(report_name kubelet)" ;;
      esac ;;
    *) summary "$REPORTS/$STAMP-$(report_name probelet)" ;;
  esac
}

cmd_stop() {
  local t
  for t in kubelet probelet; do stop_target "$t"; done
}

case "${1:-run}" in
  run) cmd_run ;;
  summary) shift; summary "$@" ;;
  stop) cmd_stop ;;
  *)
    echo "usage: $0 [run] | summary DIR [BASELINE_DIR] | stop" >&2
    exit 2
    ;;
esac
