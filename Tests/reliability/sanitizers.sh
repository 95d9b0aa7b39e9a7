#!/usr/bin/env bash
# The test suite under ThreadSanitizer and AddressSanitizer, each in its own
# scratch path (.build-tsan, .build-asan), under the PulseAudio fixture and
# private session and system buses (as Tests/run-all.sh runs the suite).
#
#   Tests/reliability/sanitizers.sh [thread|address]... [-- swift-test-filter]
#
# Default: both. Without a filter every suite runs, end-to-end and
# reliability ones included (the daemon and CLI subprocesses are the
# sanitized builds too, since they are the binaries next to the tests).
# Sanitizer reports fail the run. Every process (tests, daemons, CLIs) writes
# its reports to a file of its own (log_path), so a report from a subprocess
# whose stderr a test swallowed is still counted; Tests/reliability/*.supp
# hold the few reports that are not ours (each explained there).
# Prints `sanitizer: N passed, N failed` per sanitizer and `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
kinds=() filter=()
while [ $# -gt 0 ]; do
    case $1 in
        --) shift; filter=(--filter "$1"); shift ;;
        thread|address) kinds+=("$1"); shift ;;
        *) echo "usage: $0 [thread|address]... [-- filter]" >&2; exit 2 ;;
    esac
done
[ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
passed=0 failed=0
for kind in "${kinds[@]}"; do
    short=${kind:0:1}san   # tsan / asan
    scratch=.build-$short
    log=$(mktemp /tmp/sysound-$short.XXXXXX)
    reports_dir=$(mktemp -d /tmp/sysound-$short-reports.XXXXXX)
    echo "== $kind sanitizer: building ($scratch)"
    if ! swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" >"$log" 2>&1; then
        grep -E 'error:' "$log" | head -20
        echo "$kind: 0 passed, 1 failed (build)"
        failed=$((failed + 1))
        continue
    fi
    echo "== $kind sanitizer: swift test"
    # Swift's backtracer and the sanitizers both want the crashing signal.
    SWIFT_BACKTRACE=enable=no \
    TSAN_OPTIONS="halt_on_error=0:report_signal_unsafe=0:exitcode=66:second_deadlock_stack=1:log_path=$reports_dir/report:suppressions=$root/Tests/reliability/tsan.supp" \
    ASAN_OPTIONS="halt_on_error=1:exitcode=66:log_path=$reports_dir/report:detect_leaks=1:detect_stack_use_after_return=0" \
    LSAN_OPTIONS="suppressions=$root/Tests/reliability/lsan.supp:print_suppressions=0" \
    SYSOUND_REQUIRE_PULSE=1 SYSOUND_REQUIRE_DBUS=1 SYSOUND_SANITIZER=$kind \
        timeout --kill-after=30 1800 \
        Tests/fixture/with-dbus.sh Tests/fixture/with-pulse.sh swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" "${filter[@]}" >>"$log" 2>&1
    status=$?
    [ "$status" -ne 124 ] || echo "$kind: the run did not end within 30 minutes (stopped)"
    # XCTest's last line: "Executed N tests, with [K tests skipped and] M failures".
    summary=$(grep -E "Test Suite '(All|Selected) tests' (passed|failed)" -A1 "$log" | grep -E 'Executed [0-9]+ tests?' | tail -1)
    n=$(grep -oE 'Executed [0-9]+' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
    f=$(grep -oE '[0-9]+ failures?' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
    skipped=$(grep -oE '[0-9]+ tests? skipped' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
    n=$((n - skipped))
    report='^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)'
    reports=$(cat "$log" "$reports_dir"/report.* 2>/dev/null | grep -cE "$report")
    if [ -z "$summary" ] || [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
    if [ "$reports" -gt 0 ]; then
        echo "$kind: $reports sanitizer report(s) (files in $reports_dir); first ones:"
        cat "$log" "$reports_dir"/report.* 2>/dev/null | grep -E -A12 "$report" | head -60
        [ "$f" -gt 0 ] || f=1
    fi
    grep -E "error: -\[|failed \(" "$log" | head -20
    echo "$kind sanitizer: $((n - f)) passed, $f failed (log $log)"
    passed=$((passed + n - f)) failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
