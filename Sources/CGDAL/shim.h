#ifndef REGIONSEARCH_CGDAL_SHIM_H
#define REGIONSEARCH_CGDAL_SHIM_H
/* The GDAL/OGR C API (GDAL >= 3.6; Debian 12 ships 3.6.2). pkg-config "gdal" adds
   -I/usr/include/gdal. Only the C API is used: every handle is owned by one Swift object in
   RegionSearchGDAL, and every call runs under a thread-local error handler there. */
#if __has_include(<gdal.h>) && __has_include(<ogr_api.h>) && __has_include(<ogr_srs_api.h>)
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#else
#error "GDAL C API headers (<gdal.h>, <ogr_api.h>, <ogr_srs_api.h>) not found: install the Debian package libgdal-dev (apt-get install libgdal-dev), or run scripts/setup"
#endif
#if !defined(GDAL_VERSION_NUM) || GDAL_VERSION_NUM < 3060000
#error "GDAL >= 3.6 is required (Debian 12: libgdal-dev 3.6.2)"
#endif
#endif
