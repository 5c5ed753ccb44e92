#!/usr/bin/env bash
# Instructions per Tween per frame, counted by callgrind: the load-independent figure for the frame tick (issue
# 12). Time per frame moves with the load of this shared machine; instruction counts do not (the same total
# twice, whatever else runs). For each side it runs one `motion-benchmark --profile-tweens COUNT SIDE`
# (a warm-up of 60 frames, then 21 timed runs of 60 frames: 1,321 frames of COUNT tweens) under
# `valgrind --tool=callgrind`, collecting only inside the frame function, and divides by frames × COUNT.
#
#   Benchmarks/callgrind-tweens.sh [COUNT]     (default 10000; from the repository root, after swift build -c release)
#   SIDES="limit in-process" Benchmarks/callgrind-tweens.sh     (only those sides)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-10000}"
binary=.build/release/motion-benchmark
[ -x "$binary" ] || { echo "error: $binary not found; run swift build -c release first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "error: valgrind not found; apt-get install valgrind" >&2; exit 1; }
frames=1321
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf '%-12s %s\n' side "instructions per tween per frame ($count tweens, $frames frames)"
for side in ${SIDES:-limit in-process plugin}; do
    case "$side" in
        limit) collect='ctweenlimit_frame' ;;
        *) collect='$s10MotionCore9SchedulerC12advanceFrame2to*' ;;
    esac
    valgrind --tool=callgrind --callgrind-out-file="$out/$side.out" --toggle-collect="$collect" \
        "$binary" --profile-tweens "$count" "$side" > /dev/null 2> "$out/$side.log"
    total="$(sed -n 's/^summary: *//p' "$out/$side.out" | head -n 1)"
    [ -n "$total" ] || { echo "error: no callgrind summary for $side (see $out/$side.log)" >&2; exit 1; }
    python3 -c "print('%-12s %.0f' % ('$side', $total / ($frames * $count)))"
done
