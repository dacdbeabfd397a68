#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate the asi generic-netlink UAPI header and kernel policy/ops code from
# the YNL spec uapi/asi.yaml with the kernel tree's own ynl-gen-c.py, or check
# that everything generated from it is in sync.
#
#   ynl-gen.sh           regenerate uapi/linux/asi.h and uapi/kernel/asi_nl_gen.{c,h}
#   ynl-gen.sh --check   regenerate into a temporary directory and fail on any
#                        difference with uapi/; if $TREE carries our files,
#                        also fail when they differ from uapi/
#
# TREE (default build/linux) provides tools/net/ynl/ynl-gen-c.py and the
# Documentation/netlink schemas. The generator runs in a scratch copy laid out
# like the kernel tree, so its "auto-generated from" comments name
# Documentation/netlink/specs/asi.yaml and the source includes "asi_nl_gen.h",
# exactly as they must read in arch/x86/mm/asi/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
TREE=${TREE:-$top/build/linux}
me=ynl-gen

die() { echo "$me: error: $*" >&2; exit 1; }

check=
case "${1:-}" in
'') ;;
--check) check=1 ;;
*) die "usage: $0 [--check]" ;;
esac

spec=$top/uapi/asi.yaml
gen=$TREE/tools/net/ynl/ynl-gen-c.py

# Where each file lives in uapi/ and in the kernel tree.
spec_tree=Documentation/netlink/specs/asi.yaml
map=(
	"uapi/linux/asi.h include/uapi/linux/asi.h uapi --header"
	"uapi/kernel/asi_nl_gen.h arch/x86/mm/asi/asi_nl_gen.h kernel --header"
	"uapi/kernel/asi_nl_gen.c arch/x86/mm/asi/asi_nl_gen.c kernel --source"
)

[ -f "$spec" ] || die "$spec is missing"
[ -f "$gen" ] || die "$gen not found: run 'make kernel-tree' first or set TREE="
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	die "python3 needs yaml and jsonschema: apt-get install python3-yaml python3-jsonschema"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A scratch kernel-shaped tree: the generator finds the root by MAINTAINERS
# and the schema at Documentation/netlink/<protocol>.yaml next to specs/.
mkdir -p "$tmp/Documentation/netlink/specs" "$tmp/include/uapi/linux" \
	"$tmp/arch/x86/mm/asi"
: >"$tmp/MAINTAINERS"
cp "$TREE"/Documentation/netlink/genetlink*.yaml "$tmp/Documentation/netlink/"
cp "$spec" "$tmp/$spec_tree"

# The generator validates against the schema too (lib/nlspec.py imports
# jsonschema unconditionally), but with a bare traceback; say it plainly first.
(cd "$tmp" && python3 - "$spec_tree" <<'EOF') || die "uapi/asi.yaml does not validate against the tree's schema"
import sys, yaml, jsonschema
spec = yaml.safe_load(open(sys.argv[1]))
proto = spec.get('protocol', 'genetlink')
schema = yaml.safe_load(open(f'Documentation/netlink/{proto}.yaml'))
errs = sorted(jsonschema.Draft7Validator(schema).iter_errors(spec), key=str)
for e in errs:
    where = '/'.join(str(p) for p in e.absolute_path) or '(top)'
    print(f'uapi/asi.yaml: {where}: {e.message}', file=sys.stderr)
sys.exit(1 if errs else 0)
EOF

for m in "${map[@]}"; do
	read -r _ kpath mode kind <<<"$m"
	(cd "$tmp" && python3 "$gen" --mode "$mode" "$kind" \
		--spec "$spec_tree" -o "$kpath") ||
		die "ynl-gen-c.py --mode $mode $kind failed on uapi/asi.yaml"
done

if [ -z "$check" ]; then
	for m in "${map[@]}"; do
		read -r ours kpath _ <<<"$m"
		mkdir -p "$(dirname "$top/$ours")"
		if cmp -s "$tmp/$kpath" "$top/$ours"; then
			echo "$me: $ours unchanged"
		else
			cp "$tmp/$kpath" "$top/$ours"
			echo "$me: wrote $ours"
		fi
	done
	exit 0
fi

rc=0
for m in "${map[@]}"; do
	read -r ours kpath _ <<<"$m"
	if [ ! -f "$top/$ours" ]; then
		echo "$me: $ours is missing: run 'make ynl-gen'" >&2
		rc=1
	elif ! diff -u --label "$ours (committed)" --label "$ours (generated)" \
		"$top/$ours" "$tmp/$kpath"; then
		echo "$me: $ours differs from what uapi/asi.yaml generates: run 'make ynl-gen'" >&2
		rc=1
	fi
done

# The kernel patch must carry byte-identical copies. Before the netlink patch
# exists the tree has none of them; once it has one, it must have all.
pairs=("uapi/asi.yaml $spec_tree")
for m in "${map[@]}"; do
	read -r ours kpath _ <<<"$m"
	pairs+=("$ours $kpath")
done
have=0
for p in "${pairs[@]}"; do
	read -r _ kpath <<<"$p"
	[ -e "$TREE/$kpath" ] && have=$((have + 1))
done
if [ "$have" -eq 0 ]; then
	echo "$me: $TREE has no asi netlink files yet; compared uapi/ only"
else
	for p in "${pairs[@]}"; do
		read -r ours kpath <<<"$p"
		if [ ! -f "$TREE/$kpath" ]; then
			echo "$me: $kpath is missing from the tree (it has the other asi netlink files)" >&2
			rc=1
		elif ! diff -u --label "$ours" --label "tree:$kpath" \
			"$top/$ours" "$TREE/$kpath"; then
			echo "$me: tree:$kpath differs from $ours: copy uapi/ into the tree and commit there" >&2
			rc=1
		fi
	done
fi

if [ "$rc" -ne 0 ]; then
	echo "$me: FAILED: generated netlink files are out of sync" >&2
	exit 1
fi
if [ "$have" -gt 0 ]; then
	echo "$me: OK: uapi/ matches uapi/asi.yaml and the tree carries identical copies"
else
	echo "$me: OK: uapi/ matches uapi/asi.yaml"
fi
