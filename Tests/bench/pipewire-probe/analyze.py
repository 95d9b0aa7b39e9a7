#!/usr/bin/env python3
"""Analyses a probe run (probe.c, run.sh): per reference write, which graph
cycle took it, how far into that cycle the clip started, what the bench's
envelope mapping reads, and what the null sink's own cycle times say.

    analyze.py OUTDIR CLIP.f32

The envelope is SinkOnsets.envelope (Tests/bench/sysound-bench/SinkOnsets.swift)
written again here: the lower convex hull of the record stream's step bounds
(first reply reading a new write_index) within ±50 ms."""
import csv, sys
import numpy as np

out, clip_path = sys.argv[1], sys.argv[2]
clip = np.fromfile(clip_path, dtype=np.float32)
pulse = np.fromfile(out + '/pulse.f32', dtype=np.float32)
native = np.fromfile(out + '/native.f32', dtype=np.float32)
writes = [float(l) for l in open(out + '/writes.csv')]
cycles = list(csv.DictReader(open(out + '/cycles.csv')))
T = np.array([float(c['now']) for c in cycles])            # each cycle's start: the null sink's clock.nsec
frames = np.array([int(c['frames']) for c in cycles])
first = np.concatenate([[0], np.cumsum(frames)[:-1]])      # the native recording's first frame of each cycle
replies = list(csv.DictReader(open(out + '/replies.csv')))
rec = [(float(r['playsat_ts']) + (int(r['sink_usec']) - int(r['source_usec'])) * 1e3, int(r['write_index']))
       for r in replies if r['stream'] == 'rec']

period = np.median(np.diff(T))
quantum = round(period * 48000 / 1e9)
# Record stream steps: the first reply that reads a new write_index bounds when that frame played.
steps = [(b[0], b[1]) for a, b in zip(rec, rec[1:]) if b[1] > a[1]]
bound = np.array([s[0] for s in steps]); index = np.array([s[1] for s in steps])
sizes, counts = np.unique([b[1] - a[1] for a, b in zip(rec, rec[1:]) if b[1] > a[1]], return_counts=True)
cycle_of_step = np.searchsorted(T, bound) - 1  # the latest cycle start before the bound

def envelope(time, frame):
    near = [(b, w) for b, w in zip(bound, index) if abs(b - time) <= 50e6]
    hull = []
    for b, w in near:
        while len(hull) >= 2:
            (b0, w0), (b1, w1) = hull[-2], hull[-1]
            if (w1 - w0) * (b - b0) - (b1 - b0) * (w - w0) <= 0:
                hull.pop()
            else:
                break
        hull.append((b, w))
    i = next((k for k, (b, _) in enumerate(hull) if b > time), len(hull) - 1)
    i = min(max(i, 1), len(hull) - 1)
    (ba, wa), (bb, wb) = hull[i - 1], hull[i]
    return ba + (frame - wa) * (bb - ba) / (wb - wa)

def onsets(x):
    """The clip's first frame at each sound: the first crossing of -24 dBFS, then the best match ±1 ms."""
    threshold = 0.0631
    lead = int(np.argmax(np.abs(clip) > threshold))
    found, last = [], -10**9
    for a in np.where(np.abs(x) > threshold)[0]:
        if a - last > 48000 * 0.2:
            s = a - lead
            found.append(min(range(max(s - 48, 0), s + 49), key=lambda k: np.sum((x[k:k + 480] - clip[:480]) ** 2)))
        last = a
    return found

in_pulse, in_native = onsets(pulse), onsets(native)
print(f"graph: {len(T)} cycles of {period / 1e6:.3f} ms (quantum {quantum}); record stream: {len(steps)} index steps, sizes {dict(zip(sizes.tolist(), counts.tolist()))}")
print(f"clips found: {len(in_pulse)} in the pulse recording, {len(in_native)} in the native one, {len(writes)} written")
print(" # | cycle after the write | start into its cycle (native, frames) | on a record step | T(cycle) − write | envelope reading | envelope − T(cycle)  [ms]")
rows = []
for j, tw in enumerate(writes):
    # The cycle that took the write: the one before the native capture's cycle
    # that holds the clip (a capture reads the sink's previous cycle; where the
    # hand-over is quick, the reply at which the reference stream's read_index
    # moved says the same). The reply alone is ambiguous at small quanta: a
    # hand-over can come after the next cycle has started.
    fn = min(f for f in in_native if f >= first[np.searchsorted(T, tw) - 2])
    kn = np.searchsorted(first, fn, side='right') - 1
    k = kn - 1
    after = k - (np.searchsorted(T, tw) - 1)
    fp = next(f for f in in_pulse if envelope(tw, f) > tw - 5e6)
    reading, truth = (envelope(tw, fp) - tw) / 1e6, (T[k] - tw) / 1e6
    rows.append((after, fn - first[kn], fp in index, truth, reading, reading - truth))
    print(f"{j:2d} | {after:+d} | {fn - first[kn]:4d} | {'yes' if fp in index else 'no ':3s} | {truth:6.3f} | {reading:6.3f} | {reading - truth:6.3f}")
r = np.array([[x[3], x[4], x[5]] for x in rows])
print(f"starts into their cycle: {dict(zip(*[a.tolist() for a in np.unique([x[1] for x in rows], return_counts=True)]))}")
print(f"T(cycle) − write: {r[:, 0].min():.3f}–{r[:, 0].max():.3f} ms, median {np.median(r[:, 0]):.3f}")
print(f"envelope reading: {r[:, 1].min():.3f}–{r[:, 1].max():.3f} ms, median {np.median(r[:, 1]):.3f}; past one quantum ({period / 1e6:.3f} ms): {int((r[:, 1] > period / 1e6).sum())} of {len(r)}")
print(f"envelope − T(cycle) at the references: {r[:, 2].min():.3f}–{r[:, 2].max():.3f} ms, median {np.median(r[:, 2]):.3f}")
late = np.array([(envelope(bound[k], index[k]) - T[cycle_of_step[k]]) / 1e6
                 for k in range(0, len(steps), 10) if bound[k] - bound[0] > 60e6 and bound[-1] - bound[k] > 60e6])
print(f"envelope − T(cycle) at every 10th step ({len(late)}): median {np.median(late):.3f}, p10 {np.percentile(late, 10):.3f}, p90 {np.percentile(late, 90):.3f}, max {late.max():.3f} ms")
