#include <malloc.h>
#include "CSysoundShims.h"

int sysound_trim_heap(void) {
    return malloc_trim(0);
}
