#!/bin/sh
# grep_files: matching lines of the text files under a path.
set -u
. "$(dirname "$0")/lib/paths.sh"

pattern=${ARG_PATTERN-}
path=${ARG_PATH:-.}
glob=${ARG_GLOB-}
ignore_case=${ARG_IGNORE_CASE:-false}
max_matches=200
max_width=500

[ -n "$pattern" ] || die "the pattern is empty"
inside_workdir "$path" >/dev/null || exit 2

# grep says 2 for a pattern it cannot compile; ask it before searching, as
# in the search below its status is lost in the pipe.
if err=$(grep -E -e "$pattern" </dev/null 2>&1); [ $? -eq 2 ]; then
	die "invalid regular expression: ${err#grep: }"
fi

set -- -rnIsE --exclude-dir=.git --color=never
[ "$ignore_case" = true ] && set -- "$@" -i
[ -n "$glob" ] && set -- "$@" --include="$glob"

# Sorted by file and line, so the same tree gives the same answer.
grep "$@" -e "$pattern" -- "$path" | LC_ALL=C sort -t: -k1,1 -k2,2n | awk -v max="$max_matches" -v width="$max_width" -v pat="$pattern" '
NR <= max {
	sub(/^\.\//, "")
	if (length($0) > width) $0 = substr($0, 1, width) " [cut]"
	print
}
END {
	if (NR == 0) print "no matches for /" pat "/"
	else if (NR > max) printf "[%d more matching lines not shown; narrow the pattern, path or glob]\n", NR - max
}'
