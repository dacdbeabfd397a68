#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test initramfs: Debian's static busybox, our /init and the given
# programs. Dynamically linked programs get the shared libraries they need
# copied next to them, as initramfs-tools' copy_exec does.
#
#   mkinitramfs.sh [-r TREE]... [-s SCRIPT]... OUTPUT.cpio.gz PROGRAM|DIRECTORY...
#     -r TREE   a prepared tree copied over / as it is (vm/mkpython.sh's)
#     -s SCRIPT a test script run by the guest's interpreter
#               (tests/system/guest-bin/), copied as it is to /usr/lib/asitest/
set -euo pipefail

trees=()
scripts=()
while getopts "r:s:" opt; do
	case $opt in
	r) trees+=("$OPTARG") ;;
	s) scripts+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
busybox=${BUSYBOX:-/bin/busybox}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

if ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs: $busybox is not statically linked (install busybox-static)" >&2
	exit 1
fi

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,lib,lib64}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "$here/init" "$root/init"
chmod 755 "$root/init"
cp "$here/motd" "$root/etc/motd"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

for tree in "${trees[@]}"; do
	cp -a "$tree/." "$root/"
done

for script in "${scripts[@]}"; do
	install -D -m 755 "$script" "$root/usr/lib/asitest/$(basename "$script")"
done

copy_with_libs() {
	local prog=$1 lib
	cp "$prog" "$root/usr/bin/"
	# "statically linked" / "not a dynamic executable" print no paths.
	for lib in $(ldd "$prog" 2>/dev/null | grep -o '/[^ ]*' || true); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

for prog in "$@"; do
	if [ -d "$prog" ]; then
		# A directory of static test programs: /usr/lib/<name>/, flat.
		dir=$root/usr/lib/$(basename "$prog")
		mkdir -p "$dir"
		find "$prog" -type f -perm -u+x ! -name '*.[od]' \
			-exec cp {} "$dir/" \;
		strip --strip-debug "$dir"/*
		continue
	fi
	copy_with_libs "$prog"
done

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
