#ifndef REGIONSEARCH_CZLIB_SHIM_H
#define REGIONSEARCH_CZLIB_SHIM_H
#if __has_include(<zlib.h>)
#include <zlib.h>
#else
#error "zlib header <zlib.h> not found: install the Debian package zlib1g-dev (apt-get install zlib1g-dev), or run scripts/setup"
#endif
#endif
