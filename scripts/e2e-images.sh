#!/usr/bin/env bash
# The container images Kubernetes' node e2e specs run, built here without a registry and
# imported into a containerd's k8s.io namespace, so no pull is ever needed (docs/conformance.md).
# The e2e framework names its images from a registry list (KUBE_TEST_REPO_LIST, the RegistryList
# of test/utils/image/manifest.go); ours maps every registry to a localhost/... name, and the
# images are built under exactly those names:
#
#   localhost/e2e-test-images/agnhost:2.66.1, :2.55   scripts/k8s-tools.sh's static agnhost on a
#                                                     busybox root with bash, uid 1000 and gid 50000
#                                                     and porter's /localhost.crt and .key (from the
#                                                     module) as upstream's Dockerfile adds them
#   localhost/e2e-test-images/busybox:1.37.0-2        Debian's busybox-static
#   localhost/e2e-test-images/nginx:1.27.0-2          a stand-in: the busybox root serving
#                                                     /usr/share/nginx/html with busybox httpd on
#                                                     port 80 (the node specs only run a shell in it)
#   localhost/k8s/pause:3.10.2                        scripts/k8s-tools.sh's static pause, user 65535
#
#   scripts/e2e-images.sh install          apt-get install busybox-static bash-static (root)
#   scripts/e2e-images.sh build            build the image tarball into the cache (a no-op when its
#                                          inputs did not change)
#   scripts/e2e-images.sh import SOCKET    build if needed, then import into the containerd at SOCKET
#   scripts/e2e-images.sh repo-list        print the path of the registry list (KUBE_TEST_REPO_LIST)
#   scripts/e2e-images.sh pause-image      print the pause image's name (containerd's sandbox_image)
#   scripts/e2e-images.sh list             print the image names
#
# Options (environment):
#   PROBELET_CACHE_DIR=DIR   the cache (default /var/cache/probelet); this script owns
#                            DIR/e2e-<kubernetes version>/images/
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=deb-packages.sh
. "$SCRIPT_DIR/deb-packages.sh"
K8S_TOOLS="$SCRIPT_DIR/k8s-tools.sh"
K8S_VERSION=$("$K8S_TOOLS" version | awk '$1 == "kubernetes" { print $2 }')
CACHE_DIR=${PROBELET_CACHE_DIR:-/var/cache/probelet}
CACHE_DIR=${CACHE_DIR%/}
OUT="$CACHE_DIR/e2e-${K8S_VERSION#v}/images"

E2E_REPO=localhost/e2e-test-images
K8S_REPO=localhost/k8s
AGNHOST_TAGS="2.66.1 2.55"
BUSYBOX_TAGS="1.37.0-2"
NGINX_TAGS="1.27.0-2"
PAUSE_IMAGE="$K8S_REPO/pause:3.10.2"

