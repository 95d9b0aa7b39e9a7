// Counting allocator for sysound-bench: the executable defines malloc & co.,
// so the dynamic linker binds every library's allocations to these (glibc
// supports replacing malloc this way). Each call bumps a thread-local counter
// and forwards to glibc's own allocator (__libc_malloc & co.), so memory from
// either side may be freed by the other. Thread-local so that counting costs
// one increment and no lock; no allocation happens in here.
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "bench_malloc.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void __libc_free(void *);

static __thread uint64_t allocations;
static __thread int watching;

// A place for a debugger's breakpoint: `break bench_allocation_watched`
// shows the stack of each allocation made while watching is on.
__attribute__((noinline)) void bench_allocation_watched(void) { __asm__ volatile(""); }

static inline void count(void) {
    allocations++;
    if (watching) bench_allocation_watched();
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *valloc(size_t size) { count(); return __libc_valloc(size); }
void *pvalloc(size_t size) { count(); return __libc_pvalloc(size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

uint64_t bench_thread_allocations(void) { return allocations; }

int bench_malloc_interposed(void) {
    uint64_t before = allocations;
    // volatile: the compiler may not elide the probe pair.
    void *volatile p = malloc(16);
    free(p);
    return allocations != before;
}

void bench_watch_allocations(int on) { watching = on; }
