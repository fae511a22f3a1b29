#ifndef REGIONSEARCH_CGEOS_SHIM_H
#define REGIONSEARCH_CGEOS_SHIM_H
/* Only the reentrant (_r) API: every GEOS call takes the context handle of the
   calling thread, so no global state is shared between threads. */
#define GEOS_USE_ONLY_R_API
#if __has_include(<geos_c.h>)
#include <geos_c.h>
#else
#error "GEOS C API header <geos_c.h> not found: install the Debian package libgeos-dev (apt-get install libgeos-dev), or run scripts/setup"
#endif
#endif
