#include "CSysoundBus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct csb_vtable {
    sd_bus_vtable *entries; /* START, members..., END */
    size_t count;           /* including START and END */
    char **strings;         /* copies the entries point into */
    size_t string_count;
};

static char *keep(csb_vtable *v, const char *s, size_t len) {
    char **grown = realloc(v->strings, (v->string_count + 1) * sizeof(char *));
    if (!grown) return NULL;
    v->strings = grown;
    char *copy = malloc(len + 1);
    if (!copy) return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    v->strings[v->string_count++] = copy;
    return copy;
}

static char *keep_string(csb_vtable *v, const char *s) { return keep(v, s ? s : "", s ? strlen(s) : 0); }

/* Inserts `entry` before the END entry. */
static int insert(csb_vtable *v, sd_bus_vtable entry) {
    sd_bus_vtable *grown = realloc(v->entries, (v->count + 1) * sizeof(sd_bus_vtable));
    if (!grown) return -ENOMEM;
    v->entries = grown;
    v->entries[v->count] = v->entries[v->count - 1];
    v->entries[v->count - 1] = entry;
    v->count++;
    return 0;
}

csb_vtable *csb_vtable_new(uint64_t flags) {
    csb_vtable *v = calloc(1, sizeof(*v));
    if (!v) return NULL;
    v->entries = calloc(2, sizeof(sd_bus_vtable));
    if (!v->entries) { free(v); return NULL; }
    v->entries[0] = (sd_bus_vtable) SD_BUS_VTABLE_START(flags);
    v->entries[1] = (sd_bus_vtable) SD_BUS_VTABLE_END;
    v->count = 2;
    return v;
}

int csb_vtable_add_method(csb_vtable *v, const char *member, const char *signature, const char *result,
                          const char *names, size_t names_len, sd_bus_message_handler_t handler, uint64_t flags) {
    const char *m = keep_string(v, member), *s = keep_string(v, signature), *r = keep_string(v, result);
    /* names holds NULs of its own; keep() adds one more, harmless after the last. */
    const char *n = keep(v, names ? names : "", names ? names_len : 0);
    if (!m || !s || !r || !n) return -ENOMEM;
    /* SD_BUS_METHOD_WITH_NAMES_OFFSET spelled out: the macro pastes its two
       name lists together as string literals, which a run-time list is not. */
    return insert(v, (sd_bus_vtable) {
        .type = _SD_BUS_VTABLE_METHOD,
        .flags = flags,
        .x = { .method = { .member = m, .signature = s, .result = r, .handler = handler, .offset = 0, .names = n } },
    });
}

int csb_vtable_add_signal(csb_vtable *v, const char *member, const char *signature,
                          const char *names, size_t names_len, uint64_t flags) {
    const char *m = keep_string(v, member), *s = keep_string(v, signature);
    const char *n = keep(v, names ? names : "", names ? names_len : 0);
    if (!m || !s || !n) return -ENOMEM;
    return insert(v, (sd_bus_vtable) SD_BUS_SIGNAL_WITH_NAMES(m, s, n, flags));
}

int csb_vtable_add_property(csb_vtable *v, const char *member, const char *signature,
                            sd_bus_property_get_t get, sd_bus_property_set_t set, uint64_t flags) {
    const char *m = keep_string(v, member), *s = keep_string(v, signature);
    if (!m || !s) return -ENOMEM;
    if (set)
        return insert(v, (sd_bus_vtable) SD_BUS_WRITABLE_PROPERTY(m, s, get, set, 0, flags));
    return insert(v, (sd_bus_vtable) SD_BUS_PROPERTY(m, s, get, 0, flags));
}

const sd_bus_vtable *csb_vtable_entries(const csb_vtable *v) { return v->entries; }

void csb_vtable_free(csb_vtable *v) {
    if (!v) return;
    for (size_t i = 0; i < v->string_count; i++) free(v->strings[i]);
    free(v->strings);
    free(v->entries);
    free(v);
}
