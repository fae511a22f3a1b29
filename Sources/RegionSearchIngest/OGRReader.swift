import RegionSearchCore
import RegionSearchGDAL

/// Reads POIs from any vector source GDAL/OGR opens (`format: "ogr"`): GeoPackage, Shapefile
/// (its `.cpg` names the encoding), FlatGeobuf, KML, GML, GPX, MapInfo, CSV through OGR, a
/// `PG:` connection string, and whatever else the installed GDAL reads.
///
/// - Layer: `layer` by name (default: the first), or the result of `sql`; `where` filters it.
/// - Geometry: points as they are; any other geometry through the documented representative
///   point (``RepresentativePoint``, the rule GeoJSON input uses), computed in WGS 84.
/// - CRS: the layer's own CRS is honoured — coordinates are transformed to WGS 84 lon/lat with
///   PROJ (through OGR); a layer without a CRS is taken to be in `source_crs`, or WGS 84 (said
///   in the log).
/// - Fields: `columns.id`, `name` and `keywords` name layer fields (by name, or 0-based index);
///   without them the id is a field named like an id (`id`, `osm_id`, `fid`, …) or else the
///   feature id (FID), the name a field named `name`/`title`/…, the keywords the first field
///   named like a category; values are split and normalised as for GeoJSON.
/// - Records: one per feature (`line` = its 1-based position); a feature without a usable
///   geometry is rejected with its FID and the reason, so read = accepted + rejected + merged.
public final class OGRReader: RecordSource, RecordSourceDiagnostics {
    let path: String
    let spec: InputSpec
    /// Non-fatal notes for the log (an assumed CRS).
    public private(set) var notes: [String] = []
    /// The driver's short name ("GPKG") and the layer read, for the log.
    public let driverName: String
    public let layerName: String
    /// The CRS read from, for the log.
    public let crsDescription: String

    /// Kept for as long as the dataset reads it.
    private let snapshot: DatabaseSnapshot?
    private let dataset: GDALDataset
    private let layer: GDALLayer
    private let transform: CoordinateTransformation?
    private let fieldNames: [String]
    private let idField: Int?
    private let nameField: Int?
    private let keywordFields: [(index: Int, split: InputSpec.KeywordSplit, separator: [UInt8])]
    private var splitter: KeywordSplitter
    private let estimatedCount: Int64
    private let fileSize: UInt64
    private var ordinal: UInt64 = 0
    private var last: GDALFeature?

