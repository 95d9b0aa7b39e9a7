// Diagnostic probe for the bench's reference tone on pipewire-pulse.
//
// Does what SinkOnsetMeter does (a float32 record stream on SINK.monitor with
// 1 ms fragments, a reference playback stream, prebuffer 1 ms, tlength the
// clip; timing polled every 1 ms; the clip written every SPACING ms from the
// mainloop thread) and, beside it, records the same monitor through a native
// PipeWire stream, whose process callback reads the driver's cycle time
// (pw_time.now = the null sink's clock.nsec, CLOCK_MONOTONIC): the ground
// truth of when each graph cycle started.
//
//   probe SINK CLIP.f32(mono) WRITES SPACING_MS OUTDIR
//
// Writes OUTDIR/{replies.csv,writes.csv,cycles.csv,pulse.f32,native.f32}.
#include <pulse/pulseaudio.h>
#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec;
}
static double realtime_offset(void) {
    double best = 1e18, off = 0;
    for (int i = 0; i < 50; i++) {
        struct timespec r; double a = mono(); clock_gettime(CLOCK_REALTIME, &r); double b = mono();
        if (b - a < best) { best = b - a; off = r.tv_sec * 1e9 + r.tv_nsec - (a + b) / 2; }
    }
    return off;
}

// ---- native PipeWire capture (data thread) ----
#define MAXCYC 200000
#define MAXNAT (48000 * 120)
static struct { double now; uint64_t ticks; uint32_t frames; int64_t delay; double called; } cyc[MAXCYC];
static atomic_int ncyc;
static float *nat; static atomic_long nnat;
static struct pw_stream *pws;

static void on_process(void *d) {
    struct pw_buffer *b = pw_stream_dequeue_buffer(pws);
    if (!b) return;
    struct pw_time t; pw_stream_get_time_n(pws, &t, sizeof t);
    struct spa_data *sd = &b->buffer->datas[0];
    uint32_t frames = sd->chunk->size / 8;
    const float *f = sd->data ? SPA_PTROFF(sd->data, sd->chunk->offset, float) : NULL;
    int i = atomic_load(&ncyc);
    if (i < MAXCYC) {
        cyc[i].now = t.now; cyc[i].ticks = t.ticks; cyc[i].frames = frames; cyc[i].delay = t.delay; cyc[i].called = mono();
        atomic_store(&ncyc, i + 1);
    }
    long n = atomic_load(&nnat);
    for (uint32_t k = 0; k < frames && n < MAXNAT; k++, n++) nat[n] = f ? (f[2 * k] + f[2 * k + 1]) / 2 : 0;
    atomic_store(&nnat, n);
    pw_stream_queue_buffer(pws, b);
}
static const struct pw_stream_events pw_events = { PW_VERSION_STREAM_EVENTS, .process = on_process };

// ---- pulse side (pa_mainloop, this thread) ----
static pa_mainloop *ml; static pa_context *ctx; static pa_stream *rec, *ref;
static float *clip2; static size_t cliplen;
static float *pul; static long npul;
static FILE *freplies, *fwrites;
static double offset;
static int writes, spacing_ms, written; static double next_write;

