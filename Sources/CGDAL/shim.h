#ifndef REGIONSEARCH_CGDAL_SHIM_H
#define REGIONSEARCH_CGDAL_SHIM_H
/* The GDAL/OGR C API (GDAL >= 3.6; Debian 12 ships 3.6.2), from Debian's /usr/include/gdal (the
   headers include each other by quoted names, found beside them). Nothing links libgdal: the
   CGDALLoader target defines these functions as trampolines that load it on first use. Only the
   C API is used: every handle is owned by one Swift object in RegionSearchGDAL, and every call
   runs under a thread-local error handler there. */
#if __has_include(<gdal/gdal.h>) && __has_include(<gdal/ogr_api.h>) && __has_include(<gdal/ogr_srs_api.h>)
#include <gdal/gdal.h>
#include <gdal/ogr_api.h>
#include <gdal/ogr_srs_api.h>
#include <gdal/cpl_conv.h>
#include <gdal/cpl_error.h>
#include <gdal/cpl_string.h>
#include <gdal/cpl_vsi.h>
#else
#error "GDAL C API headers (<gdal/gdal.h>, <gdal/ogr_api.h>, <gdal/ogr_srs_api.h>) not found: install the Debian package libgdal-dev (apt-get install libgdal-dev), or run scripts/setup"
#endif
#if !defined(GDAL_VERSION_NUM) || GDAL_VERSION_NUM < 3060000
#error "GDAL >= 3.6 is required (Debian 12: libgdal-dev 3.6.2)"
#endif
#endif
