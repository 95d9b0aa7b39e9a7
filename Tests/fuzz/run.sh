#!/usr/bin/env bash
# Builds the libFuzzer targets of Tests/fuzz/targets and runs each for a
# bounded time, then replays every committed regression input.
#
#   Tests/fuzz/run.sh [seconds-per-target] [target...]
#   Tests/fuzz/run.sh build [target...]     build only (prints "fuzz: built")
#
# Prints one line per target and ends with `N passed, N failed`; exits non-zero
# if a target crashed, leaked or broke a property (the crashing input is kept
# in $SYSOUND_FUZZ_OUT/crashes/<target>/, default .build-rel/fuzz/crashes).
#
# How it builds: swiftc -sanitize=fuzzer,address over the sources directly
# (SysoundCore; SysoundConfig with TOMLKit, whose C++ half toml++ is compiled
# with clang++ -fsanitize=fuzzer-no-link,address; the four SysoundAudio files
# the decoder needs), so no Package.swift target is involved. Objects are
# rebuilt only when a source is newer.
#
# Each run starts from the committed seeds (Tests/fuzz/corpus/<target>) in a
# scratch copy, so the repository's corpora stay small; pass
# SYSOUND_FUZZ_KEEP=1 to merge what was found back into the seed directory.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:-30}
shift || true
build_only=0
[ "$seconds" = build ] && build_only=1
out=${SYSOUND_FUZZ_OUT:-$root/.build-rel/fuzz}
all_targets=(WireRequest WireReply ControlValue HapticPattern AHAP Config Theme FeedbackdTheme Decoder)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
mkdir -p "$out/obj" "$out/bin" "$out/crashes"
log=$out/build.log
: > "$log"

san=(-sanitize=fuzzer,address)
swiftflags=(-O -g -swift-version 6 -parse-as-library "${san[@]}" -I "$out/obj")

newer() { # target sources... : true if target is missing or older than a source
    local t=$1; shift
    [ -e "$t" ] || return 0
    for s in "$@"; do [ "$s" -nt "$t" ] && return 0; done
    return 1
}

module() { # name swift-version sources... : object + swiftmodule in $out/obj
    local name=$1 version=$2; shift 2
    newer "$out/obj/$name.o" "$@" || return 0
    echo "fuzz: compiling $name" >&2
    swiftc -O -g -swift-version "$version" -parse-as-library "${san[@]}" -I "$out/obj" "${extra[@]}" \
        -module-name "$name" -package-name sysound -wmo -emit-module -emit-module-path "$out/obj/$name.swiftmodule" \
        -c -o "$out/obj/$name.o" "$@" >>"$log" 2>&1
}

