#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the series as a maintainer would before taking it:
#  1. checkpatch.pl --strict on every patch of kernel/patches (findings that
#     kernel/checkpatch.allow lists, with their reasons, are accepted);
#  2. unless SERIES_BUILD=0, build the kernel at every commit of the series
#     with the project config (bisectable), then the last commit with
#     CONFIG_ADDRESS_SPACE_ISOLATION=n and with CONFIG_KVM=m.
# The builds run in a worktree of their own (build/linux-bisect), so the
# work tree and its objects are left alone. A tree that built before with
# the same config is not built again (build/series-check.done, and
# kernel/series-check.done: what an earlier run recorded and was committed),
# so a run that was stopped resumes where it was. Prints its figures.
#
#   series-check.sh TREE
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$1
allow=$top/kernel/checkpatch.allow
jobs=${JOBS:-$(nproc)}
rc=0
n=0
nerr=0
nwarn=0
nchk=0
t0=$(date +%s)

for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/kernel/patches/series" | awk '{print $1}'); do
	n=$((n + 1))
	out=$(perl "$tree/scripts/checkpatch.pl" --no-tree --strict --terse \
		--show-types --ignore FILE_PATH_CHANGES,GIT_COMMIT_ID \
		"$top/kernel/patches/$p" 2>&1)
	# Drop the findings kernel/checkpatch.allow accepts for this patch.
	for t in $(awk -v p="${p#[0-9][0-9][0-9][0-9]-}" '$1 == p { print $2 }' "$allow" 2>/dev/null); do
		out=$(grep -v ": [A-Z]*:$t:" <<<"$out")
	done
	e=$(grep -c ': ERROR:' <<<"$out")
	w=$(grep -c ': WARNING:' <<<"$out")
	c=$(grep -c ': CHECK:' <<<"$out")
	nerr=$((nerr + e)) nwarn=$((nwarn + w)) nchk=$((nchk + c))
	# ERRORs and WARNINGs fail; --strict CHECKs are listed for review
	# (the ones left are false positives on macros such as
	# KUNIT_ARRAY_PARAM and DECLARE_WORK).
	if [ "$e" -gt 0 ] || [ "$w" -gt 0 ]; then
		echo "series-check: $p:"
		echo "$out"
		rc=1
	elif [ "$c" -gt 0 ]; then
		echo "series-check: $p: ok ($c CHECKs:" \
			"$(grep -o 'CHECK:[A-Z_]*' <<<"$out" | sort -u | tr '\n' ' '))"
	else
		echo "series-check: $p: ok"
	fi
done
t1=$(date +%s)
summary="series-check: $n patches; checkpatch --strict: $nerr errors, $nwarn warnings, $nchk checks ($((t1 - t0)) s)"

if [ "${SERIES_BUILD:-1}" = 0 ]; then
	echo "$summary"
	exit $rc
fi

wt=$top/build/linux-bisect
log=$top/build/series-check.log
: >"$log"
if [ ! -d "$wt" ]; then
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" HEAD || exit 1
fi
commits=$(git -C "$tree" rev-list --reverse pristine..HEAD)
tip=$(git -C "$tree" rev-parse HEAD)
builds=0
bad=0
kwarn=0

# One build of the work tree at its checkout: OBJ, then config tweaks
# (scripts/config arguments) applied to the project config of the tip.
build() {
	local obj=$1 what=$2 out s key
	shift 2
	key="$(git -C "$wt" rev-parse 'HEAD^{tree}') $cfg_hash $*"
	if grep -qxF "$key" "$done_file" "$done_kept" 2>/dev/null; then
		echo "series-check: built before: $what"
		builds=$((builds + 1))
		return 0
	fi
	mkdir -p "$obj"
	cp "$base_config" "$obj/.config"
	[ $# -gt 0 ] && "$wt/scripts/config" --file "$obj/.config" "$@"
	s=$(date +%s)
	out=$(make -C "$wt" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		LOCALVERSION= -j"$jobs" olddefconfig bzImage \
		$(grep -q '^CONFIG_MODULES=y' "$obj/.config" && echo modules) 2>&1)
	local st=$?
	{ echo "=== $what"; echo "$out"; } >>"$log"
	local w
	w=$(grep -c 'warning:' <<<"$out")
	kwarn=$((kwarn + w))
	builds=$((builds + 1))
	if [ $st -ne 0 ]; then
		echo "series-check: build fails: $what"
		grep -E 'error|Error' <<<"$out" | head -20
		bad=$((bad + 1))
		rc=1
	else
		echo "series-check: built $what in $(($(date +%s) - s)) s, $w warnings"
		[ "$w" -eq 0 ] && echo "$key" >>"$done_file"
	fi
	[ "$w" -gt 0 ] && grep 'warning:' <<<"$out" | head -10
	return 0
}

# The project config, generated once at the tip; each commit runs
# olddefconfig on it (options a commit does not know yet are dropped).
# Commits are built without Rust: with no Rust toolchain variables on its
# command line, olddefconfig drops CONFIG_RUST. "make kernel" builds the
# tip with it.
git -C "$wt" checkout -q --detach "$tip"
"$top/scripts/kernel-config.sh" "$wt" "$top/build/obj-bisect-config" \
	"$top"/kernel/config/*.config >/dev/null || exit 1
base_config=$top/build/obj-bisect-config/.config
cfg_hash=$(sha256sum <"$base_config" | cut -c1-16)
done_file=$top/build/series-check.done
# Builds recorded by an earlier run and committed with the series: keyed by
# tree and config, so a changed commit is built again.
done_kept=$top/kernel/series-check.done

i=0
for c in $commits; do
	i=$((i + 1))
	git -C "$wt" checkout -q --detach "$c"
	build "$top/build/obj-bisect" "$i/$n $(git -C "$wt" log -1 --format='%h %s' "$c")"
done
git -C "$wt" checkout -q --detach "$tip"
build "$top/build/obj-noasi" "tip with CONFIG_ADDRESS_SPACE_ISOLATION=n" \
	--disable ADDRESS_SPACE_ISOLATION
build "$top/build/obj-kvm-m" "tip with CONFIG_KVM=m" \
	--enable MODULES --module KVM --module KVM_INTEL --module KVM_AMD
t2=$(date +%s)
echo "$summary"
echo "series-check: $builds builds ($bad failed), $kwarn compiler warnings, $((t2 - t1)) s; log in $log"
exit $rc
