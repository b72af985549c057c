#!/bin/sh
# http_get: the body of one GET request, capped.
set -u

die() {
	printf '%s\n' "$*" >&2
	exit 2
}

url=${ARG_URL-}
max_bytes=1000000

case $url in
http://* | https://*) ;;
*) die "only http:// and https:// URLs can be fetched, got: $url" ;;
esac

tmp=$(mktemp -d) || die "cannot create a temporary folder"
trap 'rm -rf "$tmp"' EXIT

# --max-filesize only works when the server sends a length, so the body is
# also cut by head; curl then stops on the closed pipe. Its status goes
# through a file, as a pipe keeps only the last one.
{
	curl -sS -L --max-redirs 5 --connect-timeout 10 --max-time 20 \
		--max-filesize "$max_bytes" --proto =http,https --proto-redir =http,https \
		-A "agentloop-http_get/1" -D "$tmp/headers" -o - -- "$url" 2>"$tmp/err"
	echo $? >"$tmp/status"
} | head -c "$((max_bytes + 1))" >"$tmp/body"

# 23 is curl failing to write once head has all it wants: a body to cut,
# not a failure.
case $(cat "$tmp/status") in
0 | 23) ;;
63) die "the response is larger than $max_bytes bytes (its Content-Length says so); not fetched" ;;
*)
	msg=$(sed 's/^curl: ([0-9]*) //' "$tmp/err")
	die "request failed: ${msg:-curl exited with status $(cat "$tmp/status")}"
	;;
esac

# The status and type of the last response, after any redirects.
status=$(awk '/^HTTP\// { code = $2 } END { print code }' "$tmp/headers" 2>/dev/null)
ctype=$(awk '
/^HTTP\// { ct = "" }
tolower($1) == "content-type:" { sub(/\r$/, ""); sub(/^[^:]*:[ \t]*/, ""); ct = $0 }
END { print ct }' "$tmp/headers" 2>/dev/null)
[ -n "$status" ] || die "request failed: no response"

size=$(wc -c <"$tmp/body")
case $ctype in
'' | text/* | *json* | *xml* | *javascript* | *yaml* | *csv* | *x-www-form-urlencoded*) ;;
*) [ "$size" -gt 0 ] && { echo "HTTP $status: $ctype content ($size bytes) not shown: only text is returned"; exit 0; } ;;
esac
if [ "$(head -c 8192 "$tmp/body" | tr -d '\000' | wc -c)" -ne "$(head -c 8192 "$tmp/body" | wc -c)" ]; then
	echo "HTTP $status: binary content ($size bytes) not shown: only text is returned"
	exit 0
fi

if [ "$status" -ge 400 ]; then
	echo "HTTP $status" >&2
	head -c 2000 "$tmp/body" >&2
	exit 1
fi
head -c "$max_bytes" "$tmp/body"
if [ "$size" -gt "$max_bytes" ]; then
	printf '\n[body cut at %d bytes]\n' "$max_bytes"
fi
