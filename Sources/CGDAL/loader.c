/* GDAL loaded on first use (CLibraryLoader.h). GDAL's headers declare its functions with default
   visibility through CPL_DLL unless it is already defined (as for a static GDAL); defined empty
   here, the hidden forwarders agree with them. */
#define CPL_DLL
#include "CGDAL.h"
#include "gdal_functions.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

#include <CLibraryLoader.h>

/* The shared library names tried in order when REGIONSEARCH_GDAL is not set. Linux: Debian 12's
   GDAL 3.6 by its soname, then the development link (any GDAL whose headers are installed, which
   building requires). macOS: the dynamic loader's search path, then Homebrew's two prefixes. */
static const char *const rs_names[] = {
#if defined(__APPLE__)
    "libgdal.dylib", "/opt/homebrew/lib/libgdal.dylib", "/usr/local/lib/libgdal.dylib",
#else
    "libgdal.so.32", "libgdal.so",
#endif
};

#define RS_LIBRARY_PREFIX gdal
RS_LAZY_LIBRARY(RS_GDAL_FUNCTIONS, "GDAL", "REGIONSEARCH_GDAL", rs_names,
                "install it (scripts/setup installs libgdal-dev) and run again", "GDAL >= 3.6 is required")