log() { printf 'e2e-images.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# shellcheck source=scripts/oci-image.sh
. "$SCRIPT_DIR/oci-image.sh"

cmd_install() {
  local need=() pkg
  for pkg in busybox-static bash-static; do
    deb_installed "$pkg" || need+=("$pkg")
  done
  deb_install ${need[@]+"${need[@]}"}
}

# The registry list: every registry the framework knows, each a localhost/ name (the invalid
# one included: pulling from it fails, which is what the specs that use it expect).
write_repo_list() {
  mkdir -p "$OUT"
  cat >"$OUT/repo-list.yaml.new" <<EOF
promoterE2eRegistry: $E2E_REPO
buildImageRegistry: localhost/build-image
invalidRegistry: localhost/invalid-registry/invalid
gcEtcdRegistry: $K8S_REPO
gcRegistry: $K8S_REPO
sigStorageRegistry: localhost/sig-storage
privateRegistry: localhost/k8s-authenticated-test
dockerLibraryRegistry: localhost/library
cloudProviderGcpRegistry: localhost/cloud-provider-gcp
EOF
  mv "$OUT/repo-list.yaml.new" "$OUT/repo-list.yaml"
}

image_names() {
  local tag
  for tag in $AGNHOST_TAGS; do echo "$E2E_REPO/agnhost:$tag"; done
  for tag in $BUSYBOX_TAGS; do echo "$E2E_REPO/busybox:$tag"; done
  for tag in $NGINX_TAGS; do echo "$E2E_REPO/nginx:$tag"; done
  echo "$PAUSE_IMAGE"
}

# k8s_module_dir: the k8s.io/kubernetes module of tools/k8s in the Go module cache (downloaded
# when missing, as scripts/k8s-tools.sh does for pause.c).
k8s_module_dir() {
  local tools="$SCRIPT_DIR/../tools/k8s" dir
  dir=$(cd "$tools" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' k8s.io/kubernetes 2>/dev/null)
  if [ -z "$dir" ] || [ ! -d "$dir/test/images/agnhost/porter" ]; then
    (cd "$tools" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download k8s.io/kubernetes) >&2
    dir=$(cd "$tools" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' k8s.io/kubernetes)
  fi
  echo "$dir"
}

inputs_stamp() {
  {
    sha256sum "$SCRIPT_DIR/e2e-images.sh" "$SCRIPT_DIR/oci-image.sh" "$(readlink -f /bin/busybox)" /bin/bash-static \
      "$("$K8S_TOOLS" path agnhost)" "$("$K8S_TOOLS" path pause)" | cut -c1-64
  } | sha256sum | cut -c1-64
}

check_inputs() {
  [ -x /bin/busybox ] || die "busybox-static is not installed (run: $0 install)"
  [ -x /bin/bash-static ] || die "bash-static is not installed (run: $0 install)"
  "$K8S_TOOLS" path agnhost >/dev/null 2>&1 || die "agnhost is not built (run: scripts/k8s-tools.sh build e2e)"
  "$K8S_TOOLS" path pause >/dev/null 2>&1 || die "pause is not built (run: scripts/k8s-tools.sh build e2e)"
  command -v go >/dev/null 2>&1 || die "go is not installed (the agnhost image takes porter's certificate from the k8s.io/kubernetes module)"
}

# agnhost_rootfs DIR: busybox, /bin/bash, /agnhost (and /agnhost-2, which the entrypoint specs
# run), /uploads (netexec), and the user and group upstream's Dockerfile adds for the
# SupplementalGroups specs: user-defined-in-image (1000) in group-defined-in-image (50000).
agnhost_rootfs() {
  local root=$1
  busybox_base_rootfs "$root" \
    'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\nuser-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh\n' \
    'root:x:0:\nnogroup:x:65534:\nuser-defined-in-image:x:1000:\ngroup-defined-in-image:x:50000:user-defined-in-image\n'
  cp /bin/bash-static "$root/bin/bash"
  # porter's test certificate, which netexec serves HTTPS with (--tls-cert-file /localhost.crt).
  cp "$(k8s_module_dir)/test/images/agnhost/porter/localhost.crt" "$(k8s_module_dir)/test/images/agnhost/porter/localhost.key" "$root/"
  ln -s /bin/bash "$root/usr/bin/bash"
  cp "$("$K8S_TOOLS" path agnhost)" "$root/agnhost"
  ln -s agnhost "$root/agnhost-2"
  mkdir -p "$root/uploads" "$root/home/user-defined-in-image"
}

cmd_build() {
  check_inputs
  local stamp
  stamp=$(inputs_stamp)
  write_repo_list
  if [ -f "$OUT/images.tar" ] && [ "$(cat "$OUT/images.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "images up to date ($OUT)"
    return 0
  fi
  local build="$OUT/build" t0 bb layer_agnhost layer_pause layer_nginx tag
  t0=$(date +%s%N)
  oci_begin "$build"
  busybox_base_rootfs "$build/busybox" \
    'root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1:daemon:/usr/sbin:/bin/false\nbin:x:2:2:bin:/bin:/bin/false\nsys:x:3:3:sys:/dev:/bin/false\nwww-data:x:33:33:www-data:/var/www:/bin/false\nnobody:x:65534:65534:nobody:/home:/bin/false\n' \
    'root:x:0:\ndaemon:x:1:\nbin:x:2:\nsys:x:3:\nwww-data:x:33:\nnogroup:x:65534:\n'
  bb=$(layer "$build/busybox")
  for tag in $BUSYBOX_TAGS; do
    image "$E2E_REPO/busybox:$tag" '{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["sh"]}' "$bb" >/dev/null
  done
  mkdir -p "$build/nginx/usr/share/nginx/html"
  echo "probelet nginx stand-in" >"$build/nginx/usr/share/nginx/html/index.html"
  layer_nginx=$(layer "$build/nginx")
  for tag in $NGINX_TAGS; do
    image "$E2E_REPO/nginx:$tag" '{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["httpd","-f","-p","80","-h","/usr/share/nginx/html"],"ExposedPorts":{"80/tcp":{}}}' "$bb" "$layer_nginx" >/dev/null
  done
  agnhost_rootfs "$build/agnhost"
  layer_agnhost=$(layer "$build/agnhost")
  for tag in $AGNHOST_TAGS; do
    image "$E2E_REPO/agnhost:$tag" '{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":["/agnhost"],"Cmd":["pause"],"ExposedPorts":{"80/tcp":{},"8080/tcp":{},"8081/tcp":{},"9376/tcp":{},"5000/tcp":{}}}' "$layer_agnhost" >/dev/null
  done
  mkdir -p "$build/pause"
  cp "$("$K8S_TOOLS" path pause)" "$build/pause/pause"
  layer_pause=$(layer "$build/pause")
  image "$PAUSE_IMAGE" '{"User":"65535:65535","Entrypoint":["/pause"]}' "$layer_pause" >/dev/null
  oci_finish "$OUT/images.tar.new"
  mv "$OUT/images.tar.new" "$OUT/images.tar"
  echo "$stamp" >"$OUT/images.stamp"
  rm -rf "$build"
  log "built $(image_names | wc -l) images in $(( ($(date +%s%N) - t0) / 1000000 )) ms ($OUT/images.tar, $(du -m "$OUT/images.tar" | cut -f1) MB)"
}

cmd_import() {
  local sock=${1:-}
  [ -n "$sock" ] || die "usage: $0 import SOCKET"
  [ -S "$sock" ] || die "no containerd socket at $sock"
  cmd_build
  local t0
  t0=$(date +%s%N)
  ctr -a "$sock" -n k8s.io images import "$OUT/images.tar" >&2
  log "imported into $sock in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}

case "${1:-}" in
  install) cmd_install ;;
  build) cmd_build ;;
  import) cmd_import "${2:-}" ;;
  repo-list) write_repo_list; echo "$OUT/repo-list.yaml" ;;
  pause-image) echo "$PAUSE_IMAGE" ;;
  list) image_names ;;
  *)
    echo "usage: $0 install|build|import SOCKET|repo-list|pause-image|list" >&2
    exit 2
    ;;
esac
