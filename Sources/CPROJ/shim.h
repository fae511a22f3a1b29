#ifndef REGIONSEARCH_CPROJ_SHIM_H
#define REGIONSEARCH_CPROJ_SHIM_H
#if __has_include(<proj.h>)
#include <proj.h>
#include <geodesic.h>
#else
#error "PROJ C API header <proj.h> not found: install the Debian packages libproj-dev and proj-data (apt-get install libproj-dev proj-data), or run scripts/setup"
#endif
#endif
