#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build and run the cmocka unit tests (tests/unit) with TAP output; write
# the counts to RESULTS/unit.res for the final summary.
#
#   run-unit-tests.sh OUTDIR RESULTS
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1 results=$2
mkdir -p "$out" "$results"

make -s -C "$top/tests/unit" O="$out"

pass=0 fail=0 rc=0
for t in $(make -s -C "$top/tests/unit" O="$out" list); do
	log=$out/$(basename "$t").tap
	echo "== unit: $(basename "$t")"
	CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1 || rc=1
	cat "$log"
	pass=$((pass + $(grep -c '^ok ' "$log" || true)))
	fail=$((fail + $(grep -c '^not ok ' "$log" || true)))
done
if [ $rc -ne 0 ] && [ $fail -eq 0 ]; then
	fail=1	# a crash before any "not ok" still fails
fi
echo "unit $pass $fail 0" >"$results/unit.res"
echo "unit: $pass passed, $fail failed"
exit $rc
