#!/bin/sh
# list_dir: the entries under a folder inside the working directory.
set -u
. "$(dirname "$0")/lib/paths.sh"

path=${ARG_PATH:-.}
depth=${ARG_DEPTH:-1}
hidden=${ARG_HIDDEN:-false}
max_entries=1000

dir=$(inside_workdir "$path") || exit 2
[ -d "$dir" ] || die "$path is not a folder (use read_file for files)"

# walk DIR PREFIX LEVEL prints the entries of DIR. Symlinked folders are
# not entered: they may lead anywhere.
walk() {
	ls -1A -- "$1" 2>/dev/null | while IFS= read -r name; do
		case $name in .*) [ "$hidden" = true ] || continue ;; esac
		p=$1/$name
		rel=$2$name
		if [ -L "$p" ]; then
			printf '%s@\n' "$rel"
		elif [ -d "$p" ]; then
			printf '%s/\n' "$rel"
			if [ "$3" -lt "$depth" ]; then
				(walk "$p" "$rel/" $(($3 + 1)))
			fi
		else
			printf '%s\n' "$rel"
		fi
	done
}

walk "$dir" "" 1 | awk -v max="$max_entries" -v name="$path" '
NR <= max { print }
END {
	if (NR == 0) print "(" name " is empty)"
	else if (NR > max) printf "[%d more entries not shown; list a subfolder or use a smaller depth]\n", NR - max
}'
