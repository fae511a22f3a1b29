#include "rs_gdal_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* The pointers the trampolines jump through (trampolines.S). */
#define RS_GDAL_SYMBOL(name) extern void *rs_gdal_ptr_##name;
#include "gdal_symbols.def"
#undef RS_GDAL_SYMBOL

static void **const pointers[] = {
#define RS_GDAL_SYMBOL(name) &rs_gdal_ptr_##name,
#include "gdal_symbols.def"
#undef RS_GDAL_SYMBOL
};

static const char *const symbols[] = {
#define RS_GDAL_SYMBOL(name) #name,
#include "gdal_symbols.def"
#undef RS_GDAL_SYMBOL
};

#define SYMBOL_COUNT (sizeof symbols / sizeof symbols[0])

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[1024];

/* The shared object names tried in order: Debian 12's GDAL 3.6 by its soname (the library the
   headers and GDAL's own plugins belong to), then the development link. */
static const char *const names[] = {"libgdal.so.32", "libgdal.so"};

static void load_once(void) {
    void *handle = NULL;
    size_t used = 0;
    /* REGIONSEARCH_GDAL names the library instead (a GDAL of one's own, or a test). */
    const char *chosen = getenv("REGIONSEARCH_GDAL");
    const char *const *tried = names;
    size_t count = sizeof names / sizeof names[0];
    if (chosen != NULL && chosen[0] != 0) {
        tried = &chosen;
        count = 1;
    }
    for (size_t i = 0; i < count && handle == NULL; i++) {
        handle = dlopen(tried[i], RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL && used < sizeof failure) {
            const char *why = dlerror();
            int n = snprintf(failure + used, sizeof failure - used, "%s%s", used > 0 ? "; " : "", why ? why : tried[i]);
            if (n > 0) used += (size_t)n;
        }
    }
    if (handle == NULL) {
        char reasons[sizeof failure];
        memcpy(reasons, failure, sizeof reasons);
        snprintf(failure, sizeof failure,
                 "cannot load GDAL (%s): install it (scripts/setup installs libgdal-dev) and run again", reasons);
        return;
    }
    /* Every function first, then all pointers at once: never some real and some failing. */
    void *found[SYMBOL_COUNT];
    for (size_t i = 0; i < SYMBOL_COUNT; i++) {
        found[i] = dlsym(handle, symbols[i]);
        if (found[i] == NULL) {
            snprintf(failure, sizeof failure, "GDAL has no function %s (GDAL >= 3.6 is required): %s",
                     symbols[i], dlerror());
            return;
        }
    }
    for (size_t i = 0; i < SYMBOL_COUNT; i++) __atomic_store_n(pointers[i], found[i], __ATOMIC_RELEASE);
    failure[0] = 0;
}

const char *rs_gdal_load_error(void) {
    pthread_once(&once, load_once);
    return failure[0] != 0 ? failure : NULL;
}

void rs_gdal_load(void) {
    const char *error = rs_gdal_load_error();
    if (error != NULL) {
        /* A GDAL function was called before GDALLibrary.ensureRegistered() (which throws a typed
           error instead): there is no way to return an error through the caller's signature. */
        fprintf(stderr, "regionsearch: error: %s\n", error);
        exit(70);
    }
}
