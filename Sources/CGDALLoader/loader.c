#include "rs_gdal_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The pointers the trampolines jump through (trampolines.S). */
#define RS_GDAL_SYMBOL(name) extern void *rs_gdal_ptr_##name;
#include "gdal_symbols.def"
#undef RS_GDAL_SYMBOL

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

/* The shared object names tried in order: the development link (present wherever the package
   builds), then the run-time name of Debian 12's GDAL 3.6. */
static const char *const names[] = {"libgdal.so", "libgdal.so.32"};

static void load_once(void) {
    void *handle = NULL;
    const char *why = "not found";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && handle == NULL; i++) {
        handle = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL) why = dlerror();
    }
    if (handle == NULL) {
        snprintf(failure, sizeof failure, "cannot load GDAL (%s): install it with scripts/setup (libgdal-dev)", why);
        return;
    }
#define RS_GDAL_SYMBOL(name)                                                                          \
    {                                                                                                 \
        void *f = dlsym(handle, #name);                                                               \
        if (f == NULL) {                                                                              \
            snprintf(failure, sizeof failure, "GDAL has no function %s (GDAL >= 3.6 is required)", #name); \
            return;                                                                                   \
        }                                                                                             \
        rs_gdal_ptr_##name = f;                                                                       \
    }
#include "gdal_symbols.def"
#undef RS_GDAL_SYMBOL
}

const char *rs_gdal_load_error(void) {
    pthread_once(&once, load_once);
    return failure[0] != 0 ? failure : NULL;
}

void rs_gdal_load(void) {
    const char *error = rs_gdal_load_error();
    if (error != NULL) {
        /* A GDAL function was called without RegionSearchGDAL checking the library first: there
           is no way to return an error through the caller's signature. */
        fprintf(stderr, "regionsearch: error: %s\n", error);
        exit(70);
    }
}
