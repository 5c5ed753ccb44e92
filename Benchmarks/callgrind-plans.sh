#!/usr/bin/env bash
# Instructions per Tween plan committed to TweenKit, counted by callgrind: the load-independent figure for
# `motion-benchmark --profile-plans` (plans/s moves with the load of this shared machine; instruction counts do
# not). It runs `motion-benchmark --profile-plans PLANS` (one warm-up and 5 runs of PLANS one-plan
# transactions over 100 targets: 6 × PLANS commits) under `valgrind --tool=callgrind`, collecting only inside
# `Scheduler.commit` (manifest validation and defaults, the plan's way to the plugin, the plugin's reading and
# performing), and divides by the commits. Those include first-use costs (loading the library, making 100
# performers, about 1,400 instructions per plan at 2,000): a second run of 2 × PLANS, counted at the same time,
# gives the steady state, (its count - the first run's) / (6 × PLANS), which is what plans/s measures.
#
#   Benchmarks/callgrind-plans.sh [PLANS] [BINARY]   (default 2000 and .build/release/motion-benchmark; from
#                                                    the repository root, after swift build -c release)
set -euo pipefail
cd "$(dirname "$0")/.."
plans="${1:-2000}"
binary="${2:-.build/release/motion-benchmark}"
source Benchmarks/callgrind-common.sh
require_tools "$binary"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
count() {  # count PLANS-PER-RUN NAME: callgrind's total inside Scheduler.commit
    valgrind --tool=callgrind --callgrind-out-file="$out/$2.out" \
        --toggle-collect='$s10MotionCore9SchedulerC6commityyAA11TransactionVAA11CommitErrorVYKF' \
        "$binary" --profile-plans "$1" > /dev/null 2> "$out/$2.log" || { cat "$out/$2.log" >&2; exit 1; }
}
count "$plans" plans & first=$!
count "$((2 * plans))" double & second=$!
wait "$first" && wait "$second"
total="$(sed -n 's/^summary: *//p' "$out/plans.out" | head -n 1)"
double="$(sed -n 's/^summary: *//p' "$out/double.out" | head -n 1)"
[ -n "$total" ] && [ -n "$double" ] || { echo "error: no callgrind summary (see $out/*.log)" >&2; exit 1; }
python3 -c "print('instructions per Tween plan committed to TweenKit: %.0f (%d commits); steady state: %.0f' % ($total / (6 * $plans), 6 * $plans, ($double - $total) / (6 * $plans)))"
