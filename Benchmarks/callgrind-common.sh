# Shared by the Benchmarks/callgrind-*.sh scripts (sourced, not run): the checks before a count, and the sandbox's
# count of an isolated run.

# require_tools BINARY: fails with a line saying what to do when the benchmark binary or valgrind is missing.
require_tools() {
    [ -x "$1" ] || { echo "error: $1 not found; run swift build -c release first" >&2; exit 1; }
    command -v valgrind >/dev/null || { echo "error: valgrind not found; apt-get install valgrind" >&2; exit 1; }
}

# sandbox_count LOG: the instructions valgrind counted in the motion-sandbox child of a `--trace-children=yes`
# run whose standard error is LOG. The sandbox closes every descriptor it was not given, callgrind's output file
# too, so its count is the total valgrind prints on its standard error at exit; the sandbox ends after the host (it
# sees the host's end of its channel close), so this waits for that line, at most 60 s.
sandbox_count() {
    local log="$1" pid count=""
    pid="$(sed -n 's/^==\([0-9]*\)== Command: .*motion-sandbox.*/\1/p' "$log" | head -n 1)"
    [ -n "$pid" ] || { echo "error: no sandbox under valgrind (see $log)" >&2; exit 1; }
    for _ in $(seq 600); do
        count="$(sed -n "s/^==$pid== Collected : *//p" "$log" | head -n 1)"
        [ -n "$count" ] && break
        sleep 0.1
    done
    [ -n "$count" ] || { echo "error: no callgrind count for the sandbox (see $log)" >&2; exit 1; }
    echo "$count"
}
