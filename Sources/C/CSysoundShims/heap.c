#include <malloc.h>
#include "CSysoundShims.h"

int sysound_trim_heap(void) {
    return malloc_trim(0);
}

int sysound_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
