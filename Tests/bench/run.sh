#!/usr/bin/env bash
# Builds the release `sysound`, `sysound-cli`, `sysound-engine` and `sysound-bench` (static
# Swift stdlib, as shipped) and runs the benchmark of issue 8. Arguments go to sysound-bench:
#
#   Tests/bench/run.sh                 the full run (< 5 min on 2 cores): table + JSON
#   Tests/bench/run.sh --smoke         a few iterations of every figure, no targets (< 60 s): CI
#   Tests/bench/run.sh --json out.json --figures 1,2
#
# The bench starts its own PulseAudio null sink (Tests/fixture/with-pulse.sh),
# daemons in temp state directories and a fake haptic device, and stops all of
# them by PID when it ends. SYSOUND_BENCH_SCRATCH picks the build directory
# (default .build, shared with `make release`).
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${SYSOUND_BENCH_SCRATCH:-.build}
build=(swift build -c release --static-swift-stdlib --scratch-path "$scratch")
log=$(mktemp /tmp/sysound-bench-build.XXXXXX)
trap 'rm -f "$log"' EXIT
for product in sysound sysound-cli sysound-engine sysound-bench; do
    if ! "${build[@]}" --product "$product" >"$log" 2>&1; then
        grep -E 'error:' "$log" | head -20 || tail -30 "$log"
        echo "bench: building $product failed (${build[*]} --product $product)" >&2
        exit 1
    fi
done
bin=$("${build[@]}" --show-bin-path)
"$bin/sysound-bench" "$@"
