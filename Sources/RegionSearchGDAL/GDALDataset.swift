import CGDAL

/// Owns one `GDALDatasetH` (vector): opened with `GDALOpenEx` or created through a driver, closed
/// with `GDALClose` in ``close()`` or, failing that, in `deinit`.
///
/// Not `Sendable`: a GDAL dataset is used from one thread at a time (it may move between
/// threads, as an ingest reader does, but is never shared). Each dataset has its own
/// ``GDALErrorCollector``; every GDAL call runs inside it, so failures become ``GDALError``
/// values with GDAL's own messages.
public final class GDALDataset {
    /// The handle; nil once closed.
    private(set) var handle: GDALDatasetH?
    /// The path or connection string it was opened or created with.
    public let path: String
    let errors = GDALErrorCollector()

    /// Opens any OGR vector source.
    ///
    /// - Parameters:
    ///   - path: a file, directory, `/vsizip/…` path or connection string (`PG:…`).
    ///   - update: open with `GDAL_OF_UPDATE` (to append, or to run DDL through ``executeSQL(_:dialect:)``).
    ///   - allowedDrivers: restrict the drivers tried (short names, e.g. `["GPKG"]`); empty = all.
    ///   - openOptions: driver open options, `"KEY=VALUE"`.
    public init(
        openingVector path: String, update: Bool = false, allowedDrivers: [String] = [], openOptions: [String] = []
    ) throws(GDALError) {
        try GDALLibrary.ensureRegistered()
        self.path = path
        // Without GDAL_OF_VERBOSE_ERROR, GDALOpenEx says nothing about a missing file.
        let flags =
            UInt32(GDAL_OF_VECTOR) | UInt32(update ? GDAL_OF_UPDATE : GDAL_OF_READONLY) | UInt32(GDAL_OF_VERBOSE_ERROR)
        let errors = self.errors
        let h = errors.capture {
            withConstCStringList(allowedDrivers) { drivers in
                withConstCStringList(openOptions) { options in GDALOpenEx(path, flags, drivers, options, nil) }
            }
        }
        guard let h else { throw .openFailed(path: path, messages: errors.takeFailures()) }
        handle = h
    }

    /// Creates a new vector dataset with the named driver (`GDALCreate` with a 0×0 raster size).
    public init(creating path: String, driver name: String, options: [String] = []) throws(GDALError) {
        try GDALLibrary.ensureRegistered()
        self.path = path
        guard let driver = GDALGetDriverByName(name) else { throw .driverNotFound(name) }
        let errors = self.errors
        let h = errors.capture {
            withCStringList(options) { GDALCreate(driver, path, 0, 0, 0, GDT_Unknown, $0) }
        }
        guard let h else { throw .createFailed(path: path, driver: name, messages: errors.takeFailures()) }
        handle = h
    }

    deinit {
        if let handle { errors.capture { GDALClose(handle) } }
    }

    /// Returns and clears the warnings (`CE_Warning`) GDAL reported for this dataset so far.
    public func takeWarnings() -> [GDALMessage] { errors.takeWarnings() }

    /// Closes the dataset, flushing pending writes; throws when GDAL reports a failure while
    /// closing (GeoJSON, FlatGeobuf and Shapefile do real work here). Idempotent.
    public func close() throws(GDALError) {
        guard let h = handle else { return }
        handle = nil
        errors.capture { GDALClose(h) }  // void in GDAL 3.6 (returns CPLErr from 3.7 on)
        let failures = errors.takeFailures()
        if !failures.isEmpty {
            throw .operationFailed(
                operation: "GDALClose(\(GDALLibrary.redacted(path)))", code: Int32(OGRERR_FAILURE), messages: failures)
        }
    }

    func openHandle() throws(GDALError) -> GDALDatasetH {
        guard let handle else { throw .invalidArgument("dataset '\(GDALLibrary.redacted(path))' is closed") }
        return handle
    }

    /// The driver's short name, e.g. "GPKG".
    public var driverName: String {
        guard let handle, let driver = GDALGetDatasetDriver(handle) else { return "" }
        return String(cString: GDALGetDriverShortName(driver))
    }

    public var layerCount: Int {
        guard let handle else { return 0 }
        return Int(GDALDatasetGetLayerCount(handle))
    }

    /// Layer `index` (0-based).
    public func layer(at index: Int) throws(GDALError) -> GDALLayer {
        let h = try openHandle()
        guard index >= 0, index < layerCount, let l = errors.capture({ GDALDatasetGetLayer(h, Int32(index)) }) else {
            throw .layerNotFound("#\(index) in '\(GDALLibrary.redacted(path))' (it has \(layerCount))")
        }
        return GDALLayer(dataset: self, handle: l, isResultSet: false)
    }

