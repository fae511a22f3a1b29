#ifndef REGIONSEARCH_GDAL_LOADER_H
#define REGIONSEARCH_GDAL_LOADER_H
/* GDAL is loaded on first use, not at process start (see trampolines.S). */

/* Loads GDAL once (thread-safe); NULL on success, else why it failed (static storage). */
const char *rs_gdal_load_error(void);

/* Loads GDAL once; on failure prints the reason and exits with status 70. */
void rs_gdal_load(void);
#endif
