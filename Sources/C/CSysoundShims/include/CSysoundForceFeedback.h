// Thin wrappers for the evdev force-feedback ioctls, whose request numbers are
// function-like macros (EVIOCSFF, EVIOCRMFF, EVIOCGEFFECTS) that Swift cannot
// import, and for the write of a struct input_event, whose time field layout
// depends on libc macros.
#ifndef CSYSOUND_FORCE_FEEDBACK_H
#define CSYSOUND_FORCE_FEEDBACK_H

#include <stdint.h>
#include <linux/input.h>

/// Uploads (effect->id == -1) or updates in place (an id the same file
/// uploaded) an effect: ioctl(fd, EVIOCSFF, effect). On success the kernel
/// writes the assigned id into effect->id and 0 is returned; else -1, errno set.
int sysound_ff_upload(int fd, struct ff_effect *effect);

/// Erases an uploaded effect: ioctl(fd, EVIOCRMFF, id). 0, or -1 with errno set.
int sysound_ff_erase(int fd, int id);

/// How many effects the device can hold at once: ioctl(fd, EVIOCGEFFECTS).
/// 0 and *count filled, or -1 with errno set.
int sysound_ff_effect_slots(int fd, int *count);

/// Writes one input event {type, code, value} with a zero timestamp:
/// write(fd, &struct input_event, sizeof). Used for EV_FF play (value = count),
/// stop (value 0) and FF_GAIN. 0, or -1 with errno set (short writes count as EIO).
int sysound_ff_write_event(int fd, uint16_t type, uint16_t code, int32_t value);

#endif
