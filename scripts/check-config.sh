#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fail when an option a config fragment asks for is missing from .config
# (usually an unmet dependency that olddefconfig silently dropped). A later
# fragment overrides an earlier one, as merge_config.sh does.
set -euo pipefail
config=$1; shift
declare -A want from
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}; want[$sym]=${line#*=}; from[$sym]=$frag ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}; want[$sym]=n; from[$sym]=$frag ;;
		esac
	done <"$frag"
done
bad=0
for sym in "${!want[@]}"; do
	have=$(grep "^$sym=" "$config" || true)
	if [ "${want[$sym]}" = n ]; then
		if [ -n "$have" ]; then
			echo "check-config: ${from[$sym]}: $sym should be off, .config has: $have" >&2
			bad=1
		fi
	elif [ "$have" != "$sym=${want[$sym]}" ]; then
		echo "check-config: ${from[$sym]}: wanted '$sym=${want[$sym]}', .config has: ${have:-not set}" >&2
		bad=1
	fi
done
exit $bad
