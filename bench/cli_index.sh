#!/bin/sh
# Whole-process times of the `quoct` command on the bundled cities (data/cities.csv, 135k
# rows): `near --k 5` from the CSV file and from an index file made by `quoct index`, and
# `quoct index` itself. Uses hyperfine when installed (Debian: hyperfine), else runs each
# command RUNS times and prints the median wall time.
#
#   bench/cli_index.sh [path/to/quoct] [RUNS]      (default: build/src/quoct, 50 runs)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
quoct=${1:-$here/build/src/quoct}
runs=${2:-50}
csv=$here/data/cities.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
index=$work/cities.quoct
"$quoct" index "$csv" -o "$index" > /dev/null

near="near --lon 2.35 --lat 48.86 --k 5"
"$quoct" $near "$csv" > "$work/from_csv"
"$quoct" $near "$index" > "$work/from_index"
cmp "$work/from_csv" "$work/from_index"  # the same answer, byte for byte

if command -v hyperfine > /dev/null; then
    hyperfine -N --warmup 3 --runs "$runs" \
        -n "near from CSV" "$quoct $near $csv" \
        -n "near from index file" "$quoct $near $index" \
        -n "quoct index" "$quoct index $csv -o $work/again.quoct"
else
    median() {  # median wall time in ms of RUNS runs of "$@"
        i=0
        while [ $i -lt "$runs" ]; do
            s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N)
            echo $(( (e - s) / 1000 )); i=$((i + 1))
        done | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f ms\n", a[int((NR + 1) / 2)] / 1000 }'
    }
    printf 'near from CSV:        '; median "$quoct" $near "$csv"
    printf 'near from index file: '; median "$quoct" $near "$index"
    printf 'quoct index:          '; median "$quoct" index "$csv" -o "$work/again.quoct"
fi