    /// - Parameter snapshot: the private copy to read instead of `spec.path` (a database with a
    ///   write-ahead log); messages still name `spec.path`.
    init(spec: InputSpec, fileSize: UInt64, snapshot: DatabaseSnapshot? = nil) throws {
        self.spec = spec
        path = spec.path
        self.fileSize = fileSize
        self.snapshot = snapshot
        let display = GDALLibrary.redacted(spec.path)
        let settings = spec.ogr
        do {
            dataset = try GDALDataset(openingVector: snapshot?.path ?? spec.path, openOptions: settings.openOptions)
            if let sql = settings.sql {
                guard let result = try dataset.executeSQL(sql) else {
                    throw UsageError("\(spec.context).sql: the statement returned no rows layer: \(sql)")
                }
                layer = result
            } else if let name = settings.layer {
                layer = try dataset.layer(named: name)
            } else {
                guard dataset.layerCount > 0 else {
                    throw InputError.unsupported(path: display, reason: "GDAL finds no layer in it")
                }
                layer = try dataset.layer(at: 0)
                if dataset.layerCount > 1 {
                    let names = dataset.layerNames.prefix(20).map { "'\($0)'" }.joined(separator: ", ")
                    notes.append(
                        "reading its first layer '\(layer.name)' of \(dataset.layerCount) (\(names)); "
                            + "choose another with \"layer\"")
                }
            }
            if let w = settings.whereClause { try layer.setAttributeFilter(w) }
        } catch let e as GDALError {
            if case .layerNotFound(let what) = e {
                throw UsageError("\(spec.context).layer: no layer \(what)")
            }
            if case .openFailed = e, OpenedInput.isDirectory(spec.path) {
                throw InputError.unsupported(
                    path: display,
                    reason: "is a folder, which GDAL reads as one dataset (a folder of Shapefiles, a FileGDB), and it "
                        + "is none (\(Self.plain(e))); name the file to read, or each file as an input of its own")
            }
            throw InputError.unsupported(path: display, reason: Self.plain(e))
        }
        driverName = dataset.driverName
        layerName = layer.name
        // The CRS: the layer's own, else source_crs, else WGS 84.
        do {
            let wgs84 = try SpatialReference.wgs84()
            let source: SpatialReference
            if let declared = layer.spatialReference {
                source = declared
            } else if let given = settings.sourceCRS {
                source = try SpatialReference(given)
            } else {
                source = wgs84
                notes.append("the layer declares no CRS; its coordinates are taken as WGS 84 lon/lat (set source_crs)")
            }
            crsDescription = source.displayName
            if source === wgs84 || (source.isSame(as: wgs84) && source.hasTraditionalAxisOrder) {
                transform = nil
            } else {
                transform = try CoordinateTransformation(from: source, to: wgs84)
            }
        } catch {
            throw UsageError("\(spec.context).source_crs: \(error)")
        }
        let fields = layer.fields
        fieldNames = fields.map(\.name)
        splitter = KeywordSplitter(missingValues: spec.missingValues)
        let at = "\(spec.context).columns"
        let names = fields.map(\.name)
        let readName = layer.name
        func resolve(_ ref: InputSpec.ColumnRef, key: String) throws(UsageError) -> Int {
            switch ref {
            case .index(let i):
                guard i < names.count else {
                    throw UsageError("\(at).\(key): field index \(i) (0-based) but the layer has \(names.count) fields")
                }
                return i
            case .name(let n):
                if let i = names.firstIndex(of: n) { return i }
                let folded = names.enumerated().filter { $0.element.lowercased() == n.lowercased() }
                if folded.count == 1 { return folded[0].offset }
                let hint = closestMatch(n, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                let list = names.prefix(40).map { "'\(PrintableText.of($0, limit: 40))'" }.joined(separator: ", ")
                throw UsageError("\(at).\(key): no field named '\(n)' in layer '\(readName)'\(hint); fields: \(list)")
            }
        }
        func guess(_ key: String) -> Int? {
            guard let candidates = DelimitedParser.guessNames.first(where: { $0.key == key })?.names else { return nil }
            let lowered = names.map { $0.lowercased() }
            for c in candidates { if let i = lowered.firstIndex(of: c) { return i } }
            return nil
        }
        let c = spec.columns
        idField = try c.id.map { (ref) throws(UsageError) in try resolve(ref, key: "id") } ?? guess("id")
        nameField = try c.name.map { (ref) throws(UsageError) in try resolve(ref, key: "name") } ?? guess("name")
        var keywords: [(Int, InputSpec.KeywordSplit, [UInt8])] = []
        if let given = c.keywords {
            for (i, k) in given.enumerated() {
                keywords.append(
                    (
                        try resolve(k.column, key: "keywords[\(i)]"), k.split ?? spec.keywordSplit,
                        Array((k.separator ?? spec.keywordSeparator).utf8)
                    ))
            }
        } else if let i = guess("keywords") {
            keywords.append((i, spec.keywordSplit, Array(spec.keywordSeparator.utf8)))
        }
        keywordFields = keywords.map { (index: $0.0, split: $0.1, separator: $0.2) }
        estimatedCount = layer.fastFeatureCount ?? -1
    }

    /// GDAL's message without the wrapper's prefix for messages about an input.
    private static func plain(_ e: GDALError) -> String {
        let text = e.messages.map(\.text).joined(separator: "; ")
        return text.isEmpty ? e.description : "GDAL: " + text
    }

    /// A description of the field mapping, for the log.
    public var mappingDescription: String {
        func name(_ i: Int?) -> String { i.map { "'\(fieldNames[$0])'" } ?? "the FID" }
        let k = keywordFields.map { "'\(fieldNames[$0.index])'" }.joined(separator: ", ")
        return "id \(name(idField)), name \(nameField.map { "'\(fieldNames[$0])'" } ?? "none"), keywords "
            + (k.isEmpty ? "none" : k)
    }

    /// Progress only: features read as a share of the file size, when the count is known cheaply.
    public var bytesRead: UInt64 {
        guard estimatedCount > 0 else { return 0 }
        return UInt64(Double(fileSize) * min(1, Double(ordinal) / Double(estimatedCount)))
    }

    /// A FlatGeobuf file declares its feature count in its header, written with the data; GDAL
    /// stops at the first feature it cannot read as if the layer ended there, so a file cut short
    /// read as a shorter (or an empty) layer, exit 0 or "no records". Other drivers either fail on
    /// such a file or keep counts that may go stale (a GeoPackage's contents table).
    private func checkAllRead() throws {
        guard driverName == "FlatGeobuf", spec.ogr.sql == nil, spec.ogr.whereClause == nil, estimatedCount > 0,
            Int64(ordinal) < estimatedCount
        else { return }
        throw InputError.unsupported(
            path: GDALLibrary.redacted(path),
            reason:
                "its header declares \(estimatedCount) features, but only \(ordinal) could be read: the file is "
                + "truncated or damaged; export or download it again")
    }

    public func next() throws -> ReadResult? {
        let next: GDALFeature?
        do {
            next = try layer.nextFeature()
        } catch {
            throw InputError.unsupported(
                path: GDALLibrary.redacted(path), reason: "after \(ordinal) features: \(Self.plain(error))")
        }
        guard let feature = next else {
            last = nil
            try checkAllRead()
            return nil
        }
        ordinal += 1
        last = feature
        func reject(_ reason: String) -> ReadResult {
            .rejected(RejectedRecord(line: ordinal, byteOffset: 0, reason: reason, raw: lastRecordText()))
        }
        let lon: Double
        let lat: Double
        switch feature.geometry(transform: transform) {
        case .missing: return reject("feature has no geometry: FID \(feature.fid)")
        case .empty: return reject("empty geometry: FID \(feature.fid)")
        case .failed(let reason): return reject("\(reason): FID \(feature.fid)")
        case .point(let x, let y):
            lon = x
            lat = y
        case .geoJSON(let g):
            switch RepresentativePoint.of(g) {
            case .point(let x, let y):
                lon = x
                lat = y
            case .failure(let reason): return reject("\(reason): FID \(feature.fid)")
            }
        }
        var id = idField.map { text(feature.value(at: $0)) } ?? ""
        if idField == nil { id = feature.fid >= 0 ? String(feature.fid) : String(ordinal) }
        let name = nameField.map { text(feature.value(at: $0)) } ?? ""
        var keywords: [String] = []
        // The field each value came from: its key for key=value queries.
        var keys: [String] = []
        for k in keywordFields {
            switch feature.value(at: k.index) {
            case .null: continue
            case .string(var s):
                s.withUTF8 { splitter.split($0, mode: k.split, separator: k.separator, into: &keywords) }
            case let v: keywords.append(text(v))
            }
            while keys.count < keywords.count { keys.append(fieldNames[k.index]) }
        }
        return .record(
            RawRecord(
                id: id, name: name, keywords: keywords, keywordKeys: keys, lon: lon, lat: lat, line: ordinal,
                byteOffset: 0))
    }

    /// A value as text: strings trimmed (missing markers → ""), integers as written, reals in
    /// shortest form (as GeoJSON numbers are), null as "".
    private func text(_ v: FieldValue) -> String {
        switch v {
        case .null: return ""
        case .integer(let i): return String(i)
        case .real(let d): return JSONValue.formatNumber(d)
        case .string(var s):
            let trimmed: String? = s.withUTF8 { b in
                let t = b.trimmingASCIIWhitespace()
                if splitter.isMissing(t) { return "" }
                return t.count == b.count ? nil : String(decoding: t, as: UTF8.self)
            }
            return trimmed ?? s
        }
    }

    /// The last feature as one JSON line: its FID, geometry type and fields.
    func lastRecordText() -> String {
        guard let f = last else { return "" }
        var members: [(String, JSONValue)] = [
            ("fid", .number(Double(f.fid))), ("geometry", f.geometryTypeName.map { .string($0) } ?? .null),
        ]
        var properties: [(String, JSONValue)] = []
        for (i, name) in fieldNames.enumerated() {
            switch f.value(at: i) {
            case .null: properties.append((name, .null))
            case .integer(let v): properties.append((name, .number(Double(v))))
            case .real(let v): properties.append((name, .number(v)))
            case .string(let s): properties.append((name, .string(s)))
            }
        }
        members.append(("properties", .object(properties)))
        return JSONValue.object(members).serialized()
    }

    func lastCoordinateText() -> String? { nil }
}
