# Cgroup helpers shared by containerd.sh, kubelet-anchor.sh and e2e-conformance.sh (sourced,
# never run):
#   cgroup_mounts          the mount points of every cgroup (v1) and cgroup2 hierarchy in our
#                          mount namespace
#   remove_cgroup_tree DIR removes DIR and the cgroups below it, deepest first, trying for 2 s
#                          while exiting processes leave them; returns 1 when DIR is still there

cgroup_mounts() {
  awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup" || $(i+1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | sort -u
}

remove_cgroup_tree() {
  local dir=$1 _
  [ -d "$dir" ] || return 0
  for _ in $(seq 1 20); do
    find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
    [ -d "$dir" ] || return 0
    sleep 0.1
  done
  return 1
}
