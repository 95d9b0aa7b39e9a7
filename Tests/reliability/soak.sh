#!/usr/bin/env bash
# The long forms of the load and soak tests (Tests/ReliabilityTests/LoadTests):
# 100 concurrent clients × 1000 requests, then 1 000 000 requests from 8
# clients with the daemon's RSS sampled 20 times after a warm-up (growth must
# stay under 5 MB). About 10–20 minutes on a 2-core VM.
#
#   Tests/reliability/soak.sh [total-requests]
#
# Prints the figures (`reliability: …` lines) and `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
scratch=${SYSOUND_SCRATCH:-.build-rel}
total=${1:-1000000}
swift build --build-tests --scratch-path "$scratch" 2>&1 | grep -E 'error:|Build complete' || true
log=$(mktemp /tmp/sysound-soak.XXXXXX)
trap 'rm -f "$log"' EXIT
SYSOUND_REQUIRE_PULSE=1 SYSOUND_LOAD_CLIENTS=100 SYSOUND_LOAD_REQUESTS=1000 \
SYSOUND_SOAK_REQUESTS=$total SYSOUND_SOAK_CLIENTS=8 \
    Tests/fixture/with-pulse.sh swift test --skip-build --scratch-path "$scratch" --filter 'ReliabilityTests.LoadTests' 2>&1 | tee "$log"
grep '^reliability:' "$log"
summary=$(grep -oE 'Executed [0-9]+ tests?, with [0-9]+ failures?' "$log" | tail -1)
n=$(grep -oE 'Executed [0-9]+' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
f=$(grep -oE 'with [0-9]+' <<<"$summary" | grep -oE '[0-9]+' || echo 1)
[ -n "$summary" ] || { n=0 f=1; }
echo "$((n - f)) passed, $f failed"
[ "$f" -eq 0 ]
