#ifndef REGIONSEARCH_CCAIRO_H
#define REGIONSEARCH_CCAIRO_H
/* Cairo image (PNG), SVG and PDF surfaces, loaded on first use instead of linked (see
   CLibraryLoader.h: libcairo brings fontconfig, FreeType, libpng and the X11 client libraries
   into every process that links it, where only the maps draw). Text goes through cairo's "toy"
   font API, which asks fontconfig for the face ("Noto Sans CJK SC" from fonts-noto-cjk covers
   Latin, Cyrillic and CJK); no FreeType or fontconfig call is made from Swift, so neither header
   is needed here. Debian and Homebrew install the headers in a cairo/ directory.
   rs_cairo_load_error() loads it: NULL on success, else why not and what to do. */
#if __has_include(<cairo/cairo.h>) && __has_include(<cairo/cairo-svg.h>) && __has_include(<cairo/cairo-pdf.h>)
#include <cairo/cairo.h>
#include <cairo/cairo-svg.h>
#include <cairo/cairo-pdf.h>
#elif __has_include(<cairo.h>) && __has_include(<cairo-svg.h>) && __has_include(<cairo-pdf.h>)
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
#else
#error "Cairo headers (<cairo/cairo.h>, <cairo/cairo-svg.h>, <cairo/cairo-pdf.h>) not found: install the Debian package libcairo2-dev (apt-get install libcairo2-dev), or run scripts/setup; if its include directory is not searched by default (Homebrew), name it: swift build -Xcc -I\"$(pkg-config --variable=includedir cairo)\""
#endif
#if !CAIRO_HAS_PNG_FUNCTIONS || !CAIRO_HAS_SVG_SURFACE || !CAIRO_HAS_PDF_SURFACE
#error "this cairo build lacks PNG, SVG or PDF support; install Debian's libcairo2-dev"
#endif

const char *rs_cairo_load_error(void);
#endif
