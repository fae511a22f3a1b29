import RegionSearchCore
import RegionSearchGDAL
import RegionSearchOutput

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The regions of any region file, for `regionsearch diff`: a lineage file (its regions carry
/// members, so they are compared by POI), a GeoJSON regions output, or any format GDAL reads
/// (GeoPackage: the `regions` layer, else the first; Shapefile field names as the schema
/// abbreviates them), compared by area. Each feature needs `region_id` and `keyword`.
public enum RegionFile {
    /// The regions of `path`, and its lineage when it is a lineage file.
    public static func read(_ path: String) throws(LineageError) -> (regions: [TrackedRegion], lineage: LineageState?) {
        // A device such as /dev/zero never ends: refused by what the path is, before it is opened
        // (a missing path is reported when it is opened). A pipe (`<(git show …)`) is read to its
        // end, and a folder goes to GDAL (a FileGDB, a folder of Shapefiles).
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG, S_IFIFO: break
            case S_IFDIR: return (try readWithGDAL(path), nil)
            default:
                throw .cannotRead(
                    path: path, reason: "is a device or socket, not a file; give the path of a region file")
            }
        }
        if let bytes = try readIfJSON(path) {
            let document: JSONValue
            do {
                document = try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(bytes: b)
                }
            } catch {
                throw .unreadable(path: path, reason: "not JSON: \(error)")
            }
            if document[LineageState.member] != nil {
                let state = try LineageState(bytes: bytes, path: path)
                return (state.regions, state)
            }
            return (try LineageState.regions(document["features"], path: path, at: "features"), nil)
        }
        // What a pipe held is read and gone: GDAL would open it again and wait for a writer.
        if (info.st_mode & S_IFMT) == S_IFIFO {
            throw .cannotRead(
                path: path,
                reason:
                    "is a pipe that held no GeoJSON; a pipe gives GeoJSON or a lineage file, other formats are "
                    + "read from files")
        }
        return (try readWithGDAL(path), nil)
    }

    /// The most bytes of GeoJSON read from one file or stream (``readIfJSON(_:)``).
    static let maximumJSONBytes = 1 << 30

    /// The bytes of a GeoJSON file (by extension, or a first non-blank byte `{`); nil otherwise.
    static func readIfJSON(_ path: String, limit: Int = maximumJSONBytes) throws(LineageError) -> [UInt8]? {
        let lower = path.lowercased()
        let byName = lower.hasSuffix(".geojson") || lower.hasSuffix(".json")
        // A named pipe no process writes to had the open wait for ever, with no word (ReadOpening).
        let fd: Int32
        switch ReadOpening.descriptor(path) {
        case .success(let opened): fd = opened
        case .failure(.system(let error)):
            // Said as what it is, not as a damaged region file: the path is most likely mistyped.
            if error == ENOENT || error == ENOTDIR { throw .missing(path: path) }
            throw .cannotRead(path: path, reason: String(cString: strerror(error)))
        }
        guard let f = fdopen(fd, "rb") else {
            let error = errno
            close(fd)
            throw .cannotRead(path: path, reason: String(cString: strerror(error)))
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var first: UInt8?
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            if first == nil { first = chunk[0..<n].first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } }
            if !byName && first != nil && first != UInt8(ascii: "{") { return nil }
            // A pipe or a wrong file could be read until memory runs out (`yes '{' |` trapped at
            // a 2 GB allocation).
            guard bytes.count + n <= limit else {
                throw .cannotRead(
                    path: path,
                    reason:
                        "holds more than \(groupedCount(limit)) bytes of JSON, more than any regions file (one "
                        + "feature per region); give the regions output, not the POI layer or another file")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return byName || first == UInt8(ascii: "{") ? bytes : nil
    }

    static func readWithGDAL(_ path: String) throws(LineageError) -> [TrackedRegion] {
        var out: [TrackedRegion] = []
        var problem: String?
        // A GeoPackage with commits in its write-ahead log is read from a copy: GDAL would fold
        // the log into the user's file (or, where it cannot write, read it without them).
        let snapshot: DatabaseSnapshot?
        do {
            snapshot = try DatabaseSnapshot.ifLogged(path)
        } catch {
            throw .cannotRead(path: path, reason: error.reason)
        }
        defer { withExtendedLifetime(snapshot) {} }
        do {
            let dataset = try GDALDataset(openingVector: snapshot?.path ?? path)
            let layer =
                dataset.layerNames.contains(RegionFeatureSchema.layerName)
                ? try dataset.layer(named: RegionFeatureSchema.layerName) : try dataset.layer(at: 0)
            let wgs84 = try SpatialReference.wgs84()
            var transform: CoordinateTransformation?
            if let declared = layer.spatialReference,
                !(declared.isSame(as: wgs84) && declared.hasTraditionalAxisOrder)
            {
                transform = try CoordinateTransformation(from: declared, to: wgs84)
            }
            // Shapefile names back to the schema's (n_kw_pois → n_keyword_pois).
            let byShapefileName = Dictionary(
                RegionFeatureSchema.fields.map { ($0.shapefileName.lowercased(), $0.name) },
                uniquingKeysWith: { a, _ in a })
            let names = layer.fields.map { byShapefileName[$0.name.lowercased()] ?? $0.name }
            _ = try layer.forEachFeature { (feature: GDALFeature) throws(GDALError) in
                guard problem == nil else { return }
                var properties: [(String, JSONValue)] = []
                for (name, value) in zip(names, feature.values) {
                    switch value {
                    case .string(let s): properties.append((name, .string(s)))
                    case .integer(let i): properties.append((name, .number(Double(i))))
                    case .real(let d): properties.append((name, .number(d)))
                    case .null: properties.append((name, .null))
                    }
                }
                guard case .geoJSON(let geometry) = feature.geometry(transform: transform) else {
                    problem = "feature \(feature.fid) has no polygon"
                    return
                }
                let region = Result { () throws(TrackedRegion.FeatureProblem) -> TrackedRegion in
                    try TrackedRegion(feature: .object([("geometry", geometry), ("properties", .object(properties))]))
                }
                switch region {
                case .success(let r): out.append(r)
                case .failure(let e): problem = "feature \(feature.fid): \(e.reason)"
                }
            }
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        if let problem { throw .unreadable(path: path, reason: problem) }
        return out
    }
}