static void drain(pa_stream *s, size_t n, void *u) {
    while (pa_stream_readable_size(s) > 0) {
        const void *d; size_t bytes;
        if (pa_stream_peek(s, &d, &bytes) < 0 || bytes == 0) return;
        for (size_t k = 0; k < bytes / 8 && npul < MAXNAT; k++)
            pul[npul++] = d ? (((const float *)d)[2 * k] + ((const float *)d)[2 * k + 1]) / 2 : 0;
        pa_stream_drop(s);
    }
}
static void timing(pa_stream *s, int ok, void *u) {
    const pa_timing_info *i = pa_stream_get_timing_info(s);
    if (!ok || !i) return;
    double rt = i->timestamp.tv_sec * 1e9 + i->timestamp.tv_usec * 1e3;
    fprintf(freplies, "%s,%.0f,%.0f,%lld,%lld,%llu,%llu,%d\n", s == rec ? "rec" : "ref", mono(), rt - offset,
            (long long)i->write_index / 8, (long long)i->read_index / 8,
            (unsigned long long)i->sink_usec, (unsigned long long)i->source_usec, i->synchronized_clocks);
}
static void poll_cb(pa_mainloop_api *a, pa_time_event *e, const struct timeval *tv, void *u) {
    pa_operation *o;
    if ((o = pa_stream_update_timing_info(rec, timing, NULL))) pa_operation_unref(o);
    if ((o = pa_stream_update_timing_info(ref, timing, NULL))) pa_operation_unref(o);
    double now = mono();
    if (written < writes && now >= next_write) {
        double t = mono();
        pa_stream_write(ref, clip2, cliplen * 8, NULL, 0, PA_SEEK_RELATIVE);
        fprintf(fwrites, "%.0f\n", t);
        written++;
        next_write = now + spacing_ms * 1e6;
    }
    if (written >= writes && now > next_write + 5e8) { pa_mainloop_quit(ml, 0); return; }
    pa_context_rttime_restart(ctx, e, pa_rtclock_now() + 1000);
}
static void wait_ready(pa_stream *s) {
    while (pa_stream_get_state(s) != PA_STREAM_READY) {
        if (pa_stream_get_state(s) == PA_STREAM_FAILED) { fprintf(stderr, "stream failed\n"); exit(1); }
        pa_mainloop_iterate(ml, 1, NULL);
    }
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: probe SINK CLIP.f32 WRITES SPACING_MS OUTDIR\n"); return 2; }
    const char *sink = argv[1], *out = argv[5];
    writes = atoi(argv[3]); spacing_ms = atoi(argv[4]);
    FILE *cf = fopen(argv[2], "rb"); if (!cf) { perror(argv[2]); return 1; }
    fseek(cf, 0, SEEK_END); cliplen = ftell(cf) / 4; fseek(cf, 0, SEEK_SET);
    float *m = malloc(cliplen * 4); if (fread(m, 4, cliplen, cf) != cliplen) return 1; fclose(cf);
    clip2 = malloc(cliplen * 8); for (size_t k = 0; k < cliplen; k++) clip2[2 * k] = clip2[2 * k + 1] = m[k];
    nat = calloc(MAXNAT, 4); pul = calloc(MAXNAT, 4);
    char path[4096];
    snprintf(path, sizeof path, "%s/replies.csv", out); freplies = fopen(path, "w");
    snprintf(path, sizeof path, "%s/writes.csv", out); fwrites = fopen(path, "w");
    fprintf(freplies, "stream,received,playsat_ts,write_index,read_index,sink_usec,source_usec,sync\n");

    // Native capture of the monitor, latency large so it does not set the quantum.
    pw_init(&argc, &argv);
    struct pw_thread_loop *tl = pw_thread_loop_new("probe", NULL);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture",
        PW_KEY_NODE_LATENCY, "1024/48000", PW_KEY_STREAM_CAPTURE_SINK, "true", PW_KEY_TARGET_OBJECT, sink, NULL);
    pws = pw_stream_new_simple(pw_thread_loop_get_loop(tl), "probe-native", props, &pw_events, NULL);
    uint8_t buf[1024]; struct spa_pod_builder pb = SPA_POD_BUILDER_INIT(buf, sizeof buf);
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&pb, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = 2, .rate = 48000));
    pw_thread_loop_lock(tl);
    pw_thread_loop_start(tl);
    pw_stream_connect(pws, PW_DIRECTION_INPUT, PW_ID_ANY,
        PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    pw_thread_loop_unlock(tl);

    ml = pa_mainloop_new();
    pa_proplist *pl = pa_proplist_new(); pa_proplist_sets(pl, "sysound.engine", "bench-meter");
    ctx = pa_context_new_with_proplist(pa_mainloop_get_api(ml), "probe pulse", pl);
    pa_context_connect(ctx, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL);
    while (pa_context_get_state(ctx) != PA_CONTEXT_READY) {
        if (!PA_CONTEXT_IS_GOOD(pa_context_get_state(ctx))) { fprintf(stderr, "context failed\n"); return 1; }
        pa_mainloop_iterate(ml, 1, NULL);
    }
    offset = realtime_offset();
    pa_sample_spec ss = { PA_SAMPLE_FLOAT32LE, 48000, 2 };
    rec = pa_stream_new(ctx, "probe monitor", &ss, NULL);
    pa_stream_set_read_callback(rec, drain, NULL);
    pa_buffer_attr ra = { (uint32_t)-1, (uint32_t)-1, (uint32_t)-1, (uint32_t)-1, 48 * 8 };
    snprintf(path, sizeof path, "%s.monitor", sink);
    pa_stream_connect_record(rec, path, &ra, PA_STREAM_ADJUST_LATENCY);
    wait_ready(rec);
    ref = pa_stream_new(ctx, "probe reference", &ss, NULL);
    pa_buffer_attr pa = { (uint32_t)-1, (uint32_t)(cliplen < 480 ? 480 : cliplen) * 8, 48 * 8, (uint32_t)-1, (uint32_t)-1 };
    pa_stream_connect_playback(ref, sink, &pa, PA_STREAM_NOFLAGS, NULL, NULL);
    wait_ready(ref);
    next_write = mono() + 1e9;
    pa_context_rttime_new(ctx, pa_rtclock_now() + 1000, poll_cb, NULL);
    pa_mainloop_run(ml, NULL);

    pw_thread_loop_lock(tl); pw_stream_disconnect(pws); pw_thread_loop_unlock(tl);
    pw_thread_loop_stop(tl);
    fclose(freplies); fclose(fwrites);
    snprintf(path, sizeof path, "%s/cycles.csv", out); FILE *fc = fopen(path, "w");
    fprintf(fc, "now,ticks,frames,delay,called\n");
    for (int i = 0; i < ncyc; i++) fprintf(fc, "%.0f,%llu,%u,%lld,%.0f\n", cyc[i].now, (unsigned long long)cyc[i].ticks, cyc[i].frames, (long long)cyc[i].delay, cyc[i].called);
    fclose(fc);
    snprintf(path, sizeof path, "%s/pulse.f32", out); FILE *fp = fopen(path, "wb"); fwrite(pul, 4, npul, fp); fclose(fp);
    snprintf(path, sizeof path, "%s/native.f32", out); fp = fopen(path, "wb"); fwrite(nat, 4, nnat, fp); fclose(fp);
    fprintf(stderr, "probe: %d writes, %ld pulse frames, %ld native frames, %d cycles\n", written, npul, (long)nnat, (int)ncyc);
    return 0;
}
