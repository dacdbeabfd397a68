#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check every patch of kernel/patches with the tree's checkpatch.pl and, with
# SERIES_BUILD=1, build the kernel at every commit of the series (slow: one
# incremental build per patch) to prove the series is bisectable.
#
#   series-check.sh TREE
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$1
allow=$top/kernel/checkpatch.allow
rc=0
n=0
for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/kernel/patches/series" | awk '{print $1}'); do
	n=$((n + 1))
	out=$(perl "$tree/scripts/checkpatch.pl" --no-tree --strict --terse \
		--show-types --ignore FILE_PATH_CHANGES,GIT_COMMIT_ID \
		"$top/kernel/patches/$p" 2>&1)
	# Drop the findings kernel/checkpatch.allow accepts for this patch.
	for t in $(awk -v p="${p#[0-9][0-9][0-9][0-9]-}" '$1 == p { print $2 }' "$allow" 2>/dev/null); do
		out=$(grep -v ": [A-Z]*:$t:" <<<"$out")
	done
	# ERRORs and WARNINGs fail; --strict CHECKs are listed for review
	# (the ones left are false positives on macros such as
	# KUNIT_ARRAY_PARAM and DECLARE_WORK).
	if grep -qE ': (ERROR|WARNING):' <<<"$out"; then
		echo "series-check: $p:"
		echo "$out"
		rc=1
	elif grep -q ': CHECK:' <<<"$out"; then
		echo "series-check: $p: ok ($(grep -c ': CHECK:' <<<"$out") CHECKs:" \
			"$(grep -o 'CHECK:[A-Z_]*' <<<"$out" | sort -u | tr '\n' ' '))"
	else
		echo "series-check: $p: ok"
	fi
done
echo "series-check: $n patches checked"

if [ "${SERIES_BUILD:-0}" = 1 ]; then
	obj=$top/build/obj-bisect
	orig=$(git -C "$tree" rev-parse HEAD)
	for c in $(git -C "$tree" rev-list --reverse pristine..HEAD); do
		git -C "$tree" checkout -q "$c"
		"$top/scripts/kernel-config.sh" "$tree" "$obj" "$top"/kernel/config/*.config &&
		make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" bzImage ||
			{ echo "series-check: build fails at $(git -C "$tree" log -1 --format='%h %s' "$c")"; rc=1; }
	done
	git -C "$tree" checkout -q asi 2>/dev/null || git -C "$tree" checkout -q "$orig"
fi
exit $rc
