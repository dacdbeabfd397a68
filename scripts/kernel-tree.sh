#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Manage the kernel work tree: Debian's linux-source-6.12 extracted into an
# ignored build directory, kept as a git repository whose first commit is the
# pristine source (tag "pristine") and whose branch "asi" carries one commit
# per patch of kernel/patches/series.
#
#   kernel-tree.sh sync     extract if needed; re-apply the series when
#                           kernel/patches changed since the last sync
#   kernel-tree.sh export   regenerate kernel/patches from pristine..HEAD
#   kernel-tree.sh reset    drop local edits and commits, re-apply the series
#   kernel-tree.sh status   say what the tree holds
#
# The series is applied without touching the working tree (a private index,
# "git apply --cached" and "git commit-tree"); the final checkout rewrites only
# the files whose content differs, so an incremental build recompiles just
# what the new series changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KERNEL_TREE:-$top/build/linux}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
pkg=linux-source-6.12
patches=$top/kernel/patches
series=$patches/series
stamp=$tree/.git/asi-series

die() { echo "kernel-tree: error: $*" >&2; exit 1; }
note() { echo "kernel-tree: $*" >&2; }

g() { git -C "$tree" "$@"; }

# The series' author and the cover letter's sender.
set_identity() {
	g config user.name "ASI Developers"
	g config user.email "asi-devel@example.org"
}

installed_version() {
	dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true
}

verified_version() {
	awk -v p="$pkg" '!/^#/ && $1 == p { print $2 }' "$top/kernel/VERSION"
}

check_version() {
	local have want
	have=$(installed_version)
	want=$(verified_version)
	[ -n "$have" ] || die "$pkg is not installed (run: make deps)"
	if [ "$have" != "$want" ]; then
		note "warning: $pkg $have is installed, the series was verified against $want"
		note "warning: if a patch fails below, rebase the series and update kernel/VERSION"
	fi
}

