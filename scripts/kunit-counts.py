#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results in the JSON that `kunit.py parse --json=FILE` writes.

Prints "PASSED FAILED SKIPPED" on the first line (errors and crashes count
as failed), then one line per test that did not pass or skip, as
"suite.test STATUS". Exits 1 if the file holds no test at all.

    kunit-counts.py FILE
"""

import json
import sys


def walk(group, path, counts, bad):
    for case in group.get("test_cases", []):
        status = case.get("status", "ERROR")
        counts[status] = counts.get(status, 0) + 1
        if status not in ("PASS", "SKIP"):
            bad.append(f"{'.'.join(path + [case['name'] or '(no name)'])} {status}")
    for sub in group.get("sub_groups", []):
        walk(sub, path + [sub["name"]], counts, bad)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        root = json.load(f)
    counts, bad = {}, []
    walk(root, [], counts, bad)
    passed = counts.pop("PASS", 0)
    skipped = counts.pop("SKIP", 0)
    failed = sum(counts.values())
    print(passed, failed, skipped)
    for line in bad:
        print(line)
    return 0 if passed + failed + skipped else 1


if __name__ == "__main__":
    sys.exit(main())
