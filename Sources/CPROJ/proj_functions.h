/* Every proj C function RegionSearch calls (Swift files importing CPROJ), with the prototype of
   the installed header: written by scripts/make-c-forwarders proj; run it again after a new
   call. loader.c defines each as a function of that prototype (checked by the compiler against
   the header) that forwards through a pointer resolved when the library is loaded. */
#ifndef REGIONSEARCH_PROJ_FUNCTIONS_H
#define REGIONSEARCH_PROJ_FUNCTIONS_H
#define RS_PROJ_FUNCTIONS(F, V) \
    V(geod_direct, (const struct geod_geodesic *a0, double a1, double a2, double a3, double a4, double *a5, double *a6, double *a7), (a0, a1, a2, a3, a4, a5, a6, a7)) \
    V(geod_init, (struct geod_geodesic *a0, double a1, double a2), (a0, a1, a2)) \
    V(geod_inverse, (const struct geod_geodesic *a0, double a1, double a2, double a3, double a4, double *a5, double *a6, double *a7), (a0, a1, a2, a3, a4, a5, a6, a7)) \
    V(geod_polygonarea, (const struct geod_geodesic *a0, double a1[], double a2[], int a3, double *a4, double *a5), (a0, a1, a2, a3, a4, a5)) \
    F(PJ_CONTEXT *, proj_context_create, (void), ()) \
    F(PJ_CONTEXT *, proj_context_destroy, (PJ_CONTEXT *a0), (a0)) \
    F(int, proj_context_errno, (PJ_CONTEXT *a0), (a0)) \
    F(const char *, proj_context_errno_string, (PJ_CONTEXT *a0, int a1), (a0, a1)) \
    F(PJ *, proj_create, (PJ_CONTEXT *a0, const char *a1), (a0, a1)) \
    F(PJ *, proj_create_crs_to_crs, (PJ_CONTEXT *a0, const char *a1, const char *a2, PJ_AREA *a3), (a0, a1, a2, a3)) \
    F(PJ *, proj_crs_get_coordinate_system, (PJ_CONTEXT *a0, const PJ *a1), (a0, a1)) \
    F(int, proj_cs_get_axis_info, (PJ_CONTEXT *a0, const PJ *a1, int a2, const char **a3, const char **a4, const char **a5, double *a6, const char **a7, const char **a8, const char **a9), (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)) \
    F(PJ *, proj_destroy, (PJ *a0), (a0)) \
    F(int, proj_errno, (const PJ *a0), (a0)) \
    F(int, proj_errno_reset, (const PJ *a0), (a0)) \
    F(const char *, proj_get_name, (const PJ *a0), (a0)) \
    F(PJ *, proj_get_source_crs, (PJ_CONTEXT *a0, const PJ *a1), (a0, a1)) \
    F(PJ_TYPE, proj_get_type, (const PJ *a0), (a0)) \
    F(PJ_INFO, proj_info, (void), ()) \
    V(proj_log_func, (PJ_CONTEXT *a0, void *a1, PJ_LOG_FUNCTION a2), (a0, a1, a2)) \
    F(PJ_LOG_LEVEL, proj_log_level, (PJ_CONTEXT *a0, PJ_LOG_LEVEL a1), (a0, a1)) \
    F(PJ *, proj_normalize_for_visualization, (PJ_CONTEXT *a0, const PJ *a1), (a0, a1)) \
    F(size_t, proj_trans_generic, (PJ *a0, PJ_DIRECTION a1, double *a2, size_t a3, size_t a4, double *a5, size_t a6, size_t a7, double *a8, size_t a9, size_t a10, double *a11, size_t a12, size_t a13), (a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13))
#endif
