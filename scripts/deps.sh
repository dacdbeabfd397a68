#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build and the tests need. Idempotent: apt
# runs only when something is missing.
set -euo pipefail

pkgs=(
	# kernel tree and build
	linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
	cpio dwarves ccache xz-utils git rsync perl python3
	# in-kernel Rust: the compiler and its library source; libclang for
	# bindgen (Debian 13's, fetched by scripts/rust-toolchain.sh)
	rustc-web rust-web-src libclang-dev
	# VM; Bochs for VMX and PCID (a GRUB ISO boots the kernel there)
	qemu-system-x86 busybox-static
	bochs bochs-term bochsbios vgabios grub-pc-bin grub-common xorriso mtools
	# userspace: asictl, unit tests; its fuzz targets (make fuzz) and
	# the check of its man page
	libmnl-dev libcmocka-dev pkg-config clang libclang-rt-14-dev groff-base
	# system tests (stress-ng runs inside the guest)
	python3-pytest python3-pexpect stress-ng
	# protocol models (tests/model)
	spin
	# the guest's Python runtime and YNL (vm/mkpython.sh); ynl-gen-c.py
	python3-yaml python3-jsonschema
)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

echo "deps: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
