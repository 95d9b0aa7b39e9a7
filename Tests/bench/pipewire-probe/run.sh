#!/usr/bin/env bash
# The reference tone of `make bench` on PipeWire, against the null sink's own
# clock (docs/bench-method.md; the findings: docs/bench-method.md, "The sink's clock"). Builds probe.c, starts the PipeWire fixture,
# writes the bench's `tap` (padded with silence to PAD frames, 0: as it is) N
# times, 350 ms apart, on a reference stream like the bench's, records the
# monitor through pipewire-pulse and natively, and runs analyze.py on it.
#
#   Tests/bench/pipewire-probe/run.sh [--engine-quantum] [--pad FRAMES] [-n N] [OUTDIR]
#
# The graph runs at 256 frames (the record stream's pulse.min.frag, as in
# figure 9's feedbackd turn); --engine-quantum adds a silent stream marked
# as sysound's engine, which the shipped drop-in lets down to its floor (128
# frames; 64 before 2026-11-23 03:05 UTC), as while sysound's stream runs. Needs gcc, libpulse-dev,
# libpipewire-0.3-dev, sox and python3 with numpy; a diagnostic, not run by
# `make test` or `make bench`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
q64= pad=0 n=30 out=
while [ $# -gt 0 ]; do
    case $1 in
        --engine-quantum) q64=1; shift ;;
        --pad) pad=$2; shift 2 ;;
        -n) n=$2; shift 2 ;;
        *) out=$1; shift ;;
    esac
done
if [ -z "${PROBE_INNER:-}" ]; then
    out=${out:-$(mktemp -d /tmp/sysound-pipewire-probe.XXXXXX)}
    mkdir -p "$out"
    gcc -O2 -Wall -o "$out/probe" "$here/probe.c" $(pkg-config --cflags --libs libpulse libpipewire-0.3)
    sox "$root/Sounds/tap.wav" -t f32 -c 1 -r 48000 "$out/tap.f32"
    python3 -c "import numpy as np, sys; c = np.fromfile(sys.argv[1], dtype=np.float32); p = int(sys.argv[2])
n = len(c) if p == 0 else -(-len(c) // p) * p
np.concatenate([c, np.zeros(n - len(c), dtype=np.float32)]).tofile(sys.argv[1] + '.written')" "$out/tap.f32" "$pad"
    PROBE_INNER=1 PROBE_Q64=$q64 PROBE_N=$n PROBE_OUT=$out "$root/Tests/fixture/with-pipewire.sh" "$0"
    python3 "$here/analyze.py" "$out" "$out/tap.f32"
    echo "probe: data in $out"
    exit 0
fi
# Inside the fixture (PROBE_INNER set by the branch above).
pid=
if [ -n "$PROBE_Q64" ]; then
    PULSE_PROP='sysound.engine=openal-soft' pacat --raw --format=float32le --rate=48000 --channels=2 --latency-msec=2 \
        -d "$SYSOUND_SINK" </dev/zero &
    pid=$!
fi
sleep 1
"$PROBE_OUT/probe" "$SYSOUND_SINK" "$PROBE_OUT/tap.f32.written" "$PROBE_N" 350 "$PROBE_OUT"
[ -z "$pid" ] || kill "$pid"