series_list() {
	[ -f "$series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" | awk '{ print $1 }'
}

series_hash() {
	{
		cat "$series" 2>/dev/null || true
		for p in $(series_list); do
			cat "$patches/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

extract() {
	local tmp
	[ -f "$tarball" ] || die "$tarball not found (run: make deps)"
	note "extracting $tarball into $tree"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xf "$tarball" -C "$tree.tmp"
	tmp=$(find "$tree.tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
	mv "$tmp" "$tree"
	rmdir "$tree.tmp"

	g init -q -b asi
	set_identity
	g config gc.auto 0
	g config core.abbrev 12
	note "committing the pristine tree (takes a minute)"
	g add -A -f .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		g commit -q -m "Debian $pkg $(installed_version) (pristine)"
	# Debian's .gitignore ignores every top-level path ("/*"): new files
	# of the series would silently stay out of git. Patches never touch
	# .gitignore, so this commit is part of the base, not of the series.
	sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' "$tree/.gitignore"
	if ! g diff --quiet; then
		g add .gitignore
		GIT_AUTHOR_DATE="2000-01-01T00:00:01Z" GIT_COMMITTER_DATE="2000-01-01T00:00:01Z" \
			g commit -q -m "Track every file of the tree (drop Debian's packaging ignore rule)"
	fi
	g tag pristine
}

# Build the series as commits on top of "pristine" without a checkout; print
# the last commit.
build_series() {
	local work index parent p tree_id author email date subject commit
	work=$(mktemp -d)
	index=$work/index
	GIT_INDEX_FILE=$index g read-tree pristine
	parent=$(g rev-parse pristine)
	for p in $(series_list); do
		[ -f "$patches/$p" ] || die "series lists $p but kernel/patches/$p is missing"
		git mailinfo -k "$work/msg" "$work/patch" <"$patches/$p" >"$work/info"
		if ! GIT_INDEX_FILE=$index g apply --cached "$work/patch" 2>"$work/err"; then
			cat "$work/err" >&2
			rm -rf "$work"
			die "patch $p does not apply to $pkg $(installed_version)" \
			    "(verified against $(verified_version))"
		fi
		tree_id=$(GIT_INDEX_FILE=$index g write-tree)
		author=$(sed -n 's/^Author: //p' "$work/info")
		email=$(sed -n 's/^Email: //p' "$work/info")
		date=$(sed -n 's/^Date: //p' "$work/info")
		subject=$(sed -n 's/^Subject: //p' "$work/info" | sed 's/^\[PATCH[^]]*\] *//')
		{
			echo "$subject"; echo; cat "$work/msg"
			# Notes below the "---" (how a patch was tested) stay with
			# the commit, so that the next export writes them again.
			awk 'NR == 1 && /^---$/ { next }
			     /^diff --git / { exit }
			     /^---$/ { print "---"; printf "%s", notes; exit }
			     { notes = notes $0 "\n" }' "$work/patch"
		} >"$work/commitmsg"
		commit=$(GIT_AUTHOR_NAME="$author" GIT_AUTHOR_EMAIL="$email" \
			 GIT_AUTHOR_DATE="$date" GIT_COMMITTER_NAME="$author" \
			 GIT_COMMITTER_EMAIL="$email" GIT_COMMITTER_DATE="$date" \
			 g commit-tree "$tree_id" -p "$parent" -F "$work/commitmsg")
		parent=$commit
	done
	rm -rf "$work"
	echo "$parent"
}

local_changes() {
	[ -n "$(g status --porcelain --untracked-files=normal)" ]
}

write_stamp() {
	echo "$(series_hash) $(g rev-parse HEAD)" >"$stamp"
}

apply_series() {
	local head
	head=$(build_series)
	g checkout -q -B asi "$head"
	write_stamp
	note "applied $(series_list | wc -l) patches; HEAD is $(g log -1 --format='%h %s')"
}

cmd_sync() {
	check_version
	if [ ! -d "$tree/.git" ]; then
		extract
		apply_series
		return
	fi
	local want have_hash have_head
	want=$(series_hash)
	read -r have_hash have_head 2>/dev/null <"$stamp" || true
	if [ "$want" = "${have_hash:-}" ]; then
		if [ "$(g rev-parse HEAD)" != "${have_head:-}" ] || local_changes; then
			note "building local work in $tree (not yet in kernel/patches: run make kernel-export)"
		fi
		return
	fi
	if [ "$(g rev-parse HEAD)" != "${have_head:-}" ] || local_changes; then
		die "kernel/patches changed, but $tree has commits or edits that are not" \
		    "exported. Export them (make kernel-export) or drop them (make kernel-reset)."
	fi
	note "kernel/patches changed: re-applying the series"
	apply_series
}

cmd_export() {
	[ -d "$tree/.git" ] || die "no kernel tree at $tree (run: make kernel-tree)"
	if local_changes; then
		die "$tree has uncommitted changes; commit them first"
	fi
	local n
	n=$(g rev-list --count pristine..HEAD)
	set_identity
	find "$patches" -maxdepth 1 -name '*.patch' -delete
	: >"$series.tmp"
	if [ "$n" -gt 0 ]; then
		# Blank context lines stay empty: run on a tracked patch file
		# (a relative path in this repository), checkpatch.pl checks it
		# as a source file, where " " is trailing whitespace.
		g -c diff.suppressBlankEmpty=true format-patch -q --zero-commit \
			--no-signature --numbered --cover-letter \
			--no-thread -o "$patches" pristine..HEAD
		# The cover letter is no patch: it lives next to the series.
		fill_cover_letter "$patches/0000-cover-letter.patch"
		mv "$patches/0000-cover-letter.patch" "$top/kernel/0000-cover-letter.patch"
	fi
	(cd "$patches" && ls -1 -- *.patch 2>/dev/null || true) >"$series.tmp"
	mv "$series.tmp" "$series"
	write_stamp
	note "exported $n patches to kernel/patches"
}

# The cover letter's subject and text come from kernel/cover-letter.txt
# (first line: the subject); format-patch adds the shortlog and diffstat.
fill_cover_letter() {
	local cover=$1 src=$top/kernel/cover-letter.txt
	[ -f "$src" ] || die "$src is missing"
	python3 - "$cover" "$src" <<'PY'
import sys
cover, src = sys.argv[1], sys.argv[2]
text = open(src).read().rstrip("\n").split("\n")
subject, blurb = text[0], "\n".join(text[2:] if len(text) > 1 and not text[1] else text[1:])
c = open(cover).read()
assert "*** SUBJECT HERE ***" in c and "*** BLURB HERE ***" in c
c = c.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", blurb)
open(cover, "w").write(c)
PY
}

cmd_reset() {
	[ -d "$tree/.git" ] || { cmd_sync; return; }
	g reset -q --hard
	g clean -q -fdx -e /.git
	apply_series
}

cmd_status() {
	if [ ! -d "$tree/.git" ]; then
		echo "no kernel tree at $tree"
		return
	fi
	echo "tree:      $tree"
	echo "package:   $pkg $(installed_version) (verified: $(verified_version))"
	echo "series:    $(series_list | wc -l) patches"
	echo "commits:   $(g rev-list --count pristine..HEAD) on top of pristine"
	local h
	read -r h _ 2>/dev/null <"$stamp" || true
	[ "${h:-}" = "$(series_hash)" ] || echo "state:     kernel/patches changed since the last sync"
	local_changes && echo "state:     uncommitted edits in the tree"
	return 0
}

case "${1:-}" in
sync) cmd_sync ;;
export) cmd_export ;;
reset) cmd_reset ;;
status) cmd_status ;;
*) echo "usage: $0 {sync|export|reset|status}" >&2; exit 2 ;;
esac
