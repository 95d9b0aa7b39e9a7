#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "CSysoundForceFeedback.h"

int sysound_ff_upload(int fd, struct ff_effect *effect) {
    return ioctl(fd, EVIOCSFF, effect) < 0 ? -1 : 0;
}

int sysound_ff_erase(int fd, int id) {
    return ioctl(fd, EVIOCRMFF, id) < 0 ? -1 : 0;
}

int sysound_ff_effect_slots(int fd, int *count) {
    return ioctl(fd, EVIOCGEFFECTS, count) < 0 ? -1 : 0;
}

int sysound_ff_write_event(int fd, uint16_t type, uint16_t code, int32_t value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = type;
    event.code = code;
    event.value = value;
    ssize_t n = write(fd, &event, sizeof event);
    if (n < 0) return -1;
    if ((size_t)n != sizeof event) { errno = EIO; return -1; }
    return 0;
}
