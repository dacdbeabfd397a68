#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Exhaustive SPIN searches of the ASI models (see README.md here):
#   run-models.sh [--bugs] [RESULTS_DIR]
# Checks the properties that hold, and that every mutant fails them (a
# model that cannot fail proves nothing). The known bugs are reported as
# skipped; --bugs also reproduces their counterexamples (trails written
# next to model.res, or kept in the work directory) and checks the fixes
# README.md proposes. With RESULTS_DIR, writes RESULTS_DIR/model.res as
# "model <passed> <failed> <skipped>". Exits non-zero on any failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bugs=0
results=
for arg; do
	case $arg in
	--bugs) bugs=1 ;;
	-h|--help) sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-models.sh: unknown option $arg" >&2; exit 2 ;;
	*) results=$arg ;;
	esac
done

for tool in spin gcc; do
	if ! command -v $tool >/dev/null; then
		echo "model: $tool not found (apt-get install -y spin gcc)" >&2
		exit 2
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/asi-model.XXXXXX")
keep=0
cleanup() { [ $keep -eq 1 ] || rm -rf "$work"; }
trap cleanup EXIT
trails=$work
if [ -n "$results" ]; then
	mkdir -p "$results"
	[ $bugs -eq 1 ] && trails=$results/model-trails && mkdir -p "$trails"
fi

# Bounded memory for every search; each model's depth limit is well above
# the depth it reaches, and "max search depth too small" fails the check.
CFLAGS_COMMON="-O2 -w -DMEMLIM=2048"
declare -A DEPTH=([asi]=10000 [stun]=500000)

pass=0 fail=0 skip=0

# check NAME PROPERTY MODEL KIND EXPECT [-DMACRO...]
#   KIND    safety (assertions, invalid end states) or live:CLAIM (an ltl
#           claim, acceptance cycles under weak fairness, asserts off)
#   EXPECT  pass: no error; fail: a mutant, must find an error;
#           bug: a known bug, skipped unless --bugs, then must find one;
#           fix: a proposed fix, only with --bugs, must find none
check()
{
	local name=$1 prop=$2 model=$3 kind=$4 expect=$5
	shift 5
	local defs="$*" dir log cflags panflags
	local t0 t1 secs states errors verdict reason=

	case $expect in
	bug) if [ $bugs -eq 0 ]; then
		echo "model: $name: $prop: SKIP (known bug, README.md; run-models.sh --bugs)"
		skip=$((skip + 1))
		return
	     fi ;;
	fix) [ $bugs -eq 1 ] || return ;;
	esac

	dir=$work/$name.${prop//[^A-Za-z0-9_]/_}
	mkdir -p "$dir"
	cp "$here/$model.pml" "$dir/"
	log=$dir/pan.log
	cflags="$CFLAGS_COMMON"
	case $kind in
	safety)
		cflags="$cflags -DSAFETY -DNOCLAIM"
		# A counterexample as short as can be, for the trail.
		if [ $expect = bug ]; then
			cflags="$cflags -DBFS"
			panflags="-n"
		else
			cflags="$cflags -DCOLLAPSE"
			panflags="-n -m${DEPTH[$model]}"
		fi ;;
	live:*)
		cflags="$cflags -DNFAIR=3 -DCOLLAPSE"
		panflags="-n -m${DEPTH[$model]} -a -f -A -N ${kind#live:}" ;;
	esac

	if ! (cd "$dir" && spin -a $defs $model.pml >spin.log 2>&1 &&
	      gcc $cflags -o pan pan.c >gcc.log 2>&1); then
		echo "model: $name: $prop: FAIL (spin -a or gcc failed, see below)"
		cat "$dir/spin.log" "$dir/gcc.log" 2>/dev/null | tail -20
		fail=$((fail + 1))
		keep=1
		return
	fi
	t0=$(date +%s.%N)
	(cd "$dir" && ./pan $panflags >"$log" 2>&1)
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	states=$(awk '/states, stored/ { print $1; exit }' "$log")
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | head -1)

	if [ -z "$errors" ] || [ -z "$states" ]; then
		reason="no result from pan"
	elif grep -q "max search depth too small" "$log"; then
		reason="max search depth too small"
	elif grep -qi "out of memory\|memory limit" "$log"; then
		reason="out of memory"
	elif [[ $kind == live:* ]] && ! grep -qE "acceptance +cycles.*\+ \(fairness enabled\)" "$log"; then
		reason="not a fair acceptance-cycle search"
	fi
	if [ -z "$reason" ]; then
		case $expect in
		pass|fix) [ "$errors" -eq 0 ] || reason="$errors error(s)" ;;
		fail|bug) [ "$errors" -gt 0 ] || reason="no counterexample" ;;
		esac
	fi

	if [ -z "$reason" ]; then
		verdict=PASS
		pass=$((pass + 1))
	else
		verdict=FAIL
		fail=$((fail + 1))
		keep=1
	fi
	echo "model: $name: $prop: $verdict (${states:-?} states, $secs s)${reason:+: $reason}"
	if [ $verdict = FAIL ]; then
		grep -E "violated|cycle|error|depth" "$log" | head -5 | sed 's/^/    /'
		echo "    log: $log"
	fi
	# Keep the counterexample of a known bug, readable.
	if [ $expect = bug ] && [ "${errors:-0}" -gt 0 ]; then
		(cd "$dir" && spin -t -p -g $defs $model.pml) \
			>"$trails/$name.${prop// /-}.trail.txt" 2>&1
		[ "$trails" = "$work" ] && keep=1
	fi
}

