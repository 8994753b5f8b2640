#!/bin/sh
# `make install` into a temporary prefix, then uses what was installed as a
# user would: every file is there and nothing else; the CLI runs; the
# shared library exports the public API only; the README's example builds
# with `pkg-config --cflags --libs gcscope`, statically and against the
# shared library, and reads a real trace; the man page renders without
# warnings and names every option `gcscope help CMD` lists; the bash
# completion loads and completes; `make uninstall` leaves none of our
# files. The same with DESTDIR staging. Builds the release library (and
# its -fPIC copy) in $BUILD, as `make install` does.
BUILD=${BUILD:-build}
CC=${CC:-cc}
TRACE=tests/data/gen0size-small.nettrace
fail() { echo "install: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# A make called from `make test` must not take the parent's jobserver.
run_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s BUILD="$BUILD" "$@"; }

version=$(sed -n 's/^#define GCS_VERSION_STRING "\(.*\)"/\1/p' include/gcscope/core.h)
major=${version%%.*}
[ -n "$version" ] || fail "no GCS_VERSION_STRING in include/gcscope/core.h"

# What install must put under a prefix, and nothing more.
expected_files() {
    {
        echo bin/gcscope
        echo include/gcscope.h
        for h in include/gcscope/*.h; do echo "$h"; done
        echo lib/libgcscope.a
        echo lib/libgcscope.so
        echo "lib/libgcscope.so.$major"
        echo "lib/libgcscope.so.$version"
        echo lib/libgcscope_profiler.so
        echo lib/pkgconfig/gcscope.pc
        echo share/bash-completion/completions/gcscope
        echo share/man/man1/gcscope.1
    } | LC_ALL=C sort
}
installed_files() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort); }
expected_files > "$tmp/expected"

# ---- install into PREFIX ----
prefix=$tmp/prefix
run_make install PREFIX="$prefix" > "$tmp/make.out" 2>&1 || { cat "$tmp/make.out"; fail "make install PREFIX=$prefix failed"; }
installed_files "$prefix" > "$tmp/got"
cmp -s "$tmp/expected" "$tmp/got" || { diff "$tmp/expected" "$tmp/got"; fail "installed files differ from the list (< expected, > installed)"; }
for h in include/gcscope.h include/gcscope/*.h; do
    cmp -s "$h" "$prefix/$h" || fail "$prefix/$h differs from $h"
done
[ -x "$prefix/bin/gcscope" ] || fail "bin/gcscope is not executable"
# The installed gcscope finds the installed profiler (lib/ beside bin/):
# `true` writes no profile, which it says (not "not found").
env -u GCSCOPE_PROFILER "$prefix/bin/gcscope" profile -- true 2>&1 | grep -q 'no profile written' ||
    fail "bin/gcscope profile does not find lib/libgcscope_profiler.so"
[ "$(readlink "$prefix/lib/libgcscope.so.$major")" = "libgcscope.so.$version" ] ||
    fail "lib/libgcscope.so.$major does not point to libgcscope.so.$version"
[ "$(readlink "$prefix/lib/libgcscope.so")" = "libgcscope.so.$major" ] ||
    fail "lib/libgcscope.so does not point to libgcscope.so.$major"

out=$("$prefix/bin/gcscope" --version) || fail "installed gcscope --version: exit $?"
[ "$out" = "gcscope $version" ] || fail "installed gcscope --version says '$out', want 'gcscope $version'"

# ---- the shared library: its soname, and the public API only ----
so=$prefix/lib/libgcscope.so.$version
if command -v readelf > /dev/null 2>&1; then
    readelf -d "$so" | grep -q "Library soname: \[libgcscope.so.$major\]" || fail "$so: soname is not libgcscope.so.$major"
fi
if command -v nm > /dev/null 2>&1; then
    nm -D --defined-only "$so" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort > "$tmp/exported"
    # What the installed headers declare: functions (NAME followed by "(")
    # and extern variables, comments removed by the preprocessor.
    echo '#include <gcscope.h>' | $CC -E -P -I"$prefix/include" - > "$tmp/api.i" || fail "installed headers do not preprocess"
    { grep -oE '\bgcs_[a-z0-9_]+\(' "$tmp/api.i" | tr -d '('
      grep -E '^extern ' "$tmp/api.i" | grep -oE '\bgcs_[a-z0-9_]+ *[[;]' | tr -d ' [;'
    } | LC_ALL=C sort -u > "$tmp/declared"
    [ "$(wc -l < "$tmp/declared")" -ge 90 ] || fail "found only $(wc -l < "$tmp/declared") declarations in the installed headers"
    cmp -s "$tmp/declared" "$tmp/exported" || { diff "$tmp/declared" "$tmp/exported" | head -20
        fail "$so exports other symbols than the public headers declare (< declared only, > exported only)"; }
    # The static library keeps everything (the CLI and tests use internals).
    nm "$prefix/lib/libgcscope.a" 2>/dev/null | grep -q ' T gcs_sorter_new$' || fail "libgcscope.a lacks gcs_sorter_new"
fi

# ---- the README's example, built with pkg-config ----
awk '/^```c[ \t]*$/ { inblock = 1; next } /^```/ && inblock { exit } inblock { print }' README.md > "$tmp/events.c"
grep -q '^/\* events\.c:' "$tmp/events.c" || fail "README.md: the first C block is not events.c"
want_events=$("$prefix/bin/gcscope" info --format json "$TRACE" | sed -n 's/.*"events":\([0-9]*\).*/\1/p')
[ -n "$want_events" ] && [ "$want_events" -gt 1000 ] || fail "gcscope info $TRACE: no event count ($want_events)"
example="README example not built (no pkg-config)"
if ! command -v pkg-config > /dev/null 2>&1; then
    echo "skipped: pkg-config absent: the README example is not built against the installed library"
else
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    [ "$(pkg-config --modversion gcscope)" = "$version" ] || fail "pkg-config --modversion gcscope: want $version"
    flags=$(pkg-config --cflags --libs gcscope) || fail "pkg-config --cflags --libs gcscope failed"
    case " $flags " in *" -I$prefix/include "*"-L$prefix/lib "*"-lgcscope "*) ;;
    *) fail "pkg-config --cflags --libs gcscope: '$flags'" ;; esac
    case " $(pkg-config --static --libs gcscope) " in *" -lm "*) ;; *) fail "pkg-config --static --libs gcscope lacks -lm" ;; esac

    # Against the shared library.
    $CC -std=c11 -Wall -Wextra -Werror "$tmp/events.c" $flags -o "$tmp/events_shared" 2> "$tmp/cc.err" ||
        { cat "$tmp/cc.err"; fail "events.c does not build against the shared library"; }
    if command -v readelf > /dev/null 2>&1; then
        readelf -d "$tmp/events_shared" | grep -q "NEEDED.*\[libgcscope.so.$major\]" ||
            fail "events_shared does not need libgcscope.so.$major"
    fi
    if command -v ldd > /dev/null 2>&1; then
        LD_LIBRARY_PATH="$prefix/lib" ldd "$tmp/events_shared" | grep -q "libgcscope.so.$major => $prefix/lib/" ||
            fail "events_shared does not load the installed libgcscope.so.$major"
    fi
    LD_LIBRARY_PATH="$prefix/lib" "$tmp/events_shared" "$TRACE" > "$tmp/shared.out" 2> "$tmp/err" ||
        fail "events_shared $TRACE: exit $?: $(head -3 "$tmp/err")"
    n=$(wc -l < "$tmp/shared.out")
    [ "$n" -eq "$want_events" ] || fail "events_shared printed $n events, gcscope info counts $want_events"

    # Statically: everything in the program, nothing loaded at run time.
    sflags=$(pkg-config --static --cflags --libs gcscope)
    if $CC -std=c11 -Wall -Wextra -Werror -static "$tmp/events.c" $sflags -o "$tmp/events_static" 2> "$tmp/cc.err"; then
        if command -v readelf > /dev/null 2>&1 && readelf -d "$tmp/events_static" | grep -q NEEDED; then
            fail "events_static (-static) needs shared libraries"
        fi
    else
        # No static C library here: libgcscope.a alone, the C library and
        # the libraries it uses (Libs.private: libarchive, ...) shared.
        echo "install: no static libc; linking libgcscope.a alone"
        private=$(pkg-config --static --libs-only-l gcscope | sed 's/-lgcscope//')
        $CC -std=c11 -Wall -Wextra -Werror "$tmp/events.c" $(pkg-config --cflags gcscope) \
            $(pkg-config --libs-only-L gcscope) -Wl,-Bstatic -lgcscope -Wl,-Bdynamic $private -o "$tmp/events_static" 2> "$tmp/cc.err" ||
            { cat "$tmp/cc.err"; fail "events.c does not build against libgcscope.a"; }
        if command -v readelf > /dev/null 2>&1 && readelf -d "$tmp/events_static" | grep -q 'NEEDED.*libgcscope'; then
            fail "events_static needs libgcscope.so"
        fi
    fi
    "$tmp/events_static" "$TRACE" > "$tmp/static.out" 2> "$tmp/err" || fail "events_static $TRACE: exit $?: $(head -3 "$tmp/err")"
    cmp -s "$tmp/shared.out" "$tmp/static.out" || fail "events_static and events_shared print different events"
    example="README example (shared and static) read $want_events events"
