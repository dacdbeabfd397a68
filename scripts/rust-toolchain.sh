#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Provide the bindgen that Linux 6.12's Rust support needs (0.65.1 or
# newer) on Debian 12, whose own bindgen is 0.60.1. Debian 13's bindgen
# (with the glibc it needs) is downloaded from the system's Debian mirror,
# checked against Debian's archive keyring, and unpacked under DIR; nothing
# is installed system-wide. DIR/bindgen starts it through that glibc's own
# loader and finds Debian 12's libclang. The Rust compiler and its library
# source come from Debian 12 itself (rustc-web, rust-web-src: scripts/deps.sh).
# Idempotent: a second run only checks the wrapper. With "vars", prints
# the kernel make variables that use this toolchain instead.
#
#   rust-toolchain.sh [vars] DIR
set -euo pipefail

if [ "${1:-}" = vars ]; then
	# rustc-web's compiler, not one that rustup may put first on PATH.
	echo "RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc" \
	     "RUSTDOC=/usr/bin/rustdoc BINDGEN=${2:?usage: rust-toolchain.sh vars DIR}/bindgen"
	exit 0
fi
dir=$(mkdir -p "${1:?usage: rust-toolchain.sh [vars] DIR}" && cd "$1" && pwd)
wrapper=$dir/bindgen

if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
	exit 0
fi

apt_dir=$dir/apt-trixie
root=$dir/root
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	 tr ' ' '\n' | grep -v security | grep . | head -1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

echo "rust-toolchain: fetching Debian 13's bindgen from $mirror" >&2
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"
echo "deb [signed-by=$keyring] ${mirror%/} trixie main" >"$apt_dir/sources.list"
apt_opts=(-q -o Dir::State="$apt_dir" -o Dir::State::Lists="$apt_dir/lists"
	  -o Dir::State::status=/dev/null -o Dir::Cache="$apt_dir"
	  -o Dir::Cache::archives="$apt_dir/archives"
	  -o Dir::Etc::SourceList="$apt_dir/sources.list"
	  -o Dir::Etc::SourceParts=/dev/null)
apt-get "${apt_opts[@]}" update >/dev/null
# As root, apt downloads unsandboxed here (a directory _apt cannot write).
(cd "$apt_dir/debs" && rm -f ./*.deb &&
 apt-get "${apt_opts[@]}" -o APT::Sandbox::User=root \
	 download bindgen libc6 libgcc-s1 libstdc++6 >/dev/null)

rm -rf "$root"
mkdir -p "$root"
for deb in "$apt_dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$root"
done

libclang=
for d in $(ls -d /usr/lib/llvm-*/lib 2>/dev/null | sort -V); do
	if [ -e "$d/libclang.so.1" ] || [ -e "$d/libclang.so" ]; then
		libclang=$d
	fi
done
[ -n "$libclang" ] || { echo "rust-toolchain: no libclang (install libclang-dev)" >&2; exit 1; }
loader=$root/usr/lib64/ld-linux-x86-64.so.2
[ -e "$loader" ] || loader=$root/lib64/ld-linux-x86-64.so.2

cat >"$wrapper.tmp" <<EOF
#!/bin/sh
# Debian 13's bindgen on Debian 12 (scripts/rust-toolchain.sh)
export LIBCLANG_PATH="\${LIBCLANG_PATH:-$libclang}"
exec "$loader" --library-path "$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu" \\
	"$root/usr/bin/bindgen" "\$@"
EOF
chmod +x "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"
echo "rust-toolchain: $("$wrapper" --version), libclang in $libclang," \
     "$(/usr/bin/rustc --version)" >&2
