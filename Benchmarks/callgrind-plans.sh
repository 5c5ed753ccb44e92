#!/usr/bin/env bash
# Instructions per Tween plan committed to TweenKit, counted by callgrind: the load-independent figure for
# `motion-benchmark --profile-plans` (plans/s moves with the load of this shared machine; instruction counts do
# not). It runs `motion-benchmark --profile-plans PLANS` (one warm-up and 5 runs of PLANS one-plan
# transactions over 100 targets: 6 × PLANS commits) under `valgrind --tool=callgrind`, collecting only inside
# `Scheduler.commit` (manifest validation and defaults, the plan's way to the plugin, the plugin's reading and
# performing), and divides by the commits.
#
#   Benchmarks/callgrind-plans.sh [PLANS] [BINARY]   (default 2000 and .build/release/motion-benchmark; from
#                                                    the repository root, after swift build -c release)
set -euo pipefail
cd "$(dirname "$0")/.."
plans="${1:-2000}"
binary="${2:-.build/release/motion-benchmark}"
[ -x "$binary" ] || { echo "error: $binary not found; run swift build -c release first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "error: valgrind not found; apt-get install valgrind" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/plans.out" \
    --toggle-collect='$s10MotionCore9SchedulerC6commityyAA11TransactionVAA11CommitErrorVYKF' \
    "$binary" --profile-plans "$plans" > /dev/null 2> "$out/plans.log"
total="$(sed -n 's/^summary: *//p' "$out/plans.out" | head -n 1)"
[ -n "$total" ] || { echo "error: no callgrind summary (see $out/plans.log)" >&2; exit 1; }
python3 -c "print('instructions per Tween plan committed to TweenKit: %.0f (%d commits)' % ($total / (6 * $plans), 6 * $plans))"
