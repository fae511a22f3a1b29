/* Every geos C function RegionSearch calls (Swift files importing CGEOS), with the prototype of
   the installed header: written by scripts/make-c-forwarders geos; run it again after a new
   call. loader.c defines each as a function of that prototype (checked by the compiler against
   the header) that forwards through a pointer resolved when the library is loaded. */
#ifndef REGIONSEARCH_GEOS_FUNCTIONS_H
#define REGIONSEARCH_GEOS_FUNCTIONS_H
#define RS_GEOS_FUNCTIONS(F, V) \
    F(int, GEOSArea_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(GEOSGeometry *, GEOSBuffer_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double a2, int a3), (a0, a1, a2, a3)) \
    F(GEOSGeometry *, GEOSClipByRect_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double a2, double a3, double a4, double a5), (a0, a1, a2, a3, a4, a5)) \
    F(GEOSGeometry *, GEOSConcaveHull_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double a2, unsigned int a3), (a0, a1, a2, a3)) \
    F(char, GEOSContains_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    F(GEOSMessageHandler_r, GEOSContext_setErrorMessageHandler_r, (GEOSContextHandle_t a0, GEOSMessageHandler_r a1, void *a2), (a0, a1, a2)) \
    F(GEOSGeometry *, GEOSConvexHull_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(GEOSCoordSequence *, GEOSCoordSeq_create_r, (GEOSContextHandle_t a0, unsigned int a1, unsigned int a2), (a0, a1, a2)) \
    F(int, GEOSCoordSeq_getSize_r, (GEOSContextHandle_t a0, const GEOSCoordSequence *a1, unsigned int *a2), (a0, a1, a2)) \
    F(int, GEOSCoordSeq_getXY_r, (GEOSContextHandle_t a0, const GEOSCoordSequence *a1, unsigned int a2, double *a3, double *a4), (a0, a1, a2, a3, a4)) \
    F(int, GEOSCoordSeq_setXY_r, (GEOSContextHandle_t a0, GEOSCoordSequence *a1, unsigned int a2, double a3, double a4), (a0, a1, a2, a3, a4)) \
    F(GEOSGeometry *, GEOSDelaunayTriangulation_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double a2, int a3), (a0, a1, a2, a3)) \
    F(GEOSGeometry *, GEOSDifferencePrec_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2, double a3), (a0, a1, a2, a3)) \
    F(GEOSGeometry *, GEOSDifference_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    V(GEOSFree_r, (GEOSContextHandle_t a0, void *a1), (a0, a1)) \
    F(int, GEOSGeomGetX_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(int, GEOSGeomGetY_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(int, GEOSGeomTypeId_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSGeom_clone_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSGeom_createCollection_r, (GEOSContextHandle_t a0, int a1, GEOSGeometry **a2, unsigned int a3), (a0, a1, a2, a3)) \
    F(GEOSGeometry *, GEOSGeom_createEmptyPolygon_r, (GEOSContextHandle_t a0), (a0)) \
    F(GEOSGeometry *, GEOSGeom_createLineString_r, (GEOSContextHandle_t a0, GEOSCoordSequence *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSGeom_createLinearRing_r, (GEOSContextHandle_t a0, GEOSCoordSequence *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSGeom_createPointFromXY_r, (GEOSContextHandle_t a0, double a1, double a2), (a0, a1, a2)) \
    F(GEOSGeometry *, GEOSGeom_createPolygon_r, (GEOSContextHandle_t a0, GEOSGeometry *a1, GEOSGeometry **a2, unsigned int a3), (a0, a1, a2, a3)) \
    V(GEOSGeom_destroy_r, (GEOSContextHandle_t a0, GEOSGeometry *a1), (a0, a1)) \
    F(const GEOSCoordSequence *, GEOSGeom_getCoordSeq_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(int, GEOSGeom_getXMax_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(int, GEOSGeom_getXMin_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(int, GEOSGeom_getYMax_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(int, GEOSGeom_getYMin_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double *a2), (a0, a1, a2)) \
    F(GEOSGeometry *, GEOSGeom_setPrecision_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double a2, int a3), (a0, a1, a2, a3)) \
    F(GEOSGeometry *, GEOSGetCentroid_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(const GEOSGeometry *, GEOSGetExteriorRing_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(const GEOSGeometry *, GEOSGetGeometryN_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, int a2), (a0, a1, a2)) \
    F(const GEOSGeometry *, GEOSGetInteriorRingN_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, int a2), (a0, a1, a2)) \
    F(int, GEOSGetNumGeometries_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(int, GEOSGetNumInteriorRings_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSInterpolateNormalized_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, double a2), (a0, a1, a2)) \
    F(GEOSGeometry *, GEOSIntersectionPrec_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2, double a3), (a0, a1, a2, a3)) \
    F(GEOSGeometry *, GEOSIntersection_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    F(char, GEOSIntersects_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    F(GEOSGeometry *, GEOSMakeValid_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSPointOnSurface_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(const GEOSPreparedGeometry *, GEOSPrepare_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(char, GEOSPreparedCovers_r, (GEOSContextHandle_t a0, const GEOSPreparedGeometry *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    V(GEOSPreparedGeom_destroy_r, (GEOSContextHandle_t a0, const GEOSPreparedGeometry *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSUnaryUnion_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSUnion_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    F(GEOSWKTReader *, GEOSWKTReader_create_r, (GEOSContextHandle_t a0), (a0)) \
    V(GEOSWKTReader_destroy_r, (GEOSContextHandle_t a0, GEOSWKTReader *a1), (a0, a1)) \
    F(GEOSGeometry *, GEOSWKTReader_read_r, (GEOSContextHandle_t a0, GEOSWKTReader *a1, const char *a2), (a0, a1, a2)) \
    F(GEOSWKTWriter *, GEOSWKTWriter_create_r, (GEOSContextHandle_t a0), (a0)) \
    V(GEOSWKTWriter_destroy_r, (GEOSContextHandle_t a0, GEOSWKTWriter *a1), (a0, a1)) \
    F(char *, GEOSWKTWriter_write_r, (GEOSContextHandle_t a0, GEOSWKTWriter *a1, const GEOSGeometry *a2), (a0, a1, a2)) \
    V(GEOS_finish_r, (GEOSContextHandle_t a0), (a0)) \
    F(GEOSContextHandle_t, GEOS_init_r, (void), ()) \
    F(char, GEOSisEmpty_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(char *, GEOSisValidReason_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(char, GEOSisValid_r, (GEOSContextHandle_t a0, const GEOSGeometry *a1), (a0, a1)) \
    F(const char *, GEOSversion, (void), ())
#endif
