#ifndef REGIONSEARCH_CCAIRO_SHIM_H
#define REGIONSEARCH_CCAIRO_SHIM_H
/* Cairo image (PNG), SVG and PDF surfaces. Text goes through cairo's "toy" font API, which asks
   fontconfig for the face ("Noto Sans CJK SC" from fonts-noto-cjk covers Latin, Cyrillic and
   CJK); no FreeType or fontconfig call is made from Swift, so neither header is needed here. */
#if __has_include(<cairo.h>) && __has_include(<cairo-svg.h>) && __has_include(<cairo-pdf.h>)
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
#else
#error "Cairo headers (<cairo.h>, <cairo-svg.h>, <cairo-pdf.h>) not found: install the Debian package libcairo2-dev (apt-get install libcairo2-dev), or run scripts/setup"
#endif
#if !CAIRO_HAS_PNG_FUNCTIONS || !CAIRO_HAS_SVG_SURFACE || !CAIRO_HAS_PDF_SURFACE
#error "this cairo build lacks PNG, SVG or PDF support; install Debian's libcairo2-dev"
#endif
#endif
