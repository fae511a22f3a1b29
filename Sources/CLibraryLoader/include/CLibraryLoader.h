#ifndef REGIONSEARCH_CLIBRARYLOADER_H
#define REGIONSEARCH_CLIBRARYLOADER_H
/* A C library loaded on first use instead of linked: a process that links PROJ, GEOS, Cairo or
   GDAL pays for loading it and the libraries it needs (curl, GnuTLS, Kerberos, SQLite, libtiff,
   fontconfig, FreeType, the C++ runtime's symbols, ~70 for GDAL) at every start, in dynamic
   symbol lookups, whether or not it ever calls them: 25–35 ms per process, where most stages
   call none of them. The targets CPROJ, CGEOS, CCairo and CGDAL each define every function
   RegionSearch calls (their *_functions.h lists, written by scripts/make-c-forwarders) as a
   hidden C function of the library's own prototype that calls the real one through a pointer;
   the first call of any of them loads the library once (pthread_once), resolves every function
   and only then publishes all pointers, so a thread never sees some real and some missing. A
   forwarder costs one acquire load and an indirect call. Portable C11 and POSIX (dlopen), no
   assembly: any architecture, Linux and macOS.

   The forwarders are hidden: they bind the calls of this program's own code and are never
   exported, so they do not interpose on the library's calls of its own functions once it is
   loaded. A library's headers may declare its functions with default visibility; the hidden
   definitions here are what this program's code links to. */
#include <stddef.h>

/* Opens the first of `names` (or the one the environment variable `variable` names, when set)
   and looks up every one of `symbols` into `found`; 0 on success, else -1 with the reason in
   `failure` (what to do next included). `title` names the library in messages, `install` says how
   to install it, `requirement` which version has every function. */
int rs_library_open(const char *title, const char *variable, const char *const *names, size_t name_count,
                    const char *install, const char *requirement, const char *const *symbols,
                    size_t symbol_count, void **found, char *failure, size_t failure_size);

/* Exits with status 70 and `failure` on stderr: a forwarder was called and its library cannot be
   loaded. GDAL's wrapper checks first and throws a typed error instead (GDALLibrary); PROJ, GEOS
   and Cairo, which building requires, end here, and the runner reports the stage's failure and
   where it resumes. A C signature has no way to return the error. */
void rs_library_exit(const char *failure);

#if defined(__GNUC__) || defined(__clang__)
#define RS_HIDDEN __attribute__((visibility("hidden")))
#else
#define RS_HIDDEN
#endif

/* The definitions for one library, whose prefix RS_LIBRARY_PREFIX names (proj, geos, cairo, gdal;
   rs_<prefix>_load_error() is the check that loads it: NULL on success, else why not and what to
   do), from `LIST`, a macro LIST(FUNCTION, VOID) that applies
   FUNCTION(type, name, parameters, arguments) or VOID(name, parameters, arguments) to each of
   the library's functions. Used once per library, in its loader.c, after <stdatomic.h>,
   <pthread.h> and <string.h> and the library's own headers. */
#define RS_POINTER_FUNCTION(type, name, parameters, arguments)                                   \
    typedef type(*rs_function_##name) parameters;                                                \
    static _Atomic(rs_function_##name) rs_pointer_##name;
#define RS_POINTER_VOID(name, parameters, arguments) RS_POINTER_FUNCTION(void, name, parameters, arguments)
#define RS_SYMBOL_FUNCTION(type, name, parameters, arguments) #name,
#define RS_SYMBOL_VOID(name, parameters, arguments) #name,
/* ISO C has no conversion between object and function pointers (POSIX guarantees that they have
   the same representation): the address is copied. */
#define RS_PUBLISH_FUNCTION(type, name, parameters, arguments)                                   \
    {                                                                                            \
        rs_function_##name function;                                                             \
        void *address = found[next++];                                                           \
        memcpy(&function, &address, sizeof function);                                            \
        atomic_store_explicit(&rs_pointer_##name, function, memory_order_release);               \
    }
#define RS_PUBLISH_VOID(name, parameters, arguments) RS_PUBLISH_FUNCTION(void, name, parameters, arguments)
#define RS_RESOLVED(name)                                                                        \
    rs_function_##name function = atomic_load_explicit(&rs_pointer_##name, memory_order_acquire); \
    if (function == NULL) {                                                                      \
        const char *error = RS_LOAD_ERROR_NAME(RS_LIBRARY_PREFIX)();                             \
        if (error != NULL) rs_library_exit(error);                                               \
        function = atomic_load_explicit(&rs_pointer_##name, memory_order_acquire);               \
    }
#define RS_FORWARD_FUNCTION(type, name, parameters, arguments)                                   \
    RS_HIDDEN type name parameters {                                                             \
        RS_RESOLVED(name)                                                                        \
        return function arguments;                                                               \
    }
#define RS_FORWARD_VOID(name, parameters, arguments)                                             \
    RS_HIDDEN void name parameters {                                                             \
        RS_RESOLVED(name)                                                                        \
        function arguments;                                                                      \
    }
#define RS_LOAD_ERROR_NAME(prefix) RS_LOAD_ERROR_NAME_(prefix)
#define RS_LOAD_ERROR_NAME_(prefix) rs_##prefix##_load_error

#define RS_LAZY_LIBRARY(LIST, title, variable, names, install, requirement)                      \
    LIST(RS_POINTER_FUNCTION, RS_POINTER_VOID)                                                   \
    static const char *const rs_symbols[] = {LIST(RS_SYMBOL_FUNCTION, RS_SYMBOL_VOID)};          \
    static pthread_once_t rs_once = PTHREAD_ONCE_INIT;                                           \
    static char rs_failure[1024];                                                                \
    static void rs_load_once(void) {                                                             \
        enum { count = sizeof rs_symbols / sizeof rs_symbols[0] };                               \
        void *found[count];                                                                      \
        if (rs_library_open(title, variable, names, sizeof names / sizeof names[0], install,     \
                            requirement, rs_symbols, count, found, rs_failure,                   \
                            sizeof rs_failure) != 0)                                             \
            return;                                                                              \
        size_t next = 0;                                                                         \
        LIST(RS_PUBLISH_FUNCTION, RS_PUBLISH_VOID)                                               \
        (void)next;                                                                              \
    }                                                                                            \
    const char *RS_LOAD_ERROR_NAME(RS_LIBRARY_PREFIX)(void) {                                    \
        pthread_once(&rs_once, rs_load_once);                                                    \
        return rs_failure[0] != 0 ? rs_failure : NULL;                                           \
    }                                                                                            \
    LIST(RS_FORWARD_FUNCTION, RS_FORWARD_VOID)
#endif
