#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fail when an option a config fragment asks for is missing from .config
# (usually an unmet dependency that olddefconfig silently dropped).
set -euo pipefail
config=$1; shift
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n)
			sym=${line%%=*}
			if grep -q "^$sym=" "$config"; then
				echo "check-config: $frag: $sym should be off, .config has: $(grep "^$sym=" "$config")" >&2
				bad=1
			fi ;;
		CONFIG_*=*)
			grep -qxF "$line" "$config" || {
				echo "check-config: $frag: wanted '$line', .config has: $(grep "^${line%%=*}=" "$config" || echo 'not set')" >&2
				bad=1
			} ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			if grep -q "^$sym=" "$config"; then
				echo "check-config: $frag: $sym should be off, .config has: $(grep "^$sym=" "$config")" >&2
				bad=1
			fi ;;
		esac
	done <"$frag"
done
exit $bad
