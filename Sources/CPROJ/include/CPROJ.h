#ifndef REGIONSEARCH_CPROJ_H
#define REGIONSEARCH_CPROJ_H
/* PROJ's C API and its geodesic routines, loaded on first use instead of linked (see
   CLibraryLoader.h: libproj brings curl, GnuTLS, Kerberos, SQLite and libtiff into every process
   that links it, and the stages that never project would pay for them at every start).
   rs_proj_load_error() loads it: NULL on success, else why not and what to do. */
#if __has_include(<proj.h>) && __has_include(<geodesic.h>)
#include <proj.h>
#include <geodesic.h>
#else
#error "PROJ C API header <proj.h> not found: install the Debian packages libproj-dev and proj-data (apt-get install libproj-dev proj-data), or run scripts/setup; if its include directory is not searched by default (Homebrew), name it: swift build -Xcc -I\"$(pkg-config --variable=includedir proj)\""
#endif
#if !defined(PROJ_VERSION_MAJOR) || PROJ_VERSION_MAJOR < 9
#error "PROJ >= 9 is required (Debian 12: libproj-dev 9.1)"
#endif

const char *rs_proj_load_error(void);
#endif
