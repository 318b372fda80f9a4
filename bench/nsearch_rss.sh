#!/bin/sh
# Peak memory of each library's first neighbour-list search (bench_nsearch), each in a
# fresh process: getrusage's ru_maxrss minus the resident size just before the search
# (the points, 12 bytes each, are counted before; copies a library makes are counted in).
#
#   bench/nsearch_rss.sh [bench_nsearch] [workload] [threads]
#
# workload: block (default), splash, small, block_random; QUOCT_BENCH_SMOKE=1 or
# QUOCT_BENCH_N=<n> choose the size as for the benchmarks.
set -eu
bin=${1:-build/bench/bench_nsearch}
workload=${2:-block}
threads=${3:-1}
for lib in quoct quoct_octree treensearch compactnsearch; do
    QUOCT_NSEARCH_RSS=$lib QUOCT_NSEARCH_WORKLOAD=$workload QUOCT_NSEARCH_THREADS=$threads "$bin" ||
        echo "($lib skipped)"
    echo
done
