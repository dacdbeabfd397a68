#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate OBJ/.config = tinyconfig + our fragments, then check that every
# option the fragments ask for survived olddefconfig. Regenerated only when
# a fragment or the tree's Kconfig files changed, so that a warm build does
# not redo it.
#
#   kernel-config.sh TREE OBJ FRAGMENT...
set -euo pipefail

tree=$1 obj=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
stamp=$obj/.asi-config-stamp

hash=$( {
	cat "$@"
	git -C "$tree" rev-parse HEAD
	git -C "$tree" diff HEAD -- '*Kconfig*'
} | sha256sum | cut -d' ' -f1)

if [ -f "$obj/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
	exit 0
fi

mkdir -p "$obj"
echo "kernel-config: tinyconfig + ${*##*/}" >&2
# Kconfig asks the Rust toolchain whether CONFIG_RUST can be set.
read -ra rust_vars < <("$here/rust-toolchain.sh" vars "$here/../build/rust")
make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC=/usr/lib/ccache/gcc \
	"${rust_vars[@]}" tinyconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" >/dev/null
make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC=/usr/lib/ccache/gcc \
	"${rust_vars[@]}" olddefconfig
"$here/check-config.sh" "$obj/.config" "$@"
echo "$hash" >"$stamp"
