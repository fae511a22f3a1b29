/* PROJ loaded on first use (CLibraryLoader.h). Its headers give its functions default visibility
   unless PROJ_DLL and GEOD_DLL are already defined; defined empty here, the hidden forwarders
   agree with them. */
#define PROJ_DLL
#define GEOD_DLL
#include "CPROJ.h"
#include "proj_functions.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <CLibraryLoader.h>

/* Debian 12's PROJ 9.1 by its soname, then the development link (any PROJ whose headers are
   installed, which building requires); macOS: the loader's search path, then Homebrew's two
   prefixes. */
static const char *const rs_names[] = {
#if defined(__APPLE__)
    "libproj.dylib", "/opt/homebrew/lib/libproj.dylib", "/usr/local/lib/libproj.dylib",
#else
    "libproj.so.25", "libproj.so",
#endif
};

#define RS_LIBRARY_PREFIX proj
RS_LAZY_LIBRARY(RS_PROJ_FUNCTIONS, "PROJ", "REGIONSEARCH_PROJ", rs_names,
                "install it (scripts/setup installs libproj-dev and proj-data) and run again",
                "PROJ >= 9.1 is required")
