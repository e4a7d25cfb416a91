#!/bin/sh
# What `make install` puts in place works: into a scratch DESTDIR, the
# pkg-config file builds and links a program against liblopt (static and
# shared), and the bash completion completes options, pass names after
# --pass= (past a comma too) and the values of --color.
# Usage: sh testsuite/install.sh   (from the top of the tree, after make)
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL install: $1"; fail=$((fail + 1)); }

prefix=/opt/lopt-test
MAKEFLAGS= MFLAGS= make -s -C "$top" install DESTDIR="$tmp/root" PREFIX=$prefix >/dev/null || bad "make install failed"
root=$tmp/root$prefix
for f in bin/lopt include/lopt.h lib/liblopt.a lib/liblopt.so lib/pkgconfig/lopt.pc \
         share/bash-completion/completions/lopt share/man/man1/lopt.1; do
    [ -e "$root/$f" ] && ok || bad "no $f"
done

# pkg-config: the flags it gives build a client (the prefix moved with DESTDIR)
if command -v pkg-config >/dev/null 2>&1; then
    sed "s|^prefix=.*|prefix=$root|" "$root/lib/pkgconfig/lopt.pc" >"$tmp/lopt.pc"
    grep -q "^prefix=$prefix\$" "$root/lib/pkgconfig/lopt.pc" && ok || bad "lopt.pc does not name the prefix $prefix"
    printf '#include <lopt.h>\n#include <stdio.h>\nint main(void) { puts(lopt_version()); return 0; }\n' >"$tmp/v.c"
    flags=$(PKG_CONFIG_PATH=$tmp pkg-config --cflags --libs lopt)
    if ${CC:-cc} -o "$tmp/v" "$tmp/v.c" $flags && LD_LIBRARY_PATH=$root/lib "$tmp/v" >"$tmp/out" &&
       [ "$(cat "$tmp/out")" = "$("$top/lopt" --version | sed 's/^lopt //')" ]; then ok; else bad "pkg-config's flags do not build and run a client"; fi
    sflags=$(PKG_CONFIG_PATH=$tmp pkg-config --static --cflags --libs lopt)
    if ${CC:-cc} -o "$tmp/vs" "$tmp/v.c" -Wl,-Bstatic $sflags -Wl,-Bdynamic 2>"$tmp/err" ||
       ${CC:-cc} -o "$tmp/vs" "$tmp/v.c" -I"$root/include" "$root/lib/liblopt.a" -lm -pthread; then ok; else bad "the static library does not link"; fi
else
    echo "  install: pkg-config is not installed: its check skipped"
fi

# the bash completion, driven as bash drives it
if command -v bash >/dev/null 2>&1; then
    complete_words() {
        PATH=$top:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lopt; printf "%s\n" "${COMPREPLY[@]}"' \
            sh "$root/share/bash-completion/completions/lopt" "$@" 2>&1
    }
    complete_words lopt --pass=ho | grep -qx -- '--pass=hoist' && ok || bad "--pass=ho does not complete to hoist"
    complete_words lopt --pass=hoist,fl | grep -qx -- '--pass=hoist,flow' && ok || bad "--pass=hoist,fl does not complete to flow"
    complete_words lopt --color=ne | grep -qx -- '--color=never' && ok || bad "--color=ne does not complete"
    complete_words lopt --list-p | grep -qx -- '--list-passes' && ok || bad "--list-p does not complete to --list-passes"
    complete_words lopt --verify-e | grep -qx -- '--verify-exec' && ok || bad "--verify-e does not complete"
fi
echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]
