#!/usr/bin/env bash
# Is a dip in sysound's stream sysound's or the server's? The daemon loops a
# 440 Hz tone on the left channel while a plain pacat stream with the same
# buffer request and client mark (the tests' ControlTone) plays it on the
# right; the fixture's recorder (parec) records both, and on PipeWire a native
# pw-record records the monitor as well. steady-tone.py then counts the dips of
# each channel and which of them the other shares (docs/reliability.md, "Dips
# that are the server's"). A diagnostic, not run by `make test`.
#
#   Tests/bench/pipewire-probe/steady-tone.sh [--pulseaudio] [--reloads] [--profile] [SECONDS]
#
# --reloads: the theme gains ReloadWhilePlayingTests' 54 big sounds and the
# daemon reloads it every 0.4 s; --profile: pw-profiler runs too (PipeWire).
# Uses the debug build (swift build first); the run's files stay in the
# directory it names.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
server=pipewire reloads= profile= secs=20
while [ $# -gt 0 ]; do
    case $1 in
        --pulseaudio) server=pulseaudio; shift ;;
        --reloads) reloads=1; shift ;;
        --profile) profile=1; shift ;;
        *) secs=$1; shift ;;
    esac
done
if [ -z "${SYSOUND_FIXTURE_DIR:-}" ]; then
    args=("$0"); [ $server = pulseaudio ] && args+=(--pulseaudio); [ -n "$reloads" ] && args+=(--reloads); [ -n "$profile" ] && args+=(--profile)
    if [ $server = pipewire ]; then exec "$root/Tests/fixture/with-pipewire.sh" "${args[@]}" "$secs"; fi
    exec "$root/Tests/fixture/with-dbus.sh" "$root/Tests/fixture/with-pulse.sh" "${args[@]}" "$secs"
fi
bin=$root/.build/debug
d=$(mktemp -d /tmp/sysound-steady-tone.XXXXXX)
mkdir -p "$d/theme" "$d/state"
sox -n -r 48000 -c 2 -b 16 "$d/theme/tone.wav" synth 1 sine 440 vol 0.5 remix 1 0
printf '[sounds.tone]\nfile = "tone.wav"\ncategory = "playback"\nloopable = true\n' > "$d/theme/index.toml"
budget=
if [ -n "$reloads" ]; then
    for i in $(seq 0 53); do
        sox -n -r 48000 -c 2 -b 16 "$d/theme/big-$i.wav" synth 4 sine $((200 + 10 * i)) vol 0.3
        printf '[sounds.big-%s]\nfile = "big-%s.wav"\n' "$i" "$i" >> "$d/theme/index.toml"
    done
    budget='max_preload_bytes = 536870912'
fi
printf '[theme]\npaths = ["%s"]\n[audio]\n%s\n' "$d/theme" "$budget" > "$d/sysound.toml"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
GSETTINGS_BACKEND=memory "$bin/sysound" serve --state-dir "$d/state" --input-dir "$d/no-input" --config "$d/sysound.toml" >"$d/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do "$bin/sysound" status --state-dir "$d/state" >/dev/null 2>&1 && break; sleep 0.1; done
recorder= profiler=
if [ $server = pipewire ]; then
    pw-record --target "$SYSOUND_SINK" -P stream.capture.sink=true --format f32 --rate 48000 --channels 2 --latency 20ms \
        "$d/native.wav" 2>"$d/pw-record.log" &
    recorder=$!
    if [ -n "$profile" ]; then (cd "$d" && exec pw-profiler -o "$d/profiler.log" >"$d/profiler.out" 2>&1) & profiler=$!; fi
fi
# The control first: a stream joining the graph costs every stream a few cycles.
sox -n -t raw -r 48000 -c 2 -e floating-point -b 32 - synth $((secs + 5)) sine 440 vol 0.5 remix 0 1 |
    PULSE_PROP='sysound.engine=openal-soft' pacat -v --raw --format=float32le --rate=48000 --channels=2 \
        --latency=3072 --process-time=768 --stream-name=sysound-control 2>"$d/pacat.log" &
control=$!
sleep 0.5
start=$(stat -c %s "$SYSOUND_MONITOR_FILE")
"$bin/sysound" play tone --loop --state-dir "$d/state"
if [ -n "$reloads" ]; then
    until=$((SECONDS + secs)) n=0
    while [ $SECONDS -lt $until ]; do touch "$d"/theme/big-*.wav; kill -HUP $daemon; n=$((n + 1)); sleep 0.4; done
    echo "reloads asked: $n, done: $(grep -c 'reloaded configuration and theme' "$d/daemon.log")"
else
    sleep "$secs"
fi
end=$(stat -c %s "$SYSOUND_MONITOR_FILE")
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pacat was told of $(grep -c 'Stream underrun' "$d/pacat.log" || true) underflows"
kill $control 2>/dev/null || true
wait $control 2>/dev/null || true
"$bin/sysound" stop --state-dir "$d/state" || true
kill $daemon; wait $daemon || true
tail -c +$((start + 1)) "$SYSOUND_MONITOR_FILE" | head -c $((end - start)) > "$d/parec.f32" || true
files=("$d/parec.f32")
if [ -n "$recorder" ]; then
    kill -INT $recorder; wait $recorder || true
    sox -V1 "$d/native.wav" -t raw -e floating-point -b 32 "$d/native.f32"
    files+=("$d/native.f32")
fi
if [ -n "$profiler" ]; then kill -INT $profiler; wait $profiler || true; fi
python3 "$here/steady-tone.py" "${files[@]}"
echo "files: $d"