build() {
    local extra=()
    mapfile -t core < <(find Sources/SysoundCore -name '*.swift' | sort)
    module SysoundCore 6 "${core[@]}" || return 1

    # TOMLKit from the package's checkout (any scratch path that resolved it).
    local toml
    toml=.build-rel/checkouts/TOMLKit
    [ -d "$toml" ] || toml=$(ls -d .build*/checkouts/TOMLKit 2>/dev/null | head -1)
    [ -n "$toml" ] || { echo "fuzz: no TOMLKit checkout; run swift package resolve first" >&2; return 1; }
    local inc=$toml/Sources/CTOML/include
    for cpp in "$toml"/Sources/CTOML/Sources/*.cpp; do
        local o
        o="$out/obj/ctoml-$(basename "$cpp" .cpp | tr -c 'A-Za-z0-9\n' _).o"
        if newer "$o" "$cpp"; then
            echo "fuzz: compiling $(basename "$cpp")" >&2
            clang++ -std=c++17 -O1 -g -DTOML_EXCEPTIONS=1 -fsanitize=fuzzer-no-link,address -I "$inc" \
                -c "$cpp" -o "$o" >>"$log" 2>&1 || return 1
        fi
    done
    extra=(-I "$inc/CTOML")
    mapfile -t tk < <(find "$toml/Sources/TOMLKit" -name '*.swift' | sort)
    module TOMLKit 5 "${tk[@]}" || return 1
    extra=(-I "$inc/CTOML" -I Sources/C/CSndfile)
    mapfile -t config < <(find Sources/SysoundConfig -name '*.swift' | sort)
    module SysoundConfig 6 "${config[@]}" || return 1

    local t
    for t in "${targets[@]}"; do
        local srcs=(Tests/fuzz/targets/$t.swift) objs=("$out/obj/SysoundCore.o") flags=()
        case $t in
            Config|Theme|FeedbackdTheme)
                objs+=("$out/obj/TOMLKit.o" "$out/obj/SysoundConfig.o" "$out"/obj/ctoml-*.o)
                flags=(-I "$inc/CTOML" -I Sources/C/CSndfile -lsndfile -lstdc++) ;;
            Decoder)
                srcs+=(Sources/SysoundAudio/{SoundDecoder,AudioError,DecodedClip}.swift)
                flags=(-I Sources/C/CSndfile -I Sources/C/COpenAL -lsndfile -lopenal) ;;
        esac
        if newer "$out/bin/$t" "${srcs[@]}" "${objs[@]}"; then
            echo "fuzz: linking $t" >&2
            swiftc "${swiftflags[@]}" -module-name "Fuzz$t" -package-name sysound "${flags[@]}" "${srcs[@]}" "${objs[@]}" \
                -o "$out/bin/$t" >>"$log" 2>&1 || return 1
        fi
    done
}

if ! build; then
    grep -E 'error' "$log" | head -30
    echo "fuzz: build failed (full log: $log)"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ $build_only = 1 ]; then
    echo "fuzz: built"
    exit 0
fi

# Swift's own crash handler fights ASan over the dying process: let ASan report.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS=suppressions=$root/Tests/fuzz/lsan.supp:print_suppressions=0
# One target: its regressions, then the timed run; prints its lines and ends
# with a line "fuzz-result: ok|failed" for the tally.
fuzz_one() { # target
    local t=$1
    local seeds=Tests/fuzz/corpus/$t regressions=Tests/fuzz/regressions/$t
    local work crashes=$out/crashes/$t tlog=$out/$t.log ok=1
    work=$(mktemp -d "$out/corpus-$t.XXXXXX")
    cp -r "$seeds"/. "$work"/ 2>/dev/null || true
    mkdir -p "$crashes"
    # Known crashers first: they must all pass now.
    if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions" 2>/dev/null)" ]; then
        "$out/bin/$t" "$regressions"/* >"$tlog.regressions" 2>&1 || { ok=0; echo "fuzz: $t: a regression input fails again:"; tail -20 "$tlog.regressions"; }
    fi
    if [ $ok = 1 ]; then
        # -rss_limit_mb: a 1-hour file declared in a header must not be decoded;
        # -max_len 64 KiB is enough for headers plus some frames.
        "$out/bin/$t" "$work" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
            -artifact_prefix="$crashes/" -print_final_stats=1 -close_fd_mask=3 >"$tlog" 2>&1 || ok=0
    fi
    local execs corpus
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$tlog" | grep -oE '[0-9]+$' || echo 0)
    corpus=$(ls "$work" | wc -l)
    if [ $ok = 1 ]; then
        echo "fuzz: $t: ok, ${execs:-0} inputs in ${seconds} s, corpus $(ls "$seeds" 2>/dev/null | wc -l) -> $corpus"
    else
        echo "fuzz: $t: FAILED; log $tlog, inputs in $crashes:"
        grep -E 'ERROR|Fatal error|SUMMARY|==[0-9]+==' "$tlog" | head -8
    fi
    if [ "${SYSOUND_FUZZ_KEEP:-0}" = 1 ] && [ $ok = 1 ]; then
        mkdir -p "$seeds"
        "$out/bin/$t" -merge=1 "$seeds" "$work" >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
    if [ $ok = 1 ]; then echo "fuzz-result: ok"; else echo "fuzz-result: failed"; fi
}

# As many targets at once as there are cores: each libFuzzer run is one
# thread, so every target still gets its whole `seconds` of a core.
jobs=$(nproc)
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_one "$t" >"$out/$t.out" 2>&1 &
done
wait
passed=0 failed=0
for t in "${targets[@]}"; do
    grep -v '^fuzz-result: ' "$out/$t.out"
    if grep -q '^fuzz-result: ok$' "$out/$t.out"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