fi

# ---- the man page ----
man1=$prefix/share/man/man1/gcscope.1
commands=$("$prefix/bin/gcscope" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(echo "$commands" | wc -l)" -ge 8 ] || fail "gcscope help lists too few commands: $commands"
# The long options the man page describes: those in the tag of a .TP
# paragraph (written \-\-NAME in roff, every - escaped).
awk 'tag { line = $0; gsub(/\\-/, "-", line)
           while (match(line, /--[a-z][a-z-]*/)) { print substr(line, RSTART + 2, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) } }
     { tag = ($0 == ".TP") }' "$man1" | LC_ALL=C sort -u > "$tmp/man.options"
[ "$(wc -l < "$tmp/man.options")" -ge 15 ] || fail "man page: found only $(wc -l < "$tmp/man.options") described options"
for c in $commands; do
    grep -q "^\.SS \"gcscope $c[ \"]" "$man1" || fail "man page: no section for gcscope $c"
    for o in $("$prefix/bin/gcscope" help "$c" | sed -nE 's/^  (-[A-Za-z], |    )--([a-z][a-z-]*).*/\2/p'); do
        grep -qx -- "$o" "$tmp/man.options" || fail "man page does not describe gcscope $c --$o"
    done
done
for s in NAME SYNOPSIS DESCRIPTION '"EXIT STATUS"' EXAMPLES FILES '"SEE ALSO"'; do
    grep -q "^\.SH $s\$" "$man1" || fail "man page has no $s section"
