/* GDAL loaded on first use, in portable C: every function of gdal_functions.def is defined here
   with GDAL's own prototype (the compiler checks it against GDAL's header) and calls the real
   function through a pointer. The pointers start empty; the first call of any of them loads
   GDAL once (pthread_once), resolves every function, and only then publishes all pointers, so a
   thread never sees some real and some missing. A forwarder costs one acquire load and an
   indirect call.

   The forwarders are hidden: they bind the calls of this program's own code and are not
   exported, so they never interpose on libgdal's calls of its own functions once it is loaded.
   GDAL's headers declare its functions with default visibility through CPL_DLL unless it is
   already defined (as for a static GDAL); defined empty here, the hidden definitions agree. */
#define CPL_DLL
#include "CGDAL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define RS_HIDDEN __attribute__((visibility("hidden")))
#else
#define RS_HIDDEN
#endif

/* One pointer per function, of the function's own type. */
#define RS_GDAL_FUNCTION(type, name, parameters, arguments)                                      \
    typedef type(*function_##name) parameters;                                                   \
    static _Atomic(function_##name) pointer_##name;
#define RS_GDAL_VOID(name, parameters, arguments)                                                \
    typedef void(*function_##name) parameters;                                                   \
    static _Atomic(function_##name) pointer_##name;
#include "gdal_functions.def"
#undef RS_GDAL_FUNCTION
#undef RS_GDAL_VOID

static const char *const symbols[] = {
#define RS_GDAL_FUNCTION(type, name, parameters, arguments) #name,
#define RS_GDAL_VOID(name, parameters, arguments) #name,
#include "gdal_functions.def"
#undef RS_GDAL_FUNCTION
#undef RS_GDAL_VOID
};

#define SYMBOL_COUNT (sizeof symbols / sizeof symbols[0])

/* The shared library names tried in order when REGIONSEARCH_GDAL is not set. Linux: Debian 12's
   GDAL 3.6 by its soname, then the development link (any GDAL whose headers are installed, which
   building requires). macOS: the dynamic loader's search path, then Homebrew's two prefixes. */
static const char *const names[] = {
#if defined(__APPLE__)
    "libgdal.dylib", "/opt/homebrew/lib/libgdal.dylib", "/usr/local/lib/libgdal.dylib",
#else
    "libgdal.so.32", "libgdal.so",
#endif
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[1024];

/* Stores what dlsym found into a function pointer: ISO C has no conversion between object and
   function pointers (POSIX guarantees they have the same representation). */
#define RS_GDAL_PUBLISH(name, address)                                                           \
    do {                                                                                         \
        function_##name function;                                                                \
        void *found_address = (address);                                                         \
        memcpy(&function, &found_address, sizeof function);                                      \
        atomic_store_explicit(&pointer_##name, function, memory_order_release);                  \
    } while (0)

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
            int n = snprintf(failure + used, sizeof failure - used, "%s%s", used > 0 ? "; " : "",
                             why ? why : tried[i]);
            if (n > 0) used += (size_t)n;
        }
    }
    if (handle == NULL) {
        char reasons[sizeof failure];
        memcpy(reasons, failure, sizeof reasons);
        snprintf(failure, sizeof failure,
                 "cannot load GDAL (%.900s): install it (scripts/setup installs libgdal-dev) and run again", reasons);
        return;
    }
    /* Every function first, then all pointers at once. */
    void *found[SYMBOL_COUNT];
    for (size_t i = 0; i < SYMBOL_COUNT; i++) {
        found[i] = dlsym(handle, symbols[i]);
        if (found[i] == NULL) {
            const char *why = dlerror();
            snprintf(failure, sizeof failure, "GDAL has no function %s (GDAL >= 3.6 is required): %s", symbols[i],
                     why ? why : "not found");
            return;
        }
    }
    size_t next = 0;
#define RS_GDAL_FUNCTION(type, name, parameters, arguments) RS_GDAL_PUBLISH(name, found[next++]);
#define RS_GDAL_VOID(name, parameters, arguments) RS_GDAL_PUBLISH(name, found[next++]);
#include "gdal_functions.def"
#undef RS_GDAL_FUNCTION
#undef RS_GDAL_VOID
    failure[0] = 0;
}

const char *rs_gdal_load_error(void) {
    pthread_once(&once, load_once);
    return failure[0] != 0 ? failure : NULL;
}

/* Loads GDAL for a forwarder whose pointer is still empty; exits when it cannot be loaded. */
static void load_or_exit(void) {
    const char *error = rs_gdal_load_error();
    if (error != NULL) {
        /* A GDAL function was called before GDALLibrary.ensureRegistered() (which throws a typed
           error instead): there is no way to return an error through the caller's signature. */
        fprintf(stderr, "regionsearch: error: %s\n", error);
        exit(70);
    }
}

/* The forwarders. The first load of an empty pointer loads GDAL; pthread_once orders every
   pointer's store before the second load. */
#define RS_GDAL_RESOLVED(name)                                                                   \
    function_##name function = atomic_load_explicit(&pointer_##name, memory_order_acquire);       \
    if (function == NULL) {                                                                      \
        load_or_exit();                                                                          \
        function = atomic_load_explicit(&pointer_##name, memory_order_acquire);                  \
    }
#define RS_GDAL_FUNCTION(type, name, parameters, arguments)                                      \
    RS_HIDDEN type name parameters {                                                             \
        RS_GDAL_RESOLVED(name)                                                                   \
        return function arguments;                                                               \
    }
#define RS_GDAL_VOID(name, parameters, arguments)                                                \
    RS_HIDDEN void name parameters {                                                             \
        RS_GDAL_RESOLVED(name)                                                                   \
        function arguments;                                                                      \
    }
#include "gdal_functions.def"
#undef RS_GDAL_FUNCTION
#undef RS_GDAL_VOID
