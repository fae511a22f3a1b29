import CGDAL

/// Writes QGIS styles into a GeoPackage's `layer_styles` table: the table QGIS itself creates
/// ("Save as default" on a GeoPackage layer) and reads when the layer is opened.
///
/// The table is created through OGR as a non-spatial layer (`wkbNone`), so the GPKG driver
/// registers it in `gpkg_contents` with `data_type = 'attributes'`, as QGIS does; `ogrinfo`
/// lists it as `layer_styles (None)`. Columns follow QGIS: `id` (INTEGER PRIMARY KEY),
/// `f_table_catalog`, `f_table_schema`, `f_table_name`, `f_geometry_column` (TEXT(256)),
/// `styleName` (TEXT(30)), `styleQML`, `styleSLD` (TEXT), `useAsDefault` (BOOLEAN),
/// `description` (TEXT), `owner` (TEXT(30)), `ui` (TEXT(30)), `update_time` (DATETIME, default
/// CURRENT_TIMESTAMP, written as 2000-01-01 so that the file's bytes do not depend on the day).
enum GeoPackageStyles {
    /// Adds `style` to `layer_styles` (created when missing) as the layer's default style.
    static func add(_ style: QGISLayerStyle, to dataset: GDALDataset) throws(GDALError) {
        let layer = try stylesLayer(dataset)
        let errors = dataset.errors
        guard let defn = OGR_L_GetLayerDefn(layer.handle), let f = OGR_F_Create(defn) else {
            throw errors.failure("OGR_F_Create(layer_styles)")
        }
        defer { OGR_F_Destroy(f) }
        func set(_ field: String, _ value: String) {
            OGR_F_SetFieldString(f, OGR_F_GetFieldIndex(f, field), value)
        }
        set("f_table_catalog", "")
        set("f_table_schema", "")
        set("f_table_name", style.table)
        set("f_geometry_column", style.geometryColumn)
        set("styleName", style.name)
        set("styleQML", style.qml)
        set("styleSLD", "")
        OGR_F_SetFieldInteger(f, OGR_F_GetFieldIndex(f, "useAsDefault"), 1)
        set("description", style.description)
        set("owner", "")
        set("ui", "")
        OGR_F_SetFieldDateTimeEx(f, OGR_F_GetFieldIndex(f, "update_time"), 2000, 1, 1, 0, 0, 0, 100)  // 100 = UTC
        try errors.check(errors.capture { OGR_L_CreateFeature(layer.handle, f) }, "CreateFeature(layer_styles)")
    }

    private static func stylesLayer(_ dataset: GDALDataset) throws(GDALError) -> GDALLayer {
        if dataset.layerNames.contains("layer_styles") { return try dataset.layer(named: "layer_styles") }
        let h = try dataset.openHandle()
        let errors = dataset.errors
        let l = errors.capture {
            withCStringList(["FID=id", "SPATIAL_INDEX=NO"]) {
                GDALDatasetCreateLayer(h, "layer_styles", nil, wkbNone, $0)
            }
        }
        guard let l else { throw errors.failure("CreateLayer(layer_styles)") }
        let columns: [(String, OGRFieldType, Int32, OGRFieldSubType, String?)] = [
            ("f_table_catalog", OFTString, 256, OFSTNone, nil),
            ("f_table_schema", OFTString, 256, OFSTNone, nil),
            ("f_table_name", OFTString, 256, OFSTNone, nil),
            ("f_geometry_column", OFTString, 256, OFSTNone, nil),
            ("styleName", OFTString, 30, OFSTNone, nil),
            ("styleQML", OFTString, 0, OFSTNone, nil),
            ("styleSLD", OFTString, 0, OFSTNone, nil),
            ("useAsDefault", OFTInteger, 0, OFSTBoolean, nil),
            ("description", OFTString, 0, OFSTNone, nil),
            ("owner", OFTString, 30, OFSTNone, nil),
            ("ui", OFTString, 30, OFSTNone, nil),
            ("update_time", OFTDateTime, 0, OFSTNone, "CURRENT_TIMESTAMP"),
        ]
        for (name, type, width, subtype, defaultValue) in columns {
            guard let fld = OGR_Fld_Create(name, type) else { throw errors.failure("OGR_Fld_Create(\(name))") }
            defer { OGR_Fld_Destroy(fld) }
            if width > 0 { OGR_Fld_SetWidth(fld, width) }
            if subtype != OFSTNone { OGR_Fld_SetSubType(fld, subtype) }
            if let defaultValue { OGR_Fld_SetDefault(fld, defaultValue) }
            try errors.check(errors.capture { OGR_L_CreateField(l, fld, 0) }, "CreateField(layer_styles.\(name))")
        }
        return GDALLayer(dataset: dataset, handle: l, isResultSet: false)
    }
}
