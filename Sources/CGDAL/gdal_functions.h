/* Every gdal C function RegionSearch calls (Swift files importing CGDAL), with the prototype of
   the installed header: written by scripts/make-c-forwarders gdal; run it again after a new
   call. loader.c defines each as a function of that prototype (checked by the compiler against
   the header) that forwards through a pointer resolved when the library is loaded. */
#ifndef REGIONSEARCH_GDAL_FUNCTIONS_H
#define REGIONSEARCH_GDAL_FUNCTIONS_H
#define RS_GDAL_FUNCTIONS(F, V) \
    V(CPLErrorReset, (void), ()) \
    V(CPLErrorV, (CPLErr a0, CPLErrorNum a1, const char *a2, va_list a3), (a0, a1, a2, a3)) \
    F(void *, CPLGetErrorHandlerUserData, (void), ()) \
    F(const char *, CPLGetThreadLocalConfigOption, (const char *a0, const char *a1), (a0, a1)) \
    V(CPLPopErrorHandler, (void), ()) \
    V(CPLPushErrorHandlerEx, (CPLErrorHandler a0, void *a1), (a0, a1)) \
    V(CPLSetThreadLocalConfigOption, (const char *a0, const char *a1), (a0, a1)) \
    V(GDALAllRegister, (void), ()) \
    V(GDALClose, (GDALDatasetH a0), (a0)) \
    F(GDALDatasetH, GDALCreate, (GDALDriverH a0, const char *a1, int a2, int a3, int a4, GDALDataType a5, CSLConstList a6), (a0, a1, a2, a3, a4, a5, a6)) \
    F(OGRErr, GDALDatasetCommitTransaction, (GDALDatasetH a0), (a0)) \
    F(OGRLayerH, GDALDatasetCreateLayer, (GDALDatasetH a0, const char *a1, OGRSpatialReferenceH a2, OGRwkbGeometryType a3, CSLConstList a4), (a0, a1, a2, a3, a4)) \
    F(OGRLayerH, GDALDatasetExecuteSQL, (GDALDatasetH a0, const char *a1, OGRGeometryH a2, const char *a3), (a0, a1, a2, a3)) \
    F(OGRLayerH, GDALDatasetGetLayer, (GDALDatasetH a0, int a1), (a0, a1)) \
    F(OGRLayerH, GDALDatasetGetLayerByName, (GDALDatasetH a0, const char *a1), (a0, a1)) \
    F(int, GDALDatasetGetLayerCount, (GDALDatasetH a0), (a0)) \
    V(GDALDatasetReleaseResultSet, (GDALDatasetH a0, OGRLayerH a1), (a0, a1)) \
    F(OGRErr, GDALDatasetRollbackTransaction, (GDALDatasetH a0), (a0)) \
    F(OGRErr, GDALDatasetStartTransaction, (GDALDatasetH a0, int a1), (a0, a1)) \
    F(int, GDALDatasetTestCapability, (GDALDatasetH a0, const char *a1), (a0, a1)) \
    F(GDALDriverH, GDALGetDatasetDriver, (GDALDatasetH a0), (a0)) \
    F(GDALDriverH, GDALGetDriverByName, (const char *a0), (a0)) \
    F(const char *, GDALGetDriverShortName, (GDALDriverH a0), (a0)) \
    F(GDALDatasetH, GDALOpenEx, (const char *a0, unsigned int a1, const char *const *a2, const char *const *a3, const char *const *a4), (a0, a1, a2, a3, a4)) \
    F(const char *, GDALVersionInfo, (const char *a0), (a0)) \
    V(OCTDestroyCoordinateTransformation, (OGRCoordinateTransformationH a0), (a0)) \
    F(OGRCoordinateTransformationH, OCTNewCoordinateTransformation, (OGRSpatialReferenceH a0, OGRSpatialReferenceH a1), (a0, a1)) \
    F(int, OCTTransformEx, (OGRCoordinateTransformationH a0, int a1, double *a2, double *a3, double *a4, int *a5), (a0, a1, a2, a3, a4, a5)) \
    F(const char *, OGRGeometryTypeToName, (OGRwkbGeometryType a0), (a0)) \
    F(int, OGR_FD_GetFieldCount, (OGRFeatureDefnH a0), (a0)) \
    F(OGRFieldDefnH, OGR_FD_GetFieldDefn, (OGRFeatureDefnH a0, int a1), (a0, a1)) \
    F(int, OGR_FD_GetFieldIndex, (OGRFeatureDefnH a0, const char *a1), (a0, a1)) \
    F(OGRFeatureH, OGR_F_Create, (OGRFeatureDefnH a0), (a0)) \
    V(OGR_F_Destroy, (OGRFeatureH a0), (a0)) \
    F(GIntBig, OGR_F_GetFID, (OGRFeatureH a0), (a0)) \
    F(double, OGR_F_GetFieldAsDouble, (OGRFeatureH a0, int a1), (a0, a1)) \
    F(GIntBig, OGR_F_GetFieldAsInteger64, (OGRFeatureH a0, int a1), (a0, a1)) \
    F(const char *, OGR_F_GetFieldAsString, (OGRFeatureH a0, int a1), (a0, a1)) \
    F(int, OGR_F_GetFieldIndex, (OGRFeatureH a0, const char *a1), (a0, a1)) \
    F(OGRGeometryH, OGR_F_GetGeometryRef, (OGRFeatureH a0), (a0)) \
    F(int, OGR_F_IsFieldSetAndNotNull, (OGRFeatureH a0, int a1), (a0, a1)) \
    V(OGR_F_SetFieldDateTimeEx, (OGRFeatureH a0, int a1, int a2, int a3, int a4, int a5, int a6, float a7, int a8), (a0, a1, a2, a3, a4, a5, a6, a7, a8)) \
    V(OGR_F_SetFieldDouble, (OGRFeatureH a0, int a1, double a2), (a0, a1, a2)) \
    V(OGR_F_SetFieldInteger, (OGRFeatureH a0, int a1, int a2), (a0, a1, a2)) \
    V(OGR_F_SetFieldInteger64, (OGRFeatureH a0, int a1, GIntBig a2), (a0, a1, a2)) \
    V(OGR_F_SetFieldNull, (OGRFeatureH a0, int a1), (a0, a1)) \
    V(OGR_F_SetFieldString, (OGRFeatureH a0, int a1, const char *a2), (a0, a1, a2)) \
    F(OGRErr, OGR_F_SetGeometryDirectly, (OGRFeatureH a0, OGRGeometryH a1), (a0, a1)) \
    V(OGR_F_SetStyleString, (OGRFeatureH a0, const char *a1), (a0, a1)) \
    F(OGRFieldDefnH, OGR_Fld_Create, (const char *a0, OGRFieldType a1), (a0, a1)) \
    V(OGR_Fld_Destroy, (OGRFieldDefnH a0), (a0)) \
    F(const char *, OGR_Fld_GetNameRef, (OGRFieldDefnH a0), (a0)) \
    F(int, OGR_Fld_GetPrecision, (OGRFieldDefnH a0), (a0)) \
    F(OGRFieldType, OGR_Fld_GetType, (OGRFieldDefnH a0), (a0)) \
    F(int, OGR_Fld_GetWidth, (OGRFieldDefnH a0), (a0)) \
    V(OGR_Fld_SetDefault, (OGRFieldDefnH a0, const char *a1), (a0, a1)) \
    V(OGR_Fld_SetSubType, (OGRFieldDefnH a0, OGRFieldSubType a1), (a0, a1)) \
    V(OGR_Fld_SetWidth, (OGRFieldDefnH a0, int a1), (a0, a1)) \
    F(OGRwkbGeometryType, OGR_GT_Flatten, (OGRwkbGeometryType a0), (a0)) \
    F(OGRErr, OGR_G_AddGeometryDirectly, (OGRGeometryH a0, OGRGeometryH a1), (a0, a1)) \
    F(OGRGeometryH, OGR_G_Clone, (OGRGeometryH a0), (a0)) \
    F(OGRGeometryH, OGR_G_CreateGeometry, (OGRwkbGeometryType a0), (a0)) \
    V(OGR_G_DestroyGeometry, (OGRGeometryH a0), (a0)) \
    F(int, OGR_G_GetGeometryCount, (OGRGeometryH a0), (a0)) \
    F(OGRGeometryH, OGR_G_GetGeometryRef, (OGRGeometryH a0, int a1), (a0, a1)) \
    F(OGRwkbGeometryType, OGR_G_GetGeometryType, (OGRGeometryH a0), (a0)) \
    F(OGRGeometryH, OGR_G_GetLinearGeometry, (OGRGeometryH a0, double a1, char **a2), (a0, a1, a2)) \
    F(int, OGR_G_GetPointCount, (OGRGeometryH a0), (a0)) \
    F(int, OGR_G_GetPoints, (OGRGeometryH a0, void *a1, int a2, void *a3, int a4, void *a5, int a6), (a0, a1, a2, a3, a4, a5, a6)) \
    F(double, OGR_G_GetX, (OGRGeometryH a0, int a1), (a0, a1)) \
    F(double, OGR_G_GetY, (OGRGeometryH a0, int a1), (a0, a1)) \
    F(int, OGR_G_HasCurveGeometry, (OGRGeometryH a0, int a1), (a0, a1)) \
    F(int, OGR_G_IsEmpty, (OGRGeometryH a0), (a0)) \
    V(OGR_G_SetPoint_2D, (OGRGeometryH a0, int a1, double a2, double a3), (a0, a1, a2, a3)) \
    V(OGR_G_SetPoints, (OGRGeometryH a0, int a1, const void *a2, int a3, const void *a4, int a5, const void *a6, int a7), (a0, a1, a2, a3, a4, a5, a6, a7)) \
    F(OGRErr, OGR_G_Transform, (OGRGeometryH a0, OGRCoordinateTransformationH a1), (a0, a1)) \
    F(const char *, OGR_GetFieldTypeName, (OGRFieldType a0), (a0)) \
    F(OGRErr, OGR_L_CreateFeature, (OGRLayerH a0, OGRFeatureH a1), (a0, a1)) \
    F(OGRErr, OGR_L_CreateField, (OGRLayerH a0, OGRFieldDefnH a1, int a2), (a0, a1, a2)) \
    F(GIntBig, OGR_L_GetFeatureCount, (OGRLayerH a0, int a1), (a0, a1)) \
    F(OGRwkbGeometryType, OGR_L_GetGeomType, (OGRLayerH a0), (a0)) \
    F(OGRFeatureDefnH, OGR_L_GetLayerDefn, (OGRLayerH a0), (a0)) \
    F(const char *, OGR_L_GetName, (OGRLayerH a0), (a0)) \
    F(OGRFeatureH, OGR_L_GetNextFeature, (OGRLayerH a0), (a0)) \
    F(OGRSpatialReferenceH, OGR_L_GetSpatialRef, (OGRLayerH a0), (a0)) \
    V(OGR_L_ResetReading, (OGRLayerH a0), (a0)) \
    F(OGRErr, OGR_L_SetAttributeFilter, (OGRLayerH a0, const char *a1), (a0, a1)) \
    F(OGRErr, OGR_L_SyncToDisk, (OGRLayerH a0), (a0)) \
    F(int, OGR_L_TestCapability, (OGRLayerH a0, const char *a1), (a0, a1)) \
    F(OGRErr, OSRExportToWktEx, (OGRSpatialReferenceH a0, char **a1, const char *const *a2), (a0, a1, a2)) \
    F(const char *, OSRGetAuthorityCode, (OGRSpatialReferenceH a0, const char *a1), (a0, a1)) \
    F(const char *, OSRGetAuthorityName, (OGRSpatialReferenceH a0, const char *a1), (a0, a1)) \
    F(const int *, OSRGetDataAxisToSRSAxisMapping, (OGRSpatialReferenceH a0, int *a1), (a0, a1)) \
    F(const char *, OSRGetName, (OGRSpatialReferenceH a0), (a0)) \
    F(int, OSRIsSameEx, (OGRSpatialReferenceH a0, OGRSpatialReferenceH a1, const char *const *a2), (a0, a1, a2)) \
    F(OGRSpatialReferenceH, OSRNewSpatialReference, (const char *a0), (a0)) \
    F(int, OSRReference, (OGRSpatialReferenceH a0), (a0)) \
    V(OSRRelease, (OGRSpatialReferenceH a0), (a0)) \
    V(OSRSetAxisMappingStrategy, (OGRSpatialReferenceH a0, OSRAxisMappingStrategy a1), (a0, a1)) \
    F(OGRErr, OSRSetFromUserInput, (OGRSpatialReferenceH a0, const char *a1), (a0, a1)) \
    V(VSIFree, (void *a0), (a0))
#endif
