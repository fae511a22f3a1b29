import CGDAL

/// A layer of a ``GDALDataset`` (`OGRLayerH`). The dataset owns the layer; this object keeps the
/// dataset alive. A layer returned by ``GDALDataset/executeSQL(_:dialect:)`` is a result set and
/// is released with `GDALDatasetReleaseResultSet` in `deinit`.
public final class GDALLayer {
    public let dataset: GDALDataset
    let handle: OGRLayerH
    private let isResultSet: Bool
    /// OGR field index of each schema field, set by ``GDALDataset/createLayer(_:srs:options:)``
    /// or ``bindFields(_:)``; nil = values go to fields by position.
    var writeFieldIndices: [Int32]?
    private var errors: GDALErrorCollector { dataset.errors }
    /// Field kinds in layer order, for reading (computed once).
    private lazy var readKinds: [FieldKind] = fields.map(\.kind)

    init(dataset: GDALDataset, handle: OGRLayerH, isResultSet: Bool) {
        self.dataset = dataset
        self.handle = handle
        self.isResultSet = isResultSet
    }

    deinit {
        if isResultSet, let ds = dataset.handle { GDALDatasetReleaseResultSet(ds, handle) }
    }

    public var name: String { String(cString: OGR_L_GetName(handle)) }

    /// The declared geometry type name (`OGR_L_GetGeomType`), e.g. "Multi Polygon", "Unknown (any)".
    public var declaredGeometryType: String {
        String(cString: OGRGeometryTypeToName(OGR_L_GetGeomType(handle)))
    }

    /// `OGR_L_GetFeatureCount(force: true)` (may scan the whole layer for some drivers).
    public var featureCount: Int64 { errors.capture { OGR_L_GetFeatureCount(handle, 1) } }

    /// The feature count when the driver knows it without reading the layer, else nil.
    public var fastFeatureCount: Int64? {
        let n = errors.capture { OGR_L_GetFeatureCount(handle, 0) }
        return n >= 0 ? n : nil
    }

    /// The field definitions, in order.
    public var fields: [FieldDefinition] {
        guard let defn = OGR_L_GetLayerDefn(handle) else { return [] }
        return (0..<OGR_FD_GetFieldCount(defn)).compactMap { i in
            guard let f = OGR_FD_GetFieldDefn(defn, i) else { return nil }
            let type = OGR_Fld_GetType(f)
            let kind: FieldKind
            switch type {
            case OFTInteger, OFTInteger64: kind = .integer64
            case OFTReal: kind = .real
            default: kind = .string
            }
            return FieldDefinition(
                name: String(cString: OGR_Fld_GetNameRef(f)), typeName: String(cString: OGR_GetFieldTypeName(type)),
                width: Int(OGR_Fld_GetWidth(f)), precision: Int(OGR_Fld_GetPrecision(f)), kind: kind)
        }
    }

    /// The layer's CRS, nil when the source declares none.
    public var spatialReference: SpatialReference? {
        OGR_L_GetSpatialRef(handle).map { SpatialReference(retaining: $0) }
    }

    /// `OGR_L_SetAttributeFilter` (OGR SQL WHERE syntax; nil clears the filter).
    ///
    /// Some drivers (GPKG) accept any filter here and fail at the first read instead;
    /// ``nextFeature()`` reports that.
    public func setAttributeFilter(_ whereClause: String?) throws(GDALError) {
        try errors.check(
            errors.capture { OGR_L_SetAttributeFilter(handle, whereClause) },
            "SetAttributeFilter(\(whereClause ?? "nil"))")
    }

    /// Restarts reading at the first feature (`OGR_L_ResetReading`).
    public func resetReading() { OGR_L_ResetReading(handle) }

    /// The next feature, or nil at the end.
    ///
    /// - Throws: when GDAL reported a failure instead of a feature (a broken file, an attribute
    ///   filter GPKG could not prepare).
    public func nextFeature() throws(GDALError) -> GDALFeature? {
        let next = errors.capture { OGR_L_GetNextFeature(handle) }
        guard let next else {
            let failures = errors.takeFailures()
            if !failures.isEmpty {
                throw .operationFailed(
                    operation: "GetNextFeature(\(name))", code: Int32(OGRERR_FAILURE), messages: failures)
            }
            return nil
        }
        return GDALFeature(handle: next, kinds: readKinds, errors: errors)
    }

    /// Reads every feature from the start, calling `body` for each; returns how many.
    @discardableResult
    public func forEachFeature<E: Error>(_ body: (GDALFeature) throws(E) -> Void) throws -> Int {
        resetReading()
        var count = 0
        while let feature = try nextFeature() {
            count += 1
            try body(feature)
        }
        return count
    }

    /// Binds schema fields to an existing layer's fields by name (for appending to a table this
    /// run did not create); throws when one is missing.
    public func bindFields(_ schema: LayerSchema) throws(GDALError) {
        guard let defn = OGR_L_GetLayerDefn(handle) else { throw errors.failure("GetLayerDefn(\(name))") }
        var indices: [Int32] = []
        for field in schema.fields {
            let i = OGR_FD_GetFieldIndex(defn, field.name)
            guard i >= 0 else {
                throw .invalidArgument(
                    "layer '\(name)' has no field '\(field.name)' (it has "
                        + fields.map(\.name).joined(separator: ", ") + ")"
                )
            }
            indices.append(i)
        }
        writeFieldIndices = indices
    }

    /// Writes one feature (`OGR_F_Create`, field setters, `OGR_F_SetGeometryDirectly`,
    /// `OGR_F_SetStyleString`, `OGR_L_CreateFeature`).
    ///
    /// - Returns: the FID the driver assigned.
    @discardableResult
    public func write(_ feature: OutputFeature) throws(GDALError) -> Int64 {
        guard let defn = OGR_L_GetLayerDefn(handle), let f = OGR_F_Create(defn) else {
            throw errors.failure("OGR_F_Create(\(name))")
        }
        defer { OGR_F_Destroy(f) }
        let indices = writeFieldIndices ?? Array(0..<OGR_FD_GetFieldCount(defn))
        guard feature.values.count == indices.count else {
            throw .invalidArgument(
                "feature has \(feature.values.count) values, layer \(name) has \(indices.count) fields")
        }
        for (value, index) in zip(feature.values, indices) {
            switch value {
            case .string(let s): OGR_F_SetFieldString(f, index, s)
            case .integer(let v): OGR_F_SetFieldInteger64(f, index, v)
            case .real(let v): OGR_F_SetFieldDouble(f, index, v)
            case .null: OGR_F_SetFieldNull(f, index)
            }
        }
        if let geometry = feature.geometry {
            let g = try geometry.makeOGRGeometry(errors)
            try errors.check(OGR_F_SetGeometryDirectly(f, g), "SetGeometry(\(name))")
        }
        if let style = feature.style { OGR_F_SetStyleString(f, style) }
        try errors.check(errors.capture { OGR_L_CreateFeature(handle, f) }, "CreateFeature(\(name))")
        return OGR_F_GetFID(f)
    }

    /// `OGR_L_TestCapability`, e.g. `OLCFastSpatialFilter` ("FastSpatialFilter": true when the
    /// layer has a usable spatial index).
    public func testCapability(_ capability: String) -> Bool {
        OGR_L_TestCapability(handle, capability) != 0
    }

    /// `OGR_L_SyncToDisk` (for PostgreSQL: ends a COPY and runs the deferred CREATE TABLE/INDEX).
    public func sync() throws(GDALError) {
        try errors.check(errors.capture { OGR_L_SyncToDisk(handle) }, "SyncToDisk(\(name))")
    }
}
