# Host network helpers shared by control-plane.sh, kubelet-anchor.sh and e2e-conformance.sh
# (sourced, never run):
#   free_ports N   N distinct loopback TCP ports that are free right now
#   host_ip        the first non-loopback IPv4 address (the kubelet refuses a loopback node IP;
#                  both agents report it as InternalIP)

free_ports() {
  node -e '
    const net = require("node:net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((ok) => s.listen(0, "127.0.0.1", () => ok(s.address().port)))))
      .then((ports) => { console.log(ports.join(" ")); servers.forEach((s) => s.close()); });
  ' "$1"
}

host_ip() {
  ip -4 -o addr show scope global | awk '{ sub(/\/.*/, "", $4); print $4; exit }'
}
