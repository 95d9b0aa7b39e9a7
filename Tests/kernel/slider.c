// The alert slider of the real-kernel test (slider-checks.sh): a uinput
// device shaped as the OnePlus 6's ("Alert slider", one absolute axis,
// ABS_SND_PROFILE, 0 silent / 1 quiet / 2 full), starting at a position.
// Each line on standard input moves it and waits for the daemon's control
// files to say what that position means, timing it from the event.
//
// usage: slider STATE_DIR START_POSITION < commands
//   command:  POSITION SILENT HAPTICS      e.g. "2 0 1" (full: silent off, haptics on);
//                                          SILENT -1: move without waiting
// Output:     created
//             moved POSITION in MS ms | moved POSITION timeout silent=S haptics=H
//             | moved POSITION unchecked
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#ifndef ABS_SND_PROFILE
#define ABS_SND_PROFILE 0x22
#endif

static void check(int rc, const char *what) {
    if (rc < 0) { perror(what); exit(2); }
}

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void emit(int fd, int type, int code, int value) {
    struct input_event ev = {0};
    ev.type = type;
    ev.code = code;
    ev.value = value;
    check(write(fd, &ev, sizeof ev) == sizeof ev ? 0 : -1, "write");
}

// The first character of a control file, or '?' while it is missing.
static char setting(const char *dir, const char *name) {
    char path[512], c = '?';
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f) { if (fread(&c, 1, 1, f) != 1) c = '?'; fclose(f); }
    return c;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: slider STATE_DIR START_POSITION\n"); return 64; }
    const char *state = argv[1];
    int fd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
    check(fd, "open /dev/uinput");
    check(ioctl(fd, UI_SET_EVBIT, EV_ABS), "UI_SET_EVBIT");
    check(ioctl(fd, UI_SET_ABSBIT, ABS_SND_PROFILE), "UI_SET_ABSBIT");
    struct uinput_setup setup = {0};
    setup.id.bustype = BUS_HOST;
    strcpy(setup.name, "Alert slider");
    check(ioctl(fd, UI_DEV_SETUP, &setup), "UI_DEV_SETUP");
    struct uinput_abs_setup abs = {0};
    abs.code = ABS_SND_PROFILE;
    abs.absinfo.minimum = 0;
    abs.absinfo.maximum = 2;
    abs.absinfo.value = atoi(argv[2]);
    check(ioctl(fd, UI_ABS_SETUP, &abs), "UI_ABS_SETUP");
    check(ioctl(fd, UI_DEV_CREATE), "UI_DEV_CREATE");
    // The input core keeps the axis's value from its events: the start position, for EVIOCGABS.
    emit(fd, EV_ABS, ABS_SND_PROFILE, atoi(argv[2]));
    emit(fd, EV_SYN, SYN_REPORT, 0);
    printf("created\n");
    fflush(stdout);
    int position, silent, haptics;
    while (scanf("%d %d %d", &position, &silent, &haptics) == 3) {
        long long start = now_us();
        emit(fd, EV_ABS, ABS_SND_PROFILE, position);
        emit(fd, EV_SYN, SYN_REPORT, 0);
        if (silent < 0) {
            printf("moved %d unchecked\n", position);
            fflush(stdout);
            continue;
        }
        char s = '?', h = '?';
        while (now_us() - start < 3000000) {
            s = setting(state, "silent");
            h = setting(state, "haptics");
            if (s == '0' + silent && h == '0' + haptics) break;
            usleep(500);
        }
        if (s == '0' + silent && h == '0' + haptics)
            printf("moved %d in %lld ms\n", position, (now_us() - start + 999) / 1000);
        else
            printf("moved %d timeout silent=%c haptics=%c\n", position, s, h);
        fflush(stdout);
    }
    ioctl(fd, UI_DEV_DESTROY);
    return 0;
}
