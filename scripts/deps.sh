#!/bin/sh
# Makes sure the libraries gcscope links are there: libarchive (zipped and
# gzipped traces: .etl.zip, .nettrace.gz, perfcollect's .trace.zip) and
# libbabeltrace2 (LTTng CTF traces). Installs Debian's -dev packages with
# apt-get when a header is missing. The build calls it once per build
# folder (Makefile: $(BUILD)/deps.ok); .ci/run gets them the same way.
# Usage: deps.sh [CC]
CC=${1:-cc}
missing=""
have_header() {
    printf '#include <%s>\n' "$1" | "$CC" -E -x c - >/dev/null 2>&1
}
have_header archive.h || missing="$missing libarchive-dev"
have_header babeltrace2/babeltrace.h || missing="$missing libbabeltrace2-dev"
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if command -v apt-get >/dev/null 2>&1; then
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $missing >&2; } || true
fi
have_header archive.h && have_header babeltrace2/babeltrace.h && exit 0
echo "deps: missing$missing; install them (Debian: apt-get install$missing)" >&2
exit 1
