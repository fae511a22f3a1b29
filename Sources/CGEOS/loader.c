/* GEOS loaded on first use (CLibraryLoader.h). */
#include "CGEOS.h"
#include "geos_functions.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <CLibraryLoader.h>

/* Debian 12's GEOS C API by its soname, then the development link; macOS: the loader's search
   path, then Homebrew's two prefixes. */
static const char *const rs_names[] = {
#if defined(__APPLE__)
    "libgeos_c.dylib", "/opt/homebrew/lib/libgeos_c.dylib", "/usr/local/lib/libgeos_c.dylib",
#else
    "libgeos_c.so.1", "libgeos_c.so",
#endif
};

#define RS_LIBRARY_PREFIX geos
RS_LAZY_LIBRARY(RS_GEOS_FUNCTIONS, "GEOS", "REGIONSEARCH_GEOS", rs_names,
                "install it (scripts/setup installs libgeos-dev) and run again", "GEOS >= 3.11 is required")
