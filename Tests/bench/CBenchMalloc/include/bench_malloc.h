#ifndef BENCH_MALLOC_H
#define BENCH_MALLOC_H
#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, memalign, posix_memalign,
/// aligned_alloc, valloc) made by the calling thread since it started. The
/// bench executable defines these allocator entry points itself, so every
/// allocation in its process (Swift runtime, OpenAL, libsndfile) passes
/// through them; they count and forward to glibc's __libc_* functions.
uint64_t bench_thread_allocations(void);

/// Whether the counting allocator is the one in use: a probe malloc must
/// move this thread's count (false would mean the symbols were not interposed).
int bench_malloc_interposed(void);

/// While on, every allocation of this thread calls bench_allocation_watched()
/// (a debugger breakpoint target; see Tests/bench/allocation-stacks.sh).
void bench_watch_allocations(int on);
void bench_allocation_watched(void);
#endif