done
bs=$(printf '\b')
if command -v groff > /dev/null 2>&1; then
    groff -man -Tutf8 -ww "$man1" > "$tmp/man.txt" 2> "$tmp/man.err" || fail "groff -man failed on gcscope.1"
    [ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; fail "groff -man -ww warns on gcscope.1"; }
    # grotty marks bold and underlined letters with backspaces.
    sed "s/.$bs//g" "$tmp/man.txt" | grep -q '^EXIT STATUS' || fail "groff output of gcscope.1 has no EXIT STATUS"
else
    echo "skipped: groff absent: the man page's rendering is not checked"
fi
if command -v man > /dev/null 2>&1; then
    MANWIDTH=80 man -l "$man1" > "$tmp/man.txt" 2> "$tmp/man.err" || fail "man -l gcscope.1 failed: $(head -3 "$tmp/man.err")"
    [ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; fail "man -l gcscope.1 says something on stderr"; }
    sed "s/.$bs//g" "$tmp/man.txt" | grep -q 'gcscope record' || fail "man -l gcscope.1 shows no gcscope record"
    found=$(MANPATH="$prefix/share/man" man -w gcscope 2>/dev/null)
    [ "$found" = "$man1" ] || fail "man -w gcscope with MANPATH=$prefix/share/man finds '$found'"
else
    echo "skipped: man absent: man -l is not tried"
fi

# ---- bash completion ----
if command -v bash > /dev/null 2>&1; then
    mkdir "$tmp/traces" "$tmp/traces/dir" && : > "$tmp/traces/a.nettrace" && : > "$tmp/traces/b.netperf" && : > "$tmp/traces/c.txt"
    bash --norc --noprofile > "$tmp/comp.out" 2> "$tmp/comp.err" <<EOF
