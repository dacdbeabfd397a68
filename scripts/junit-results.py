#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a pytest junit XML file into a results line: SUITE PASSED FAILED SKIPPED."""
import sys
import xml.etree.ElementTree as ET

suite, xml_path, out_path = sys.argv[1:4]
try:
    root = ET.parse(xml_path).getroot()
except (OSError, ET.ParseError) as e:
    sys.exit(f"junit-results: cannot read {xml_path}: {e}")
tests = failures = errors = skipped = 0
for ts in root.iter("testsuite"):
    tests += int(ts.get("tests", 0))
    failures += int(ts.get("failures", 0))
    errors += int(ts.get("errors", 0))
    skipped += int(ts.get("skipped", 0))
failed = failures + errors
passed = tests - failed - skipped
with open(out_path, "w") as f:
    f.write(f"{suite} {passed} {failed} {skipped}\n")
