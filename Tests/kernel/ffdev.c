// The "hardware" of the real-kernel force-feedback test: a uinput device with
// EV_FF (FF_RUMBLE, FF_PERIODIC, FF_GAIN) and a small ff_effects_max that
// answers the kernel's upload/erase requests and records everything it is
// asked to do, with the kernel's CLOCK_MONOTONIC event timestamps.
//
// usage: ffdev LOG SLOTS
//   SIGUSR1 destroys the device (an unplug), SIGUSR2 creates it again,
//   SIGTERM ends the program.
// Log lines (times in microseconds, CLOCK_MONOTONIC):
//   T create N | T destroy N | T upload ID STRONG WEAK LENGTH new|update
//   T erase ID | T play ID COUNT | T stop ID | T gain VALUE
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static FILE *logf;
static int slots;
static int instance;

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static long long event_us(const struct input_event *ev) {
    return (long long)ev->input_event_sec * 1000000 + ev->input_event_usec;
}

static void check(int rc, const char *what) {
    if (rc < 0) {
        fprintf(stderr, "ffdev: %s: %s\n", what, strerror(errno));
        exit(2);
    }
}

static int create_device(void) {
    int fd = open("/dev/uinput", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    check(fd, "open /dev/uinput");
    check(ioctl(fd, UI_SET_EVBIT, EV_FF), "UI_SET_EVBIT EV_FF");
    check(ioctl(fd, UI_SET_FFBIT, FF_RUMBLE), "UI_SET_FFBIT FF_RUMBLE");
    check(ioctl(fd, UI_SET_FFBIT, FF_PERIODIC), "UI_SET_FFBIT FF_PERIODIC");
    check(ioctl(fd, UI_SET_FFBIT, FF_SINE), "UI_SET_FFBIT FF_SINE");
    check(ioctl(fd, UI_SET_FFBIT, FF_GAIN), "UI_SET_FFBIT FF_GAIN");
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x5953;  // "SY"
    setup.id.product = 0x0001;
    setup.ff_effects_max = slots;
    snprintf(setup.name, sizeof setup.name, "sysound-test-rumble");
    check(ioctl(fd, UI_DEV_SETUP, &setup), "UI_DEV_SETUP");
    check(ioctl(fd, UI_DEV_CREATE), "UI_DEV_CREATE");
    instance++;
    fprintf(logf, "%lld create %d\n", now_us(), instance);
    return fd;
}

static void destroy_device(int fd) {
    check(ioctl(fd, UI_DEV_DESTROY), "UI_DEV_DESTROY");
    close(fd);
    fprintf(logf, "%lld destroy %d\n", now_us(), instance);
}

static void service(int fd) {
    struct input_event ev;
    while (read(fd, &ev, sizeof ev) == sizeof ev) {
        if (ev.type == EV_UINPUT && ev.code == UI_FF_UPLOAD) {
            struct uinput_ff_upload up;
            memset(&up, 0, sizeof up);
            up.request_id = ev.value;
            check(ioctl(fd, UI_BEGIN_FF_UPLOAD, &up), "UI_BEGIN_FF_UPLOAD");
            if (up.effect.type == FF_RUMBLE) {
                fprintf(logf, "%lld upload %d %u %u %u %s\n", event_us(&ev), up.effect.id,
                        up.effect.u.rumble.strong_magnitude, up.effect.u.rumble.weak_magnitude,
                        up.effect.replay.length, up.old.type == 0 ? "new" : "update");
                up.retval = 0;
            } else {
                fprintf(logf, "%lld upload-refused type %u\n", event_us(&ev), up.effect.type);
                up.retval = -EINVAL;
            }
            check(ioctl(fd, UI_END_FF_UPLOAD, &up), "UI_END_FF_UPLOAD");
        } else if (ev.type == EV_UINPUT && ev.code == UI_FF_ERASE) {
            struct uinput_ff_erase er;
            memset(&er, 0, sizeof er);
            er.request_id = ev.value;
            check(ioctl(fd, UI_BEGIN_FF_ERASE, &er), "UI_BEGIN_FF_ERASE");
            fprintf(logf, "%lld erase %u\n", event_us(&ev), er.effect_id);
            er.retval = 0;
            check(ioctl(fd, UI_END_FF_ERASE, &er), "UI_END_FF_ERASE");
        } else if (ev.type == EV_FF && ev.code == FF_GAIN) {
            fprintf(logf, "%lld gain %d\n", event_us(&ev), ev.value);
        } else if (ev.type == EV_FF && ev.value > 0) {
            fprintf(logf, "%lld play %u %d\n", event_us(&ev), ev.code, ev.value);
        } else if (ev.type == EV_FF) {
            fprintf(logf, "%lld stop %u\n", event_us(&ev), ev.code);
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 3 || (slots = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: ffdev LOG SLOTS\n");
        return 2;
    }
    logf = fopen(argv[1], "w");
    if (!logf) { perror(argv[1]); return 2; }
    setvbuf(logf, NULL, _IOLBF, 0);

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGUSR2);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    check(sfd, "signalfd");

    int fd = create_device();
    for (;;) {
        struct pollfd fds[2] = {{sfd, POLLIN, 0}, {fd, POLLIN, 0}};
        if (poll(fds, fd >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR) continue;
            check(-1, "poll");
        }
        if (fd >= 0 && (fds[1].revents & POLLIN)) service(fd);
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            if (read(sfd, &info, sizeof info) != sizeof info) continue;
            if (info.ssi_signo == SIGUSR1 && fd >= 0) {
                destroy_device(fd);
                fd = -1;
            } else if (info.ssi_signo == SIGUSR2 && fd < 0) {
                fd = create_device();
            } else if (info.ssi_signo == SIGTERM) {
                if (fd >= 0) destroy_device(fd);
                return 0;
            }
        }
    }
}
