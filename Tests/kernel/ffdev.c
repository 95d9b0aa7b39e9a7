// The "hardware" of the real-kernel force-feedback test: a uinput device with
// EV_FF (FF_RUMBLE, FF_PERIODIC, FF_GAIN) and a small ff_effects_max that
// answers the kernel's upload/erase requests and records everything it is
// asked to do, with the kernel's CLOCK_MONOTONIC event timestamps.
//
// usage: ffdev LOG SLOTS [KIND]
//   KIND is the device it plays (default rumble):
//     rumble   "sysound-test-rumble", BUS_VIRTUAL: FF_RUMBLE, FF_PERIODIC sine, FF_GAIN
//     vibra    "gpio-vibrator", BUS_HOST: the same bits, as gpio-vibra (ff-memless) has them
//     pad      "Microsoft X-Box 360 pad", BUS_USB 045e:028e: gamepad buttons, two
//              sticks, triggers and hat, FF_RUMBLE + FF_PERIODIC + FF_GAIN (as xpad)
//     da7280   "da7280-haptic", BUS_I2C: FF_CONSTANT, FF_PERIODIC with FF_CUSTOM only,
//              FF_GAIN, no FF_RUMBLE; rumble and periodic uploads are refused
//              with EINVAL, as the driver does
//     refuser  "refusing-vibrator", BUS_HOST: FF_RUMBLE, every upload refused (EINVAL)
//   SIGUSR1 destroys the device (an unplug), SIGUSR2 creates it again,
//   SIGTERM ends the program.
// Log lines (times in microseconds, CLOCK_MONOTONIC):
//   T create N | T destroy N | T upload ID STRONG WEAK LENGTH new|update
//   T upload-constant ID LEVEL LENGTH ATTACK_LEVEL FADE_LEVEL new|update
//   T upload-refused type TYPE | T erase ID | T play ID COUNT | T stop ID | T gain VALUE
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
static const char *kind = "rumble";

static int is(const char *k) { return strcmp(kind, k) == 0; }

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
    if (is("da7280")) {
        check(ioctl(fd, UI_SET_FFBIT, FF_CONSTANT), "UI_SET_FFBIT FF_CONSTANT");
        check(ioctl(fd, UI_SET_FFBIT, FF_PERIODIC), "UI_SET_FFBIT FF_PERIODIC");
        check(ioctl(fd, UI_SET_FFBIT, FF_CUSTOM), "UI_SET_FFBIT FF_CUSTOM");
    } else {
        check(ioctl(fd, UI_SET_FFBIT, FF_RUMBLE), "UI_SET_FFBIT FF_RUMBLE");
        if (!is("refuser")) {
            check(ioctl(fd, UI_SET_FFBIT, FF_PERIODIC), "UI_SET_FFBIT FF_PERIODIC");
            check(ioctl(fd, UI_SET_FFBIT, FF_SINE), "UI_SET_FFBIT FF_SINE");
        }
    }
    check(ioctl(fd, UI_SET_FFBIT, FF_GAIN), "UI_SET_FFBIT FF_GAIN");
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x5953;  // "SY"
    setup.id.product = 0x0001;
    const char *name = "sysound-test-rumble";
    if (is("vibra")) { name = "gpio-vibrator"; setup.id.bustype = BUS_HOST; }
    if (is("refuser")) { name = "refusing-vibrator"; setup.id.bustype = BUS_HOST; }
    if (is("da7280")) { name = "da7280-haptic"; setup.id.bustype = BUS_I2C; }
    if (is("pad")) {
        name = "Microsoft X-Box 360 pad";
        setup.id.bustype = BUS_USB;
        setup.id.vendor = 0x045e;
        setup.id.product = 0x028e;
        check(ioctl(fd, UI_SET_EVBIT, EV_KEY), "UI_SET_EVBIT EV_KEY");
        int keys[] = {BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR, BTN_SELECT, BTN_START, BTN_MODE, BTN_THUMBL, BTN_THUMBR};
        for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++) check(ioctl(fd, UI_SET_KEYBIT, keys[i]), "UI_SET_KEYBIT");
        check(ioctl(fd, UI_SET_EVBIT, EV_ABS), "UI_SET_EVBIT EV_ABS");
        int axes[] = {ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ, ABS_HAT0X, ABS_HAT0Y};
        for (unsigned i = 0; i < sizeof axes / sizeof axes[0]; i++) {
            struct uinput_abs_setup abs;
            memset(&abs, 0, sizeof abs);
            abs.code = axes[i];
            abs.absinfo.minimum = axes[i] >= ABS_HAT0X ? -1 : -32768;
            abs.absinfo.maximum = axes[i] >= ABS_HAT0X ? 1 : 32767;
            check(ioctl(fd, UI_SET_ABSBIT, axes[i]), "UI_SET_ABSBIT");
            check(ioctl(fd, UI_ABS_SETUP, &abs), "UI_ABS_SETUP");
        }
    }
    setup.ff_effects_max = slots;
    snprintf(setup.name, sizeof setup.name, "%s", name);
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
            int refuse = is("refuser") || (is("da7280") && up.effect.type != FF_CONSTANT);
            if (refuse) {
                fprintf(logf, "%lld upload-refused type %u\n", event_us(&ev), up.effect.type);
                up.retval = -EINVAL;
            } else if (up.effect.type == FF_CONSTANT) {
                fprintf(logf, "%lld upload-constant %d %d %u %u %u %s\n", event_us(&ev), up.effect.id,
                        up.effect.u.constant.level, up.effect.replay.length,
                        up.effect.u.constant.envelope.attack_level, up.effect.u.constant.envelope.fade_level,
                        up.old.type == 0 ? "new" : "update");
                up.retval = 0;
            } else if (up.effect.type == FF_RUMBLE) {
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
    if (argc < 3 || argc > 4 || (slots = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: ffdev LOG SLOTS [rumble|vibra|pad|da7280|refuser]\n");
        return 2;
    }
    if (argc == 4) kind = argv[3];
    if (!is("rumble") && !is("vibra") && !is("pad") && !is("da7280") && !is("refuser")) {
        fprintf(stderr, "ffdev: unknown kind %s\n", kind);
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
