# shellcheck shell=bash
# OCI image layouts built without a registry or a container engine, sourced by
# scripts/containerd.sh and scripts/e2e-images.sh: deterministic uncompressed layers, an image
# config and manifest per image, one index naming every image (io.containerd.image.name), packed
# into one tarball that `ctr images import` takes into containerd's k8s.io namespace.
#
#   oci_begin DIR                   start a layout in DIR/oci (DIR is emptied first)
#   layer ROOTFS                    add a layer; prints "sha256:<hex> <size>"
#   image NAME CONFIG LAYER...      add an image (CONFIG: the JSON of the config's "config")
#   oci_finish TARBALL              write the index and pack the layout into TARBALL
#   busybox_base_rootfs DIR [PASSWD GROUP]
#                                   busybox-static with every applet linked in /bin, /etc/passwd
#                                   and /etc/group (given, or root and nobody), /tmp 1777
#
# The caller defines die(); the functions use the globals OCI and INDEX.

OCI_ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
OCI=""
INDEX=""

# oci_begin DIR: an empty layout under DIR/oci.
oci_begin() {
  rm -rf "$1"
  OCI="$1/oci"
  INDEX=""
  mkdir -p "$OCI/blobs/sha256"
}

# blob FILE: moves FILE into the layout's blob store; prints "sha256:<hex> <size>".
blob() {
  local hex size
  hex=$(sha256sum "$1" | cut -c1-64)
  size=$(stat -c %s "$1")
  mv "$1" "$OCI/blobs/sha256/$hex"
  echo "sha256:$hex $size"
}

# layer DIR: a deterministic uncompressed tar of DIR (so its digest is also its diff_id), every
# file owned by root.
layer() {
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$1" -cf "$OCI/layer.tar" .
  blob "$OCI/layer.tar"
}

# image NAME CONFIG LAYER...: writes the config and manifest blobs, adds an index entry and
# prints NAME. CONFIG is the JSON of the image config's "config" object.
image() {
  local name=$1 config=$2 diff_ids="" layers="" l d s
  shift 2
  for l in "$@"; do
    read -r d s <<<"$l"
    diff_ids+="${diff_ids:+,}\"$d\""
    layers+="${layers:+,}{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"$d\",\"size\":$s}"
  done
  printf '{"architecture":"%s","os":"linux","config":%s,"rootfs":{"type":"layers","diff_ids":[%s]}}' \
    "$OCI_ARCH" "$config" "$diff_ids" >"$OCI/config.json"
  read -r d s <<<"$(blob "$OCI/config.json")"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"%s","size":%s},"layers":[%s]}' \
    "$d" "$s" "$layers" >"$OCI/manifest.json"
  read -r d s <<<"$(blob "$OCI/manifest.json")"
  INDEX+="${INDEX:+,}{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"$d\",\"size\":$s,"
  INDEX+="\"platform\":{\"architecture\":\"$OCI_ARCH\",\"os\":\"linux\"},"
  INDEX+="\"annotations\":{\"io.containerd.image.name\":\"$name\",\"org.opencontainers.image.ref.name\":\"${name##*:}\"}}"
  echo "$name"
}

# oci_finish TARBALL: the layout's index, packed.
oci_finish() {
  printf '{"imageLayoutVersion":"1.0.0"}' >"$OCI/oci-layout"
  printf '{"schemaVersion":2,"manifests":[%s]}' "$INDEX" >"$OCI/index.json"
  tar -C "$OCI" -cf "$1" oci-layout index.json blobs
}

# busybox_base_rootfs DIR [PASSWD GROUP]: busybox-static with one symlink per applet in /bin.
busybox_base_rootfs() {
  local root=$1 exe
  if ldd /bin/busybox >/dev/null 2>&1; then die "/bin/busybox is dynamically linked: install busybox-static"; fi
  mkdir -p "$root"/{bin,etc,proc,sys,dev,root,tmp,usr/bin,var}
  chmod 1777 "$root/tmp"
  # One symlink per applet in /bin (one process instead of one ln per applet). busybox links
  # to its own resolved path (/usr/bin/busybox with Debian's merged /usr), so the binary goes
  # there in the image too.
  exe=$(readlink -f /bin/busybox)
  /bin/busybox --install -s "$root/bin"
  rm -f "$root/bin/busybox"
  mkdir -p "$root$(dirname "$exe")"
  cp "$exe" "$root$exe"
  [ -L "$root/bin/busybox" ] || [ -e "$root/bin/busybox" ] || ln -s "$exe" "$root/bin/busybox"
  [ -L "$root/usr/bin/env" ] || [ -e "$root/usr/bin/env" ] || ln -s "$exe" "$root/usr/bin/env"
  printf '%b' "${2:-root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n}" >"$root/etc/passwd"
  printf '%b' "${3:-root:x:0:\nnogroup:x:65534:\n}" >"$root/etc/group"
}
