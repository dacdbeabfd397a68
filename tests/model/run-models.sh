#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Exhaustive SPIN searches of the ASI models (see README.md here):
#   run-models.sh [--trails] [RESULTS_DIR]
# Checks the properties that hold, that every mutant fails them (a model
# that cannot fail proves nothing), and that the code as it was before
# each fix the models found fails them too. --trails writes the shortest
# counterexample of each old-code check, readable, to
# RESULTS_DIR/model-trails/ (or keeps the work directory). With
# RESULTS_DIR, writes RESULTS_DIR/model.res as "model <passed> <failed>
# <skipped>". Exits non-zero on any failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
trails_wanted=0
results=
for arg; do
	case $arg in
	--trails) trails_wanted=1 ;;
	-h|--help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
	[ $trails_wanted -eq 1 ] && trails=$results/model-trails && mkdir -p "$trails"
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
#           old: the code before a fix, must find an error (breadth
#           first, for the shortest counterexample)
check()
{
	local name=$1 prop=$2 model=$3 kind=$4 expect=$5
	shift 5
	local defs="$*" dir log cflags panflags
	local t0 t1 secs states errors verdict reason=

	dir=$work/$name.${prop//[^A-Za-z0-9_]/_}
	mkdir -p "$dir"
	cp "$here/$model.pml" "$dir/"
	log=$dir/pan.log
	cflags="$CFLAGS_COMMON"
	case $kind in
	safety)
		cflags="$cflags -DSAFETY -DNOCLAIM"
		# A counterexample as short as can be, for the trail.
		if [ $expect = old ]; then
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
		pass) [ "$errors" -eq 0 ] || reason="$errors error(s)" ;;
		fail|old) [ "$errors" -gt 0 ] || reason="no counterexample" ;;
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
	# Keep the counterexample of the old code, readable.
	if [ $expect = old ] && [ $trails_wanted -eq 1 ] &&
	   [ "${errors:-0}" -gt 0 ]; then
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
check asi-vmx   "MUTANT_NO_NMI_RECORD must fail" asi safety fail -DMUTANT_NO_NMI_RECORD
check asi-vmx   "old code: nmi-in-asi-enter" asi safety old -DBUG_NMI_ENTER
check asi-stress "old code: nmi-in-asi-enter" asi safety old -DTASK_STRESS -DBUG_NMI_ENTER
check asi-vmx   "old code: nmi-before-pf-check" asi safety old -DBUG_NMI_PF
check asi-vmx   "old code: live-cr3-walk" asi safety old -DBUG_LIVE_CR3_WALK
check asi-stress "old code: live-cr3-walk" asi safety old -DTASK_STRESS -DBUG_LIVE_CR3_WALK
check asi-vmx   "old code: entry-fault-no-flush" asi safety old -DBUG_ENTRY_FAULT
check asi-vmx   "old code: entry-fault-stale-host-cr3" asi safety old -DBUG_ENTRY_FAULT -DNO_FLUSH_CHECK

# Two SMT siblings stunning each other (stun.pml).
check stun "mutual exclusion, no deadlock" stun safety pass
check stun "unstun0 (cpu0 not stunned forever)" stun live:unstun0 pass
check stun "unstun1 (cpu1 not stunned forever)" stun live:unstun1 pass
check stun "MUTANT_SKIP_UNSTUN must fail unstun1" stun live:unstun1 fail -DMUTANT_SKIP_UNSTUN
check stun "MUTANT_NO_STUN_IPI must fail" stun safety fail -DMUTANT_NO_STUN_IPI
check stun "MUTANT_EXEMPT_STUNNING must fail" stun safety fail -DMUTANT_EXEMPT_STUNNING
check stun "old code: sibling-list-at-first-load" stun safety old -DBUG_HOTPLUG_SETUP
check stun "old code: online-siblings-at-stun" stun safety old -DBUG_ONLINE_SIBLINGS
check stun "old code: stun-after-vcpu-put" stun live:unstun1 old -DBUG_PUT_THEN_EXIT
check stun "old code: restun-while-waiting" stun live:unstun1 old -DBUG_WAIT_RESTUN
check stun "old code: trace-before-stun" stun safety old -DBUG_TRACE_BEFORE_HOOK
check stun "old code: no-wait-for-guest-exit" stun safety old -DBUG_NO_WAIT
check stun "old code: early-release" stun safety old -DBUG_EARLY_RELEASE

echo "model: $pass passed, $fail failed, $skip skipped in $(( $(date +%s) - start )) s"
[ $keep -eq 1 ] && echo "model: pan files and logs kept in $work"
[ $trails_wanted -eq 1 ] && echo "model: counterexample trails in $trails"
[ -n "$results" ] && echo "model $pass $fail $skip" >"$results/model.res"
[ $fail -eq 0 ]
