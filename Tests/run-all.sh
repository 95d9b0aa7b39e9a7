#!/usr/bin/env bash
# Runs every test suite of the project and ends with one line that counts them
# all: `total: N passed, N failed`. Exits non-zero if anything failed.
#
#  1. swift test (unit, rendering and end-to-end suites) under a private
#     PulseAudio server (Tests/fixture/with-pulse.sh) and private session and
#     system buses (Tests/fixture/with-dbus.sh); tests that need them fail
#     rather than skip here (SYSOUND_REQUIRE_PULSE=1, SYSOUND_REQUIRE_DBUS=1).
#     Then the suites whose outcome the sound server can change again under
#     a private PipeWire (Tests/fixture/with-pipewire.sh, which brings its own
#     buses), counted separately.
#  2. the library as apps meet it (Tests/library/run.sh): the DocC catalog
#     (make docs) without warnings and every public symbol documented, the
#     example app under Examples/ and the catalog's examples compiled as an
#     outside package, and a check that such a package cannot name the wire
#     protocol's types. Then the real-kernel force-feedback test under qemu
#     (Tests/kernel/run.sh).
#  3. the fuzz targets, 10 s each, two at a time on two cores (Tests/fuzz/run.sh 10), crash inputs of
#     earlier runs and the committed regressions replayed first; longer runs
#     by hand (Tests/fuzz/run.sh 600 TARGET) find what 10 s does not.
#  4. a smoke run of the benchmark (Tests/bench/run.sh --smoke): a few
#     iterations of every figure on both servers (the two at once), no
#     thresholds, so the bench cannot rot; then Tests/bench/report.py on its JSON.
#  5. installing (Tests/install/run.sh): make install and uninstall, the
#     installed programs, man pages and completions, and as root the Debian
#     package installed, used and removed.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d /tmp/sysound-tests.XXXXXX)
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0

# Each count also says how long its part took: the whole run must stay
# under 30 minutes on 2 cores (README "Set-up").
part_started=$SECONDS
count() { # name passed failed
    echo "== $1: $2 passed, $3 failed ($((SECONDS - part_started)) s)"
    part_started=$SECONDS
    passed=$((passed + $2)) failed=$((failed + $3))
}

# What failed, by name, repeated at the very end: CI shows only the last lines
# of a run, and a count alone does not say which test to look at.
failures="$logs/failures"
: >"$failures"
note_failures() { # name log
    { grep -E ": error: " "$2" | sed -E "s|^.*/Tests/|Tests/|" | cut -c1-220 | sed "s|^|$1: |"
      grep -E '^(FAIL |fuzz: .*FAILED)' "$2" | sed "s|^|$1: |"
    } >>"$failures" || true
}

echo "== building (debug, with tests)"
if ! swift build --build-tests 2>&1 | tee "$logs/build.log" | grep -E 'error:|warning: unre|Compiling|Build complete' | grep -v Compiling; then
    :
fi
if ! grep -q 'Build complete' "$logs/build.log"; then
    tail -40 "$logs/build.log"
    echo "total: 0 passed, 1 failed"
    exit 1
fi

# Counts an XCTest run by test case: its last summary gives how many ran and
# were skipped, its "Test Case '...' failed" lines which failed (the summary's
# "M failures" counts assertions, not tests); no summary (a crash) counts as
# one failure.
count_xctest() { # name log
    local summary total fails skipped
    summary=$(grep -E "Test Suite 'All tests' (passed|failed)|Test Suite 'Selected tests' (passed|failed)" -A1 "$2" | grep -E 'Executed [0-9]+ tests?' | tail -1)
    if [ -n "$summary" ]; then
        total=$(grep -oE 'Executed [0-9]+' <<<"$summary" | grep -oE '[0-9]+')
        skipped=$(grep -oE '[0-9]+ tests? skipped' <<<"$summary" | grep -oE '[0-9]+' || true)
        fails=$(grep -E "^Test Case '.*' failed" "$2" | sort -u | wc -l)
        count "$1" $((total - fails - ${skipped:-0})) "$fails"
        [ "$fails" -eq 0 ] || note_failures "$1" "$2"
        [ -z "$skipped" ] || grep -E ": Test skipped" "$2" | sed -E "s|^.*/Tests/|  skipped: Tests/|" | sort -u | cut -c1-220
    else
        echo "$1 ended without a summary (crash?)"
        count "$1" 0 1
        { note_failures "$1" "$2"; echo "$1: no summary; its last line: $(tail -1 "$2")"; } >>"$failures"
    fi
}

echo "== swift test (with a private PulseAudio server and private D-Bus buses)"
SYSOUND_REQUIRE_PULSE=1 SYSOUND_REQUIRE_DBUS=1 Tests/fixture/with-dbus.sh Tests/fixture/with-pulse.sh swift test --skip-build 2>&1 | tee "$logs/swift-test.log"
count_xctest "swift test" "$logs/swift-test.log"

