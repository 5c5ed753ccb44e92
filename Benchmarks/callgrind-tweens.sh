#!/usr/bin/env bash
# Instructions per Tween per frame, counted by callgrind: the load-independent figure for the frame tick (issue
# 12). Time per frame moves with the load of this shared machine; instruction counts do not (the same total
# twice, whatever else runs). For each side it runs one `motion-benchmark --profile-tweens COUNT SIDE`
# (a warm-up of 60 frames, then 21 timed runs of 60 frames: 1,321 frames of COUNT tweens) under
# `valgrind --tool=callgrind`, collecting only inside the frame function, and divides by frames × COUNT.
# The isolated side counts both processes (--trace-children=yes): the host inside its frame function, less
# its wait for the sandbox's reply (`cmotionhost_ring_read`, whose spinning counts instructions in proportion
# to the time the sandbox takes, not to work), and the sandbox inside its `update_many` handler.
#
#   Benchmarks/callgrind-tweens.sh [COUNT [SIDE...]]   (default 10000, every side; from the repository root, after
#                                                       swift build -c release; SIDE: limit in-process plugin isolated)
#   BINARY=path/to/motion-benchmark Benchmarks/callgrind-tweens.sh ...   counts another build (an older commit's)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-10000}"
shift $(($# > 0 ? 1 : 0))
sides=("${@:-limit}")
[ $# -gt 0 ] || sides=(limit in-process plugin isolated)
binary="${BINARY:-.build/release/motion-benchmark}"
source Benchmarks/callgrind-common.sh
require_tools "$binary"
frames=1321
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf '%-12s %s\n' side "instructions per tween per frame ($count tweens, $frames frames)"
# The inclusive count of the functions matching $2 in callgrind file $1 (0 when none ran).
inclusive() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        python3 -c "import re,sys; print(sum(int(m.group(1).replace(',', '')) for m in (re.match(r'\s*([\d,]+)\s.*' + re.escape(sys.argv[1]), l) for l in sys.stdin) if m))" "$2"
}
summary() { sed -n 's/^summary: *//p' "$1" | head -n 1; }
for side in "${sides[@]}"; do
    case "$side" in
        limit) collect=(--toggle-collect='ctweenlimit_frame') ;;
        isolated) collect=(--trace-children=yes --toggle-collect='$s10MotionCore9SchedulerC12advanceFrame2to*' --toggle-collect='*Server*updateMany*') ;;
        *) collect=(--toggle-collect='$s10MotionCore9SchedulerC12advanceFrame2to*') ;;
    esac
    # Under valgrind on a busy machine the sandbox may take longer than the default 10 s plugin timeout to load.
    MOTION_BENCHMARK_PLUGIN_TIMEOUT=300 valgrind --tool=callgrind --callgrind-out-file="$out/$side.%p.out" "${collect[@]}" \
        "$binary" --profile-tweens "$count" "$side" > /dev/null 2> "$out/$side.log" ||
        { echo "error: $side failed under valgrind (see the last lines of its log below)" >&2; tail -n 5 "$out/$side.log" >&2; exit 1; }
    if [ "$side" != isolated ]; then
        total="$(summary "$out/$side".*.out)"
        [ -n "$total" ] || { echo "error: no callgrind summary for $side (see $out/$side.log)" >&2; exit 1; }
        python3 -c "print('%-12s %.0f' % ('$side', $total / ($frames * $count)))"
        continue
    fi
    # Waits for the sandbox's count: it ends after the host, and reading the log at once missed it now and then.
    sandbox="$(sandbox_count "$out/$side.log")"
    host_file="$(grep -L '^cmd:.*motion-sandbox' "$out/$side".*.out | head -n 1)"
    host="$(summary "$host_file")"
    wait="$(inclusive "$host_file" cmotionhost_ring_read)"
    python3 -c "
n = $frames * $count
print('%-12s %.0f (host %.0f, sandbox %.0f; the host waited %.0f more)' % ('$side', ($host - $wait + $sandbox) / n, ($host - $wait) / n, $sandbox / n, $wait / n))"
done
