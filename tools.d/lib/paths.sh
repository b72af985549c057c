# Shared by the tools that take a path: keeps them inside the working
# directory. Sourced, not run; POSIX sh.

# die prints a message for the model on stderr and exits 2.
die() {
	printf '%s\n' "$*" >&2
	exit 2
}

# inside_workdir prints the resolved path of $1 when it names an existing
# file or folder inside the working directory, and fails otherwise. The
# check is on the path with every symlink and .. resolved, so neither can
# lead outside.
inside_workdir() {
	case $1 in
	'') die "the path is empty; use . for the working directory" ;;
	/*) die "refusing absolute path '$1': give a path relative to the working directory" ;;
	esac
	[ -e "$1" ] || [ -L "$1" ] || die "no such file or folder: $1"
	root=$(pwd -P) || die "cannot resolve the working directory"
	real=$(realpath -e -- "$1" 2>/dev/null) || die "cannot resolve '$1' (a broken symlink?)"
	case $real in
	"$root" | "$root"/*) printf '%s\n' "$real" ;;
	*) [ "$root" = / ] && printf '%s\n' "$real" && return 0
		die "refusing '$1': it leads outside the working directory" ;;
	esac
}