start=$(date +%s)

# One CPU's enter/exit/target machine (asi.pml).
check asi-vmx   "invariants" asi safety pass
check asi-stress "invariants" asi safety pass -DTASK_STRESS
check asi-vmx   "MUTANT_NO_INTR_RESTORE must fail" asi safety fail -DMUTANT_NO_INTR_RESTORE
check asi-vmx   "MUTANT_NO_NEST_SWITCH must fail" asi safety fail -DMUTANT_NO_NEST_SWITCH
check asi-vmx   "MUTANT_EXIT_CURR_FIRST must fail" asi safety fail -DMUTANT_EXIT_CURR_FIRST
check asi-vmx   "MUTANT_ENTER_CR3_FIRST must fail" asi safety fail -DMUTANT_ENTER_CR3_FIRST
check asi-vmx   "bug nmi-in-asi-enter" asi safety bug -DBUG_NMI_ENTER
check asi-vmx   "bug nmi-before-pf-check" asi safety bug -DBUG_NMI_PF
check asi-vmx   "bug entry-fault-no-flush" asi safety bug -DENTRY_FAULT
check asi-vmx   "bug entry-fault-stale-host-cr3" asi safety bug -DENTRY_FAULT -DNO_FLUSH_CHECK
check asi-vmx   "fix nmi windows" asi safety fix \
	-DBUG_NMI_ENTER -DFIX_NMI_ENTER -DBUG_NMI_PF -DFIX_NMI_PF
check asi-stress "fix nmi windows" asi safety fix -DTASK_STRESS \
	-DBUG_NMI_ENTER -DFIX_NMI_ENTER -DBUG_NMI_PF -DFIX_NMI_PF

# Two SMT siblings stunning each other (stun.pml).
check stun "mutual exclusion, no deadlock" stun safety pass
check stun "unstun0 (cpu0 not stunned forever)" stun live:unstun0 pass
check stun "unstun1 (cpu1 not stunned forever)" stun live:unstun1 pass
check stun "MUTANT_SKIP_UNSTUN must fail unstun1" stun live:unstun1 fail -DMUTANT_SKIP_UNSTUN
check stun "MUTANT_NO_STUN_IPI must fail" stun safety fail -DMUTANT_NO_STUN_IPI
check stun "bug hotplug-sibling-list" stun safety bug -DBUG_HOTPLUG_SETUP
check stun "bug stun-after-vcpu-put" stun live:unstun1 bug -DBUG_PUT_THEN_EXIT
check stun "bug restun-while-waiting" stun live:unstun1 bug -DBUG_WAIT_RESTUN
check stun "bug trace-before-stun" stun safety bug -DTRACE_BEFORE_HOOK
check stun "bug early-release" stun safety bug -DEARLY_RELEASE
check stun "fix hotplug-sibling-list" stun safety fix -DBUG_HOTPLUG_SETUP -DFIX_HOTPLUG
check stun "fix stun-after-vcpu-put" stun safety fix -DBUG_PUT_THEN_EXIT -DFIX_PUT
check stun "fix stun-after-vcpu-put unstun1" stun live:unstun1 fix -DBUG_PUT_THEN_EXIT -DFIX_PUT
check stun "fix restun-while-waiting" stun safety fix -DBUG_WAIT_RESTUN -DFIX_WAIT_RESTUN
check stun "fix restun-while-waiting unstun1" stun live:unstun1 fix -DBUG_WAIT_RESTUN -DFIX_WAIT_RESTUN

echo "model: $pass passed, $fail failed, $skip skipped in $(( $(date +%s) - start )) s"
[ $keep -eq 1 ] && echo "model: pan files and logs kept in $work"
[ $bugs -eq 1 ] && echo "model: counterexample trails in $trails"
[ -n "$results" ] && echo "model $pass $fail $skip" >"$results/model.res"
[ $fail -eq 0 ]
