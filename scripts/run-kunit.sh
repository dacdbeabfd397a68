#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel with KUnit enabled, once per configuration (the suites run
# during boot, then /init powers off), parse the KTAP output with the tree's
# own tools/testing/kunit/kunit.py, count its JSON (scripts/kunit-counts.py)
# and fail on any failure, crash or splat. With PERF_BZIMAGE, the
# measurement kernel also runs the suites of the run-time marks: it has no
# Rust, so its set of marks is the C one (marks_set.c), which the test
# kernel, with the Rust set, does not build.
#
#   run-kunit.sh TREE LOGDIR RESULTS [PERF_BZIMAGE]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$1 logs=$2 results=$3 perf=${4:-}
mkdir -p "$logs" "$results"
patterns=$top/tests/splat-patterns.txt
timeout=${KUNIT_TIMEOUT:-600}

pass=0 fail=0 skip=0 rc=0
# name:kernel arguments. -cpu max has LA57, so the first boot uses 5-level
# paging; no5lvl covers 4-level. The first also runs kmemleak: /init scans
# after the suites and any unreferenced object fails the run.
runs=("asi-on:asi=on kmemleak=on" "asi-on-4level:asi=on no5lvl" "asi-off:asi=off")
[ -n "$perf" ] && runs+=("c-marks:asi=on kunit.filter_glob=asi_mark*")
for run in "${runs[@]}"; do
	name=${run%%:*} args=${run#*:}
	kernel=()
	[ "$name" = c-marks ] && kernel=(-k "$perf")
	log=$logs/kunit-$name.log
	parsed=$logs/kunit-$name.parsed
	json=$logs/kunit-$name.json
	echo "== kunit: booting with '$args' (console log: $log)"
	rm -f "$log" "$json"
	start=$(date +%s)
	timeout "$timeout" "$top/vm/run-qemu.sh" "${kernel[@]}" -m kunit -a "$args" -l "$log" \
		</dev/null >/dev/null 2>"$logs/kunit-$name.qemu.err"
	qrc=$?
	echo "kunit: $name boot and run took $(( $(date +%s) - start )) s"

	# The parser's report for people; its JSON for the counts.
	python3 "$tree/tools/testing/kunit/kunit.py" parse --json="$json" "$log" \
		>"$parsed" 2>&1
	krc=$?
	cat "$parsed"
	p=0 f=0 s=0
	if [ -s "$json" ] && counts=$(python3 "$top/scripts/kunit-counts.py" "$json"); then
		read -r p f s <<<"$counts"
		sed 1d <<<"$counts" | sed 's/^/kunit: not passed: /'
	fi

	bad=
	if [ $qrc -eq 124 ]; then
		bad="timed out after $timeout s"
	elif ! grep -q 'asitest: kunit finished' "$log"; then
		bad="the guest did not reach /init after the suites (crash or panic?)"
	elif [[ " $args " == *" kmemleak=on "* ]] &&
	     ! grep -a -q -E 'asitest: kmemleak: [0-9]+ unreferenced' "$log"; then
		bad="booted with kmemleak=on but kmemleak did not scan"
	elif grep -a -q -E 'asitest: kmemleak: [1-9]' "$log"; then
		bad="kmemleak: $(grep -a -o -E 'asitest: kmemleak: [0-9]+' "$log")"
	elif grep -a -n -E -f "$patterns" "$log" >"$logs/kunit-$name.splats"; then
		bad="kernel splat in the console log: $(head -n1 "$logs/kunit-$name.splats")"
	elif [ $krc -ne 0 ]; then
		bad="kunit.py parse reported failures"
	elif [ $((p + s)) -eq 0 ]; then
		bad="no KUnit test ran"
	elif [ "$name" = c-marks ] &&
	     grep -q '^CONFIG_ADDRESS_SPACE_ISOLATION_RUST_MARKS=y' \
		"$(dirname "$perf")/../../../.config"; then
		bad="the measurement kernel has the Rust set of marks: the C one went untested"
	fi
	if [ -n "$bad" ]; then
		echo "kunit: $name: FAIL: $bad"
		echo "---- last 40 console lines ----"
		tail -n 40 "$log"
		echo "-------------------------------"
		[ $f -gt 0 ] || f=1
		rc=1
	fi
	echo "kunit: $name: $p passed, $f failed, $s skipped"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "kunit $pass $fail $skip" >"$results/kunit.res"
exit $rc
