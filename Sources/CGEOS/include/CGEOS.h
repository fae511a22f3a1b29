#ifndef REGIONSEARCH_CGEOS_H
#define REGIONSEARCH_CGEOS_H
/* GEOS's C API, loaded on first use instead of linked (see CLibraryLoader.h: libgeos is C++, and
   its symbol lookups cost every process that links it, where only the hulls stage and the maps
   draw). Only the reentrant (_r) API: every GEOS call takes the context handle of the calling
   thread, so no global state is shared between threads. rs_geos_load_error() loads it: NULL on
   success, else why not and what to do. */
#define GEOS_USE_ONLY_R_API
#if __has_include(<geos_c.h>)
#include <geos_c.h>
#else
#error "GEOS C API header <geos_c.h> not found: install the Debian package libgeos-dev (apt-get install libgeos-dev), or run scripts/setup; if its include directory is not searched by default (Homebrew), name it: swift build -Xcc -I\"$(pkg-config --variable=includedir geos)\""
#endif

const char *rs_geos_load_error(void);
#endif