    /// The layer called `name`.
    public func layer(named name: String) throws(GDALError) -> GDALLayer {
        let h = try openHandle()
        guard let l = errors.capture({ GDALDatasetGetLayerByName(h, name) }) else {
            _ = errors.takeFailures()
            let names = layerNames.prefix(40).map { "'\($0)'" }.joined(separator: ", ")
            throw .layerNotFound("named '\(name)' in '\(GDALLibrary.redacted(path))' (layers: \(names))")
        }
        return GDALLayer(dataset: self, handle: l, isResultSet: false)
    }

    /// The names of the dataset's layers, in order.
    public var layerNames: [String] {
        guard let handle else { return [] }
        return (0..<GDALDatasetGetLayerCount(handle)).compactMap { i in
            GDALDatasetGetLayer(handle, i).map { String(cString: OGR_L_GetName($0)) }
        }
    }

    /// Runs SQL with `GDALDatasetExecuteSQL`.
    ///
    /// Returns the result layer for statements that produce one (released with
    /// `GDALDatasetReleaseResultSet` when the returned ``GDALLayer`` goes away), nil for others.
    /// Failure is detected through the error handler, since NULL is also the normal result of DDL.
    /// - Parameter dialect: nil = the driver's native SQL (SQLite for GPKG, PostgreSQL for PG),
    ///   "OGRSQL" or "SQLITE" to force one.
    @discardableResult
    public func executeSQL(_ sql: String, dialect: String? = nil) throws(GDALError) -> GDALLayer? {
        let h = try openHandle()
        let result = errors.capture { GDALDatasetExecuteSQL(h, sql, nil, dialect) }
        let failures = errors.takeFailures()
        if !failures.isEmpty {
            if let result { GDALDatasetReleaseResultSet(h, result) }
            throw .operationFailed(
                operation: "ExecuteSQL(\(sql.prefix(200)))", code: Int32(OGRERR_FAILURE), messages: failures)
        }
        return result.map { GDALLayer(dataset: self, handle: $0, isResultSet: true) }
    }

    /// `GDALDatasetStartTransaction` (bForce = false: only drivers with real transactions, such
    /// as GPKG, SQLite and PostgreSQL).
    public func startTransaction() throws(GDALError) {
        let h = try openHandle()
        try errors.check(errors.capture { GDALDatasetStartTransaction(h, 0) }, "StartTransaction(\(driverName))")
    }

    public func commitTransaction() throws(GDALError) {
        let h = try openHandle()
        try errors.check(errors.capture { GDALDatasetCommitTransaction(h) }, "CommitTransaction(\(driverName))")
    }

    public func rollbackTransaction() throws(GDALError) {
        let h = try openHandle()
        try errors.check(errors.capture { GDALDatasetRollbackTransaction(h) }, "RollbackTransaction(\(driverName))")
    }

    /// Whether the dataset supports `ODsCTransactions` (efficient, real transactions).
    public var supportsTransactions: Bool {
        guard let handle else { return false }
        return GDALDatasetTestCapability(handle, ODsCTransactions) != 0
    }

    /// Creates a layer with a fixed schema (`GDALDatasetCreateLayer`, then `OGR_L_CreateField`
    /// with bApproxOK = false, so a driver that cannot store a field as asked fails instead of
    /// silently changing it).
    ///
    /// - Parameters:
    ///   - srs: the layer CRS (nil = none; most callers pass ``SpatialReference/wgs84()``).
    ///   - options: layer creation options, e.g. `SPATIAL_INDEX=YES`, `ENCODING=UTF-8`, `FID=fid`.
    public func createLayer(_ schema: LayerSchema, srs: SpatialReference?, options: [String] = []) throws(GDALError)
        -> GDALLayer
    {
        let h = try openHandle()
        let errors = self.errors
        let l = errors.capture {
            withCStringList(options) {
                GDALDatasetCreateLayer(h, schema.name, srs?.handle, schema.geometry.ogrType, $0)
            }
        }
        guard let l else { throw errors.failure("CreateLayer(\(schema.name)) with \(driverName)") }
        var fieldIndices: [Int32] = []
        for field in schema.fields {
            guard let defn = OGR_Fld_Create(field.name, field.kind.ogrType) else {
                throw .invalidArgument("OGR_Fld_Create(\(field.name)) returned NULL")
            }
            defer { OGR_Fld_Destroy(defn) }
            if field.width > 0 { OGR_Fld_SetWidth(defn, Int32(field.width)) }
            try errors.check(
                errors.capture { OGR_L_CreateField(l, defn, 0) }, "CreateField(\(schema.name).\(field.name))")
            // The new field is the last one. Names can change (PG and GPKG launder, Shapefile
            // truncates) and drivers add fields of their own (KML: Name, Description), so writes
            // go by these indices, not by name or position.
            fieldIndices.append(OGR_FD_GetFieldCount(OGR_L_GetLayerDefn(l)) - 1)
        }
        let layer = GDALLayer(dataset: self, handle: l, isResultSet: false)
        layer.writeFieldIndices = fieldIndices
        return layer
    }
}