source "$prefix/share/bash-completion/completions/gcscope" || exit 1
complete -p gcscope
t() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); COMPREPLY=(); _gcscope; echo "\${*:2}: \${COMPREPLY[*]}"; }
t "$prefix/bin/gcscope" ""
t "$prefix/bin/gcscope" st
t "$prefix/bin/gcscope" stats --format ""
t "$prefix/bin/gcscope" info --format = j
t "$prefix/bin/gcscope" events -
t "$prefix/bin/gcscope" record --o
t "$prefix/bin/gcscope" stats "$tmp/traces/"
t "$prefix/bin/gcscope" help ob
t "$prefix/bin/gcscope" profile --ty
t "$prefix/bin/gcscope" profile -- complet
EOF
    [ ! -s "$tmp/comp.err" ] || { cat "$tmp/comp.err"; fail "the bash completion writes on stderr"; }
    # the options of `events` as its help lists them (the completion reads them from there)
    ev_opts=$("$prefix/bin/gcscope" help events | awk '/^ +(-[a-zA-Z], )?--[a-z]/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^--[a-z]/) { printf "%s%s", sep, $i; sep = " "; break } }')
    case " $ev_opts " in *" --format "*" --limit "*" --help "*) ;; *) fail "gcscope help events lists no options: $ev_opts";; esac
    cat > "$tmp/comp.want" <<EOF
complete -F _gcscope gcscope
: info events stats objects allocs ps live record report compare check profile help
st: stats
stats --format : table json csv
info --format = j: json
events -: $ev_opts
record --o: --output
stats $tmp/traces/: $tmp/traces/a.nettrace $tmp/traces/b.netperf $tmp/traces/dir
help ob: objects
profile --ty: --types
profile -- complet: complete
EOF
    cmp -s "$tmp/comp.want" "$tmp/comp.out" || { diff "$tmp/comp.want" "$tmp/comp.out"; fail "bash completion (< want, > got)"; }
else
    echo "skipped: bash absent: the completion is not tried"
fi

# ---- uninstall removes exactly our files ----
: > "$prefix/lib/someone-elses.so"
run_make uninstall PREFIX="$prefix" > "$tmp/make.out" 2>&1 || { cat "$tmp/make.out"; fail "make uninstall failed"; }
left=$(installed_files "$prefix")
[ "$left" = "lib/someone-elses.so" ] || fail "after make uninstall: left '$left' (want only lib/someone-elses.so)"
[ ! -d "$prefix/include/gcscope" ] || fail "make uninstall left include/gcscope/"

# ---- DESTDIR stages the tree; the paths inside name PREFIX ----
stage=$tmp/stage
run_make install DESTDIR="$stage" PREFIX=/opt/gcscope > "$tmp/make.out" 2>&1 || { cat "$tmp/make.out"; fail "make install DESTDIR=... failed"; }
installed_files "$stage/opt/gcscope" > "$tmp/got"
cmp -s "$tmp/expected" "$tmp/got" || { diff "$tmp/expected" "$tmp/got"; fail "DESTDIR install: files differ from the list"; }
[ "$(installed_files "$stage" | wc -l)" -eq "$(wc -l < "$tmp/expected")" ] || fail "DESTDIR install wrote outside DESTDIR/PREFIX"
grep -qx 'prefix=/opt/gcscope' "$stage/opt/gcscope/lib/pkgconfig/gcscope.pc" || fail "gcscope.pc (DESTDIR) does not say prefix=/opt/gcscope"
grep -q "$stage" "$stage/opt/gcscope/lib/pkgconfig/gcscope.pc" && fail "gcscope.pc names the DESTDIR staging folder"
run_make uninstall DESTDIR="$stage" PREFIX=/opt/gcscope > "$tmp/make.out" 2>&1 || { cat "$tmp/make.out"; fail "make uninstall DESTDIR=... failed"; }
[ -z "$(installed_files "$stage")" ] || fail "after make uninstall DESTDIR=...: left $(installed_files "$stage")"

echo "install: $(wc -l < "$tmp/expected") files installed, used and uninstalled; $(wc -l < "$tmp/exported" 2>/dev/null || echo '?') symbols exported; $example"
