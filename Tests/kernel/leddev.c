// The LEDs of the real-kernel LED test: a uinput device with EV_LED bits
// (num lock, caps lock, scroll lock), which the kernel's input-leds turns
// into LED class devices inputN::numlock, inputN::capslock,
// inputN::scrolllock. What the kernel sets them to (the pattern trigger
// blinking them, a brightness written) comes back here as EV_LED events,
// recorded with the kernel's CLOCK_MONOTONIC timestamps.
//
// usage: leddev LOG
// Log lines (times in microseconds, CLOCK_MONOTONIC):
//   T create NAME | T led CODE VALUE    (CODE: 0 numlock, 1 capslock, 2 scrolllock)
// SIGTERM ends the program.
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static void check(int rc, const char *what) {
    if (rc < 0) {
        fprintf(stderr, "leddev: %s: %s\n", what, strerror(errno));
        exit(2);
    }
}

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: leddev LOG\n");
        return 2;
    }
    FILE *logf = fopen(argv[1], "a");
    if (!logf) check(-1, argv[1]);
    setvbuf(logf, NULL, _IOLBF, 0);
    signal(SIGTERM, on_term);

    int fd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
    check(fd, "open /dev/uinput");
    check(ioctl(fd, UI_SET_EVBIT, EV_LED), "UI_SET_EVBIT EV_LED");
    check(ioctl(fd, UI_SET_LEDBIT, LED_NUML), "UI_SET_LEDBIT LED_NUML");
    check(ioctl(fd, UI_SET_LEDBIT, LED_CAPSL), "UI_SET_LEDBIT LED_CAPSL");
    check(ioctl(fd, UI_SET_LEDBIT, LED_SCROLLL), "UI_SET_LEDBIT LED_SCROLLL");
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x5953;  // "SY"
    setup.id.product = 0x0002;
    strcpy(setup.name, "sysound-test-leds");
    check(ioctl(fd, UI_DEV_SETUP, &setup), "UI_DEV_SETUP");
    check(ioctl(fd, UI_DEV_CREATE), "UI_DEV_CREATE");
    fprintf(logf, "%lld create %s\n", now_us(), setup.name);

    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (!stop) {
        if (poll(&p, 1, 200) <= 0) continue;
        struct input_event ev;
        if (read(fd, &ev, sizeof ev) != sizeof ev) continue;
        if (ev.type == EV_LED)
            fprintf(logf, "%lld led %d %d\n",
                    (long long)ev.input_event_sec * 1000000 + ev.input_event_usec, ev.code, ev.value);
    }
    ioctl(fd, UI_DEV_DESTROY);
    return 0;
}
