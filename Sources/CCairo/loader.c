/* Cairo loaded on first use (CLibraryLoader.h). */
#include "CCairo.h"
#include "cairo_functions.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <CLibraryLoader.h>

/* Debian 12's Cairo by its soname, then the development link; macOS: the loader's search path,
   then Homebrew's two prefixes. */
static const char *const rs_names[] = {
#if defined(__APPLE__)
    "libcairo.2.dylib", "/opt/homebrew/lib/libcairo.2.dylib", "/usr/local/lib/libcairo.2.dylib",
#else
    "libcairo.so.2", "libcairo.so",
#endif
};

#define RS_LIBRARY_PREFIX cairo
RS_LAZY_LIBRARY(RS_CAIRO_FUNCTIONS, "Cairo", "REGIONSEARCH_CAIRO", rs_names,
                "install it (scripts/setup installs libcairo2-dev) and run again", "Cairo >= 1.16 is required")
