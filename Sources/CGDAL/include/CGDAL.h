#ifndef REGIONSEARCH_CGDAL_H
#define REGIONSEARCH_CGDAL_H
/* The GDAL/OGR C API (GDAL >= 3.6), loaded on first use instead of linked: this target defines
   every GDAL function RegionSearch calls (gdal_functions.h) as a forwarder that loads libgdal
   the first time any of them runs (loader.c, CLibraryLoader.h), so that the processes that never touch GDAL do not
   pay for loading it and the ~70 libraries it needs (about 25 ms per process start). Only the C
   API is used: every handle is owned by one Swift object in RegionSearchGDAL, and every call
   runs under a thread-local error handler there.

   GDAL's headers are found in either layout: `gdal.h` on the include path (Homebrew's prefix,
   a source build, or Debian's /usr/include/gdal named with -I, as `pkg-config --cflags gdal`
   gives it), or Debian's and Ubuntu's /usr/include/gdal/gdal.h. This target has no pkg-config
   name on purpose: SwiftPM links a pkg-config module's libraries into every executable above it,
   which is what the lazy loading avoids. GDAL's headers include each other by quoted names,
   found beside them. */
#if __has_include(<gdal.h>) && __has_include(<ogr_api.h>) && __has_include(<ogr_srs_api.h>)
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#elif __has_include(<gdal/gdal.h>) && __has_include(<gdal/ogr_api.h>) && __has_include(<gdal/ogr_srs_api.h>)
#include <gdal/gdal.h>
#include <gdal/ogr_api.h>
#include <gdal/ogr_srs_api.h>
#include <gdal/cpl_conv.h>
#include <gdal/cpl_error.h>
#include <gdal/cpl_string.h>
#include <gdal/cpl_vsi.h>
#else
#error "GDAL's C API headers (gdal.h, ogr_api.h, ogr_srs_api.h) not found: install GDAL (Debian/Ubuntu: apt-get install libgdal-dev, or scripts/setup; macOS: brew install gdal), and if its include directory is not searched by default, name it: swift build -Xcc -I\"$(pkg-config --variable=includedir gdal)\""
#endif
#if !defined(GDAL_VERSION_NUM) || GDAL_VERSION_NUM < 3060000
#error "GDAL >= 3.6 is required (Debian 12: libgdal-dev 3.6.2)"
#endif

/* Loads GDAL once (thread-safe); NULL on success, else why it failed (static storage). The
   library is the one REGIONSEARCH_GDAL names, or else the platform's usual names for it. */
const char *rs_gdal_load_error(void);
#endif
