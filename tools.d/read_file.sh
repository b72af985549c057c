#!/bin/sh
# read_file: numbered lines of a text file inside the working directory.
set -u
. "$(dirname "$0")/lib/paths.sh"

path=${ARG_PATH-}
start=${ARG_START_LINE:-1}
end=${ARG_END_LINE:-0}
max_lines=400
max_width=2000

file=$(inside_workdir "$path") || exit 2
[ -f "$file" ] || die "$path is not a regular file (use list_dir for folders)"
[ -r "$file" ] || die "$path is not readable"
[ "$start" -ge 1 ] || die "start_line must be 1 or more, got $start"
[ "$end" -eq 0 ] || [ "$end" -ge "$start" ] || die "end_line ($end) is before start_line ($start)"

# A NUL in the first block means a binary file: its bytes mean nothing to
# the model and would only fill the context.
head_bytes=$(head -c 8192 -- "$file" | wc -c)
text_bytes=$(head -c 8192 -- "$file" | tr -d '\000' | wc -c)
if [ "$head_bytes" -ne "$text_bytes" ]; then
	die "$path is a binary file ($(wc -c <"$file") bytes); not shown"
fi

awk -v s="$start" -v e="$end" -v max="$max_lines" -v width="$max_width" -v name="$path" '
NR < s { next }
e > 0 && NR > e { exit }
shown >= max { more = 1; exit }
{
	line = $0
	if (length(line) > width) line = substr(line, 1, width) " [line cut at " width " characters]"
	printf "%6d\t%s\n", NR, line
	shown++
	last = NR
}
END {
	if (NR == 0) { print "(" name " is empty)"; exit }
	if (shown == 0) {
		printf "start_line %d is past the end of %s (%d lines)\n", s, name, NR > "/dev/stderr"
		exit 2
	}
	if (more) printf "[lines %d-%d shown; more follow: call again with start_line=%d]\n", s, last, last + 1
}' "$file"
