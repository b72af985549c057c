#!/bin/sh
# now: the current time, optionally in another zone or format.
set -u

die() {
	printf '%s\n' "$*" >&2
	exit 2
}

zone=${ARG_ZONE-}
format=${ARG_FORMAT:-%Y-%m-%dT%H:%M:%S%z (%A, %Z)}
zoneinfo=/usr/share/zoneinfo

if [ -n "$zone" ]; then
	# date(1) takes any TZ string and quietly falls back to UTC for one it
	# does not know, so the name is checked against the zone database.
	case $zone in
	*..* | /* | *[!A-Za-z0-9_+/-]*) die "not a time zone name: $zone (use an IANA name such as Europe/Paris)" ;;
	esac
	case $zone in
	UTC | GMT | Etc/UTC) ;;
	*)
		[ -d "$zoneinfo" ] || die "the time zone database ($zoneinfo) is not installed; only UTC is available"
		[ -f "$zoneinfo/$zone" ] || die "unknown time zone: $zone (use an IANA name such as Europe/Paris or America/New_York)"
		;;
	esac
	TZ=$zone
	export TZ
fi
[ ${#format} -le 200 ] || die "the format is too long (at most 200 characters)"
date "+$format"
