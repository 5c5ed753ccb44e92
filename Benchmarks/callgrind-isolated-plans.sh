#!/usr/bin/env bash
# Instructions per Tween plan committed to an isolated TweenKit, counted by callgrind in both processes: the
# load-independent figure for `motion-benchmark --profile-plans isolated` (plans/s moves with the load of this
# shared machine, and a round trip's wake-ups with it; instruction counts do not). It runs
# `motion-benchmark --profile-plans isolated N` (one warm-up and 5 runs of N one-plan transactions over 100
# targets: 6 × N commits) under `valgrind --tool=callgrind --trace-children=yes` twice, for N = PLANS and
# N = 3 × PLANS, and divides the difference by the 12 × PLANS commits between them, so that what does not grow with
# the plans (the sandbox's start and library load, the first plans' interning, the frames between runs) drops out.
# Collection starts off and is toggled on entering `Scheduler.commit` (the host) and `SandboxServer.main` (the
# sandbox's whole life), and toggled back off inside `cmotionhost_ring_read`, the waits for the other side (whose
# spinning counts instructions in proportion to the time the other side takes, not to work): the host's count is
# its commits less their waits, the sandbox's everything it does for a plan (reading the request, the plugin's
# add_plan, the reply). The sandbox's total is the one valgrind prints on standard error at exit (the sandbox
# closes callgrind's file, Documentation/PITFALLS.md).
#
#   Benchmarks/callgrind-isolated-plans.sh [PLANS] [BINARY]   (default 1000 and .build/release/motion-benchmark;
#                                                              from the repository root, after swift build -c release)
set -euo pipefail
cd "$(dirname "$0")/.."
plans="${1:-1000}"
binary="${2:-.build/release/motion-benchmark}"
source Benchmarks/callgrind-common.sh
require_tools "$binary"
out="$(mktemp -d)"
trap '[ -n "${KEEP:-}" ] || rm -rf "$out"' EXIT

# Counts one run of N plans in $out/N: prints "HOST SANDBOX".
count() {
    local n="$1" dir="$out/$1"
    mkdir -p "$dir"
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$dir/plans.%p.out" --collect-atstart=no \
        --toggle-collect='$s10MotionCore9SchedulerC6commityyAA11TransactionVAA11CommitErrorVYKF' \
        --toggle-collect='$s10MotionHost13SandboxServerO4mains5NeverOyFZ' --toggle-collect='cmotionhost_ring_read' \
        "$binary" --profile-plans isolated "$n" > /dev/null 2> "$dir/plans.log"
    local sandbox host_file host
    sandbox="$(sandbox_count "$dir/plans.log")"
    host_file="$(grep -L '^cmd:.*motion-sandbox' "$dir"/plans.*.out | head -n 1)"
    host="$(sed -n 's/^summary: *//p' "$host_file" | head -n 1)"
    [ -n "$host" ] || { echo "error: no callgrind summary for the host (see $dir/plans.log)" >&2; exit 1; }
    echo "$host $sandbox"
}
read -r host1 sandbox1 < <(count "$plans")
read -r host3 sandbox3 < <(count "$((3 * plans))")
python3 -c "
n = 12 * $plans
host = ($host3 - $host1) / n
sandbox = ($sandbox3 - $sandbox1) / n
print('instructions per Tween plan committed to an isolated TweenKit: %.0f (host %.0f, sandbox %.0f; %d commits)' % (host + sandbox, host, sandbox, n))"
