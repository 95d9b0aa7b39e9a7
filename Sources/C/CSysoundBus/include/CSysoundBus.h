// sd-bus object vtables built at run time. The SD_BUS_VTABLE_START /
// SD_BUS_METHOD / SD_BUS_PROPERTY macros expand to designated initializers
// that Swift cannot import, so this is the one place that uses them; the
// Swift side (SysoundPlatform's BusInterface) only says which members exist.
#ifndef CSYSOUND_BUS_H
#define CSYSOUND_BUS_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct csb_vtable csb_vtable;

/// An empty vtable (START and END entries only), or NULL when out of memory.
csb_vtable *csb_vtable_new(uint64_t flags);

/// Adds a method. `names` holds the in-argument names then the out-argument
/// names, each NUL-terminated (SD_BUS_PARAM's format), `names_len` bytes in all.
/// Strings are copied. Returns 0, or -ENOMEM.
int csb_vtable_add_method(csb_vtable *vtable, const char *member, const char *signature, const char *result,
                          const char *names, size_t names_len, sd_bus_message_handler_t handler, uint64_t flags);

/// Adds a signal; `names` as for methods (the argument names only).
int csb_vtable_add_signal(csb_vtable *vtable, const char *member, const char *signature,
                          const char *names, size_t names_len, uint64_t flags);

/// Adds a property; `set` NULL makes it read-only.
int csb_vtable_add_property(csb_vtable *vtable, const char *member, const char *signature,
                            sd_bus_property_get_t get, sd_bus_property_set_t set, uint64_t flags);

/// The entries for sd_bus_add_object_vtable; valid until the next add or free.
const sd_bus_vtable *csb_vtable_entries(const csb_vtable *vtable);

void csb_vtable_free(csb_vtable *vtable);

#endif