# The suites that touch the sound server, again on PipeWire: sound heard and
# silenced end to end, device loss and return, the idle pause, the server
# killed and restarted under a running daemon (about 2 minutes).
# Left out: end-to-end suites whose subject is a decision or a process's own
# behaviour, which the sound server does not change (the lock's and the
# desktop's sources, the documented names, feedbackd's calls and themes but
# for a theme's media role, events over the socket, threads, real-time
# budgets, rendering to a file, socket activation, the journal).
pipewire_suites='EndToEndTests|PulseDeviceTests|IdlePauseTests|PulseStreamTests|OpenAheadTests|StreamRoleTests|OutputSelectionTests|FaultTests/testPulseAudioKilledAndRestartedWhileSoundsPlay|SoundServerProbeTests/testTheRealServerRepliesToTheAuthPacket'
pipewire_skipped='ReloadWhilePlayingTests|SessionLockTests|DesktopSettingsTests|DocumentationTests|DBusFaceTests|FeedbackdThemeFaceTests/test(?!TheThemesMediaRoleIsTheStreamsRole)|EventCommandTests|WaitWithoutWorkersTests|PlainUserRealtimeTests|RealtimeBudgetTests|CLIRenderTests|SocketActivationTests|JournalStreamTests'
echo "== swift test on PipeWire ($pipewire_suites, not $pipewire_skipped)"
SYSOUND_REQUIRE_PULSE=1 SYSOUND_REQUIRE_DBUS=1 Tests/fixture/with-pipewire.sh swift test --skip-build --filter "$pipewire_suites" --skip "$pipewire_skipped" 2>&1 | tee "$logs/swift-test-pipewire.log"
count_xctest "swift test on PipeWire" "$logs/swift-test-pipewire.log"

# Runs a suite whose output ends with "N passed, N failed" and counts it;
# no such line (a crash, a hang cut short) counts as one failure.
run_counted() { # name command...
    local name=$1 log="$logs/$1.log"
    shift
    "$@" 2>&1 | tee "$log"
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    if [ -n "$line" ]; then
        count "$name" "$(cut -d' ' -f1 <<<"$line")" "$(cut -d' ' -f3 <<<"$line")"
        [ "$(cut -d' ' -f3 <<<"$line")" = 0 ] || note_failures "$name" "$log"
    else
        count "$name" 0 1
        echo "$name: no count; its last line: $(tail -1 "$log")" >>"$failures"
    fi
}

echo "== the library as apps meet it: DocC catalog, example app, the wire out of reach"
run_counted library Tests/library/run.sh

# The fuzz targets' build (one compiler at a time) beside the qemu guest
# (one emulated CPU): the two cores are both used; its log goes in the fuzz count.
Tests/fuzz/run.sh build >"$logs/fuzz-build.log" 2>&1 &
fuzz_build=$!

echo "== real-kernel force-feedback test (qemu)"
run_counted kernel Tests/kernel/run.sh

echo "== fuzzing (libFuzzer + AddressSanitizer, 10 s per target)"
wait "$fuzz_build" || true
cat "$logs/fuzz-build.log"
run_counted fuzz Tests/fuzz/run.sh 10

echo "== benchmark smoke run"
if Tests/bench/run.sh --smoke --json "$logs/bench.json" 2>&1 | tee "$logs/bench.log"; then
    count "bench smoke" 1 0
else
    count "bench smoke" 0 1
    grep -E 'INVALID|error|Error' "$logs/bench.log" | tail -5 | sed 's/^/bench smoke: /' >>"$failures"
fi
# The generator of docs/benchmarks.md (what `make bench` ends with) on the smoke
# run's JSON, so it cannot rot either; its page goes to the logs, not to docs/.
smoke_json=("$logs/bench-pulseaudio.json" "$logs/bench-pipewire.json")
if [ -s "${smoke_json[0]}" ] && [ -s "${smoke_json[1]}" ]; then
    if Tests/bench/report.py --output "$logs/benchmarks.md" "${smoke_json[@]}" 2>&1 | tee -a "$logs/bench.log"; then
        count "bench report" 1 0
    else
        count "bench report" 0 1
        echo "bench report: Tests/bench/report.py failed on the smoke run's JSON" >>"$failures"
    fi
fi

# After the bench smoke run, whose release build it reuses.
echo "== install: make install, man pages, completions, the Debian package"
run_counted install Tests/install/run.sh

if [ -s "$failures" ]; then
    echo "== what failed (the first 20 lines; each suite's output is above)"
    head -20 "$failures"
fi
echo "== the whole run took $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
