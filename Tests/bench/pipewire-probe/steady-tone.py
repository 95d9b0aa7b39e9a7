#!/usr/bin/env python3
"""Dips of steady-tone.sh's recordings (float32 stereo at 48 kHz): sysound's
tone on the left, the control's on the right. A dip is a run of at least 24
frames below 0.02 (a 440 Hz tone of amplitude 0.5 is never that quiet for
more than a frame or two) where both tones play; it is shared when the other
channel has one within a graph quantum (128 frames), as ControlTone.own
judges. With two recordings (parec, pw-record) it also says how many of the
first's dips the second has within 4096 frames (the recorders drift apart by
the cycles they drop)."""
import sys
import numpy as np

QUANTUM = 128


def dips(x, a, b):
    quiet = np.abs(x[a:b]) < 0.02
    edges = np.diff(np.concatenate(([0], quiet.astype(np.int8), [0])))
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    return [(int(a + s), int(e - s)) for s, e in zip(starts, ends) if e - s >= 24]


def shared(d, others):
    s, n = d
    return any(s - QUANTUM < t + m and t < s + n + QUANTUM for t, m in others)


def analyze(path):
    x = np.fromfile(path, dtype='<f4')
    x = x[: len(x) // 2 * 2].reshape(-1, 2)
    loud = [np.nonzero(np.abs(x[:, c]) > 0.2)[0] for c in (0, 1)]
    if any(len(l) == 0 for l in loud):
        print(f"{path}: a tone is missing")
        return None
    # Where both play, 0.1 s in from either end.
    a, b = max(l[0] for l in loud) + 4800, min(l[-1] for l in loud) - 4800
    left, right = dips(x[:, 0], a, b), dips(x[:, 1], a, b)
    own = [d for d in left if not shared(d, right)]
    secs = lambda ds: [(round(s / 48000, 3), n) for s, n in ds]
    print(f"{path}: {(b - a) / 48000:.1f} s judged; sysound {len(left)} dips, {len(left) - len(own)} shared with the "
          f"control, its own {secs(own)}; the control {len(right)} dips, "
          f"{sum(1 for d in right if not shared(d, left))} its own")
    # Frames from sysound's tone's start, the same place in both recordings.
    origin = loud[0][0]
    return [(s - origin, n) for s, n in left], [(s - origin, n) for s, n in right]


results = [analyze(p) for p in sys.argv[1:]]
if len(results) == 2 and all(results):
    for c, name in ((0, "sysound"), (1, "control")):
        first, second = results[0][c], results[1][c]
        both = sum(1 for s, _ in first if any(abs(s - t) <= 4096 for t, _ in second))
        print(f"{name}: {len(first)} dips in the first recording, {len(second)} in the second, {both} of the first's in both (from the tone's start)")
