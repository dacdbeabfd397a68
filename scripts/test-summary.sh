#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Add up RESULTS/*.res ("suite passed failed skipped") into one closing line.
# Fails when a suite failed, left no result, or nothing ran at all.
set -uo pipefail
results=$1
pass=0 fail=0 skip=0 rc=0
for suite in unit model kunit system bochs; do
	f=$results/$suite.res
	if [ ! -s "$f" ]; then
		echo "summary: $suite: no result (did it build and run?)"
		rc=1
		continue
	fi
	read -r _ p fl s <"$f"
	printf 'summary: %-7s %4d passed, %d failed, %d skipped\n' "$suite" "$p" "$fl" "$s"
	pass=$((pass + p)); fail=$((fail + fl)); skip=$((skip + s))
done
[ $fail -eq 0 ] || rc=1
[ $pass -gt 0 ] || rc=1
echo "$pass passed, $fail failed, $skip skipped"
exit $rc
