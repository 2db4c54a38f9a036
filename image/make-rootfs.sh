#!/usr/bin/env bash
# make-rootfs.sh [--force] BINARY DEST: DEST becomes the image's whole root filesystem, the
# runtime stage of the Dockerfile copies it onto `scratch` as it is, and test/e2e/test_image.py
# runs the binary from it alone (chroot), so a library or path missing here fails the suite and
# not a pod.
#
#   bin/karmada-policy-webhook     BINARY, mode 0755
#   bin/karmada-webhook            -> karmada-policy-webhook: upstream Karmada's installers all run
#                                  `command: [/bin/karmada-webhook, --flag=..., ...]`
#   <each path ldd prints>         the shared libraries BINARY links, as real files (the host may
#                                  reach them through symlinks such as Debian's /lib -> usr/lib;
#                                  the image gets real directories at the paths ldd prints)
#   <PT_INTERP path>               the dynamic loader, e.g. /lib64/ld-linux-x86-64.so.2
#   etc/passwd, etc/group          root and nonroot (65532), so the default USER has a name
#
# and nothing else: no shell or package manager for an intruder to use, no /tmp (the server
# writes nothing; the root filesystem may be read-only), no CA bundle (the kubeconfig carries its
# CA), no zoneinfo (the time zones are compiled into the binary). A static BINARY gets no
# libraries and no loader.
#
# DEST must be missing or empty; --force empties it first (never `/`). Exit status 2 on a usage
# error or refusal, 1 when BINARY needs a library that cannot be found.
set -euo pipefail
umask 022

prog=make-rootfs.sh
usage() {
  echo "usage: $prog [--force] BINARY DEST" >&2
  exit 2
}
die() {
  echo "$prog: $*" >&2
  exit "${status:-1}"
}

force=0
args=()
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    -h | --help) usage ;;
    -*) echo "$prog: unknown option $a" >&2; usage ;;
    *) args+=("$a") ;;
  esac
done
[ "${#args[@]}" -eq 2 ] || usage
binary="${args[0]}"
dest="${args[1]}"

status=2
[ -n "$dest" ] || die "DEST is an empty path"
if ! [ -f "$binary" ] || ! [ -x "$binary" ]; then
  die "$binary is not an executable file"
fi
command -v ldd >/dev/null || die "ldd is not installed (Debian: libc-bin)"
command -v readelf >/dev/null || die "readelf is not installed (Debian: binutils)"

binary_abs="$(realpath -- "$binary")"
dest_abs="$(realpath -m -- "$dest")"
[ "$dest_abs" != / ] || die "refusing to make a root filesystem in /"
case "$binary_abs" in
  "$dest_abs"/*) die "$binary lies inside $dest, which would be emptied first" ;;
esac
if [ -e "$dest_abs" ] && ! [ -d "$dest_abs" ]; then
  die "$dest exists and is not a directory"
fi

# Everything that can fail is read before DEST is touched.
status=1
# The libraries, as ldd resolves them on this machine: `name => /path (addr)`; the vDSO (no path)
# is the kernel's; the loader's own line (`/lib64/ld-... (addr)`) is taken from PT_INTERP below.
# ldd runs the loader on BINARY: its status is 1 for a static binary, so read the text instead.
ldd_out="$(LC_ALL=C ldd -- "$binary_abs" 2>&1 || true)"
static=0
if grep -Eq "not a dynamic executable|statically linked" <<<"$ldd_out"; then
  static=1
fi
if grep -q "=> not found" <<<"$ldd_out"; then
  die "$binary needs libraries this machine lacks: $(grep "=> not found" <<<"$ldd_out" \
    | awk '{print $1}' | paste -sd ' ')"
fi
libs=()
while read -r path; do
  libs+=("$path")
done < <(awk '$2 == "=>" && $3 ~ /^\// {print $3}' <<<"$ldd_out")
interp="$(LC_ALL=C readelf -lW -- "$binary_abs" \
  | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')"
# This machine's loader cannot read a binary of another architecture: ldd calls it static.
if [ "$static" -eq 1 ] && [ -n "$interp" ]; then
  die "ldd cannot read $binary, which asks for the loader $interp (another architecture?)"
fi
if [ -n "$interp" ] && ! [ -e "$interp" ]; then
  die "$binary asks for the loader $interp, which this machine lacks"
fi

status=2
if [ -d "$dest_abs" ] && [ -n "$(ls -A -- "$dest_abs")" ]; then
  [ "$force" -eq 1 ] || die "$dest exists and is not empty (--force empties it)"
  find "$dest_abs" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
fi

mkdir -p -- "$dest_abs/bin" "$dest_abs/etc"
chmod 0755 "$dest_abs"  # the image's /; a mktemp -d DEST is 0700
cp -- "$binary_abs" "$dest_abs/bin/karmada-policy-webhook"
chmod 0755 "$dest_abs/bin/karmada-policy-webhook"
ln -s karmada-policy-webhook "$dest_abs/bin/karmada-webhook"

copy_real() { # copy_real PATH MODE: the file PATH names (symlinks followed) at PATH inside DEST
  local target="$dest_abs$1"
  mkdir -p -- "$(dirname -- "$target")"
  cp -L -- "$1" "$target"
  chmod "$2" "$target"
}
for lib in "${libs[@]}"; do
  copy_real "$lib" 0644
done
# The kernel execs the loader (it needs the x bit) before any library is read.
if [ -n "$interp" ]; then
  copy_real "$interp" 0755
fi

# nologin need not exist: nothing logs in, the entries only give the uids names.
cat >"$dest_abs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin
EOF
cat >"$dest_abs/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
chmod 0644 "$dest_abs/etc/passwd" "$dest_abs/etc/group"

files="$(find "$dest_abs" \( -type f -o -type l \) | wc -l)"
bytes="$(find "$dest_abs" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
what="${#libs[@]} shared libraries${interp:+, loader $interp}"
echo "$dest: $files files ($what), $bytes bytes ($(numfmt --to=iec --suffix=B "$bytes"))"
