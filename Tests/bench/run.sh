#!/usr/bin/env bash
# Builds the release `sysound`, `sysound-cli`, `sysound-play`, `sysound-engine` and `sysound-bench` (static
# Swift stdlib, as shipped) and runs the benchmark (docs/bench-method.md). Arguments go to sysound-bench:
#
#   Tests/bench/run.sh                 the full run on PulseAudio, then on PipeWire: tables + JSON
#   Tests/bench/run.sh --smoke         a few iterations of every figure, no targets: CI
#                                      (both servers at once, see below)
#   Tests/bench/run.sh --server pipewire --json out.json --figures 1,2
#
# --server pulseaudio|pipewire picks one sound server (default: both, one
# after the other; with --json PATH each writes PATH with the server's name
# before the extension). The bench starts its own server with a null sink
# (Tests/fixture/with-pulse.sh or with-pipewire.sh), daemons in temp state
# directories and a fake haptic device, and stops all of them by PID when it ends. SYSOUND_BENCH_SCRATCH picks the build directory
# (default .build, shared with `make release`).
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${SYSOUND_BENCH_SCRATCH:-.build}
build=(swift build -c release --static-swift-stdlib --scratch-path "$scratch")
log=$(mktemp /tmp/sysound-bench-build.XXXXXX)
trap 'rm -f "$log"' EXIT
for product in sysound sysound-cli sysound-play sysound-engine sysound-bench; do
    if ! "${build[@]}" --product "$product" >"$log" 2>&1; then
        grep -E 'error:' "$log" | head -20 || tail -30 "$log"
        echo "bench: building $product failed (${build[*]} --product $product)" >&2
        exit 1
    fi
done
bin=$("${build[@]}" --show-bin-path)

servers=(pulseaudio pipewire) args=() json= smoke=
while [ $# -gt 0 ]; do
    case $1 in
        --smoke) smoke=1; args+=("$1"); shift ;;
        --server) [ $# -ge 2 ] || { echo "bench: --server needs pulseaudio or pipewire" >&2; exit 2; }
                  servers=("$2"); shift 2 ;;
        --server=*) servers=("${1#--server=}"); shift ;;
        --json) [ $# -ge 2 ] || { echo "bench: --json needs a path" >&2; exit 2; }
                json=$2; shift 2 ;;
        --json=*) json=${1#--json=}; shift ;;
        *) args+=("$1"); shift ;;
    esac
done
json_args() { # server: sets out to the --json arguments of its run
    out=()
    if [ -n "$json" ]; then
        if [ ${#servers[@]} -gt 1 ]; then out=(--json "${json%.json}-$1.json"); else out=(--json "$json"); fi
    elif [ ${#servers[@]} -gt 1 ]; then
        out=(--json "$bin/sysound-bench-$1.json")
    fi
}
status=0
if [ -n "$smoke" ] && [ ${#servers[@]} -gt 1 ]; then
    # A smoke run judges nothing and sleeps most of its time (the gaps between
    # launches, quiet times), so its servers run at the same time, each with
    # its own fixture and temp directory: about half the wall time in CI. What
    # the contention moves are numbers nobody reads there; a full run measures
    # one server at a time, alone. Each run's output is shown whole when it ends.
    outputs=$(mktemp -d /tmp/sysound-bench-smoke.XXXXXX)
    trap 'rm -f "$log"; rm -rf "$outputs"' EXIT
    pids=()
    for server in "${servers[@]}"; do
        json_args "$server"
        "$bin/sysound-bench" --server "$server" "${out[@]}" "${args[@]}" >"$outputs/$server.log" 2>&1 &
        pids+=($!)
    done
    echo "== sysound-bench on ${servers[*]} at once (smoke); each one's output when both have ended"
    for i in "${!servers[@]}"; do
        wait "${pids[$i]}" || status=$?
    done
    for server in "${servers[@]}"; do
        echo "== sysound-bench on $server"
        cat "$outputs/$server.log"
    done
    exit "$status"
fi
for server in "${servers[@]}"; do
    echo "== sysound-bench on $server"
    json_args "$server"
    "$bin/sysound-bench" --server "$server" "${out[@]}" "${args[@]}" || status=$?
done
exit "$status"
