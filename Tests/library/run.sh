#!/bin/bash
# The library as an app developer meets it, checked so that it cannot rot:
#  1. the DocC catalog builds (make docs), without warnings, and every
#     public symbol of `Sysound` has its documentation;
#  2. the example app (Examples/HelloSysound, a package of its own that
#     depends on sysound by path) builds with the async API, and without a
#     daemon plays with nothing on its stderr;
#  3. every Swift example of the catalog compiles in that app;
#  4. the app cannot name the wire protocol's types (a check that must fail
#     to compile, with the errors expected);
#  5. built without the embedded engine (trait EmbeddedEngine off), the app
#     links no audio, haptics or TOML library and no Foundation, and
#     without a daemon says
#     what to do.
# Ends with "N passed, N failed" for Tests/run-all.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
passed=0 failed=0
log=$(mktemp -d /tmp/sysound-library.XXXXXX)
trap 'rm -rf "$log"' EXIT
check() { # name status
    if [ "$2" = 0 ]; then echo "ok: $1"; passed=$((passed + 1)); else echo "FAIL: $1"; failed=$((failed + 1)); fi
}

echo "-- DocC catalog"
swift package --disable-sandbox generate-documentation --target Sysound --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level detailed >"$log/docc.log" 2>&1
status=$?
grep -E "^(error|warning):" "$log/docc.log" | grep -v "prohibited flag" | head -20
check "DocC catalog builds without warnings (make docs)" $status
# Symbols without an abstract, less what the standard library's protocols
# bring along (literal initializers, localizedDescription, operators, groups).
undocumented=$(awk -F'|' 'NF > 5 && $3 ~ /false/' "$log/docc.log" \
    | grep -vE 'CollectionGroup|Operator|Article|init\((unicodeScalar|extendedGraphemeCluster)Literal|localizedDescription' || true)
[ -z "$undocumented" ] || { echo "undocumented public symbols:"; echo "$undocumented"; }
check "every public symbol of Sysound is documented" "$([ -z "$undocumented" ] && echo 0 || echo 1)"

echo "-- the example app"
example=Examples/HelloSysound
swift build --package-path "$example" --product HelloSysound >"$log/example.log" 2>&1
status=$?
grep -E "error:" "$log/example.log" | head -20
check "Examples/HelloSysound builds against sysound by path" $status

echo "-- the example app, without a daemon, leaves the app's stderr alone"
# The library logs only when the app passes a logger (or SYSOUND_LOG_LEVEL
# asks), and OpenAL Soft and ALSA say nothing (no "AL lib: (EE) alc_cleanup:
# 1 device not closed"). Under a private PulseAudio, with a state directory
# where no daemon listens.
state=$(mktemp -d "$log/state.XXXXXX")
example_bin=$(swift build --package-path "$example" --show-bin-path)
SYSOUND_STATE_DIR=$state Tests/fixture/with-pulse.sh sh -c 'exec "$0" >"$1" 2>"$2"' \
    "$example_bin/HelloSysound" "$log/example.out" "$log/example.err"
status=$?
grep -q "no daemon: the sounds play in this process" "$log/example.out" || { echo "HelloSysound did not run without a daemon:"; cat "$log/example.out"; status=1; }
grep -qE "^tap: play" "$log/example.out" || { echo "HelloSysound did not play the tap:"; cat "$log/example.out"; status=1; }
if [ -s "$log/example.err" ]; then echo "HelloSysound's stderr:"; head -5 "$log/example.err"; status=1; fi
check "Examples/HelloSysound without a daemon plays and writes nothing to stderr" $status

echo "-- the catalog's examples compile"
# Each ```swift block of the articles becomes a function body, async when it
# awaits (a block without `await` shows the synchronous calls, which an
# async context would not choose), or stays at the top level when it
# declares a type; all in a target of the example app.
snippets="$example/Checks/DocSnippets"
rm -rf "$snippets" && mkdir -p "$snippets"
awk -v out="$snippets/Snippets.swift" '
    BEGIN { print "import Foundation\nimport Sysound\n" > out }
    /^```swift$/ { inblock = 1; n++; body = ""; toplevel = 0; async = 0; next }
    /^```$/ && inblock {
        inblock = 0
        printf "// %s\n", FILENAME > out
        if (toplevel) print body > out
        else printf "func snippet%d()%s throws {\n%s}\n\n", n, async ? " async" : "", body > out
        next
    }
    # An import cannot stand in a function: it goes to the top level of the file,
    # before the snippet that needs it.
    inblock && /^import / { print > out; next }
    inblock {
        body = body $0 "\n"
        if ($0 ~ /^(protocol|struct|final class|enum|extension) /) toplevel = 1
        if ($0 ~ /await/) async = 1
    }
' Sources/Sysound/Sysound.docc/*.md
count=$(grep -c '^// ' "$snippets/Snippets.swift")
SYSOUND_EXAMPLE_CHECKS=1 swift build --package-path "$example" --target DocSnippets >"$log/snippets.log" 2>&1
status=$?
grep -E "error:" "$log/snippets.log" | head -20
check "the catalog's $count Swift examples compile in an app" $status

echo "-- the app cannot name the wire"
SYSOUND_EXAMPLE_CHECKS=1 swift build --package-path "$example" --target WireIsHidden >"$log/wire.log" 2>&1
status=$?
errors=$(grep -E "error:" "$log/wire.log" | sort -u)
echo "$errors" | head -10
wanted=0
[ "$status" != 0 ] || wanted=1
for name in WireFields Request Reply; do
    grep -qE "error: .*'$name'|error: cannot find (type )?'$name' in scope" <<<"$errors" || { echo "no error names $name"; wanted=1; }
done
grep -q "no such module" <<<"$errors" && { echo "a module was missing: the check proves nothing"; wanted=1; }
check "WireFields, Request and Reply cannot be named by an app (compile errors as expected)" $wanted

echo "-- the app without the embedded engine"
client_scratch="$log/client-only"
SYSOUND_EXAMPLE_CLIENT_ONLY=1 swift build --package-path "$example" --scratch-path "$client_scratch" --product HelloSysound >"$log/client.log" 2>&1
status=$?
grep -E "error:" "$log/client.log" | head -20
client_bin=$(SYSOUND_EXAMPLE_CLIENT_ONLY=1 swift build --package-path "$example" --scratch-path "$client_scratch" --show-bin-path)/HelloSysound
if [ "$status" = 0 ]; then
    linked=$(ldd "$client_bin" | grep -oE 'lib(openal|pulse|sndfile|evdev|Foundation)[^ ]*' | sort -u)
    [ -z "$linked" ] || { echo "links: $linked"; status=1; }
    SYSOUND_STATE_DIR=$state "$client_bin" >"$log/client.out" 2>&1
    grep -q "could not play: no daemon answers at .*built without sysound's embedded engine" "$log/client.out" \
        || { echo "HelloSysound without the engine and a daemon said:"; cat "$log/client.out"; status=1; }
fi
check "without the trait EmbeddedEngine the app links none of the engine's libraries nor Foundation, and asks for a daemon" $status
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
