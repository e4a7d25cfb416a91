#!/bin/sh
# The manual's operator table (man/lopt.1, OPERATORS) is what `lopt
# --list-ops` prints from the registry, between two marker lines.
#   sh man/ops-table.sh LOPT           rewrites the table in man/lopt.1
#   sh man/ops-table.sh LOPT --check   fails when the table differs
set -e
lopt=${1:?usage: sh man/ops-table.sh LOPT [--check]}
dir=$(dirname "$0")
man="$dir/lopt.1"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.table"' EXIT
"$lopt" --list-ops | sed 's/\\/\\e/g; s/^\./\\\&./' >"$tmp.table"
awk -v table="$tmp.table" '
    /^\.\\" BEGIN OPERATOR TABLE/ { print; print ".nf"; print ".ft CR"; while ((getline l < table) > 0) print l;
                                    print ".ft"; print ".fi"; skip = 1; next }
    /^\.\\" END OPERATOR TABLE/ { skip = 0 }
    !skip { print }
' "$man" >"$tmp"
if ! grep -q '^\.\\" BEGIN OPERATOR TABLE' "$man"; then
    echo "ops-table: $man has no operator table markers" >&2
    exit 1
fi
if [ "$2" = --check ]; then
    if ! cmp -s "$tmp" "$man"; then
        echo "ops-table: the operator table of $man differs from lopt --list-ops (sh man/ops-table.sh ./lopt rewrites it):" >&2
        diff "$man" "$tmp" >&2 || true
        exit 1
    fi
    echo "ops-table: man/lopt.1 lists the $(($(wc -l <"$tmp.table") - 1)) registered operators"
else
    cp "$tmp" "$man"
fi
