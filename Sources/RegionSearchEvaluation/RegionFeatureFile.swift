import RegionSearchCore
import RegionSearchIngest
import RegionSearchOutput

/// One polygonal feature of a region or truth GeoJSON file, in WGS84 degrees.
public struct RegionFeature {
    /// The feature's identifier: the `region_id`, `cluster_id`, `truth_id` or `id` property, else
    /// the Feature's `id` member, else its 0-based position in the file.
    public var id: JSONValue
    /// The `keyword` property; nil when absent, null or `"*"` (then the feature matches every keyword).
    public var keyword: String?
    /// The `kind` property when it is a string (truth files: `strip`, `district`, `cluster`;
    /// must-not files: `void`, `sparse`; RegionSearch's regions: `street`, `area`); nil otherwise.
    public var kind: String?
    /// Polygons, each as rings (first the exterior, then holes), lon/lat degrees.
    public var polygons: [[GeoJSONWriter.Ring]]
    /// 0-based position among the file's features.
    public var index: Int
    /// The feature's `properties` object as written (`.null` when absent); maps show them.
    public var properties: JSONValue
    /// The region's level in the hierarchy of its keyword (the `level` property: 0 = coarsest,
    /// finer and denser regions nested inside have 1, 2, …); 0 when the property is absent or
    /// null, as in files written before levels (DBSCAN, the Python reference, older runs).
    public var level: Int
    /// The `region_id` of the enclosing region one level up (the `parent_id` property); nil at
    /// level 0 and when absent.
    public var parentID: JSONValue?

    public init(
        id: JSONValue, keyword: String?, polygons: [[GeoJSONWriter.Ring]], index: Int, kind: String? = nil,
        properties: JSONValue = .null, level: Int = 0, parentID: JSONValue? = nil
    ) {
        self.id = id
        self.keyword = keyword
        self.kind = kind
        self.polygons = polygons
        self.index = index
        self.properties = properties
        self.level = level
        self.parentID = parentID
    }

    /// The keyword as shown in reports: the keyword, or `*` for a wildcard feature.
    var keywordLabel: String { keyword ?? "*" }
}

/// The polygonal features of a GeoJSON file (a FeatureCollection, a single Feature or a bare
/// Polygon/MultiPolygon), as read for evaluation.
///
/// Polygon and MultiPolygon geometries are accepted, with holes. Features whose geometry is
/// `null` (allowed by RFC 7946 for unlocated features) are skipped and counted in
/// ``nullGeometries``; any other geometry type is an error, as are malformed coordinates.
/// Unclosed rings are closed. Validity is not checked here (see ``EvaluationLayer``).
public struct RegionFeatureFile {
    public var path: String
    public var features: [RegionFeature]
    /// Features without geometry, skipped.
    var nullGeometries: Int
    /// The top-level `regionsearch` member a run writes (tool version, CRS, provenance); nil in
    /// files from elsewhere.
    public var metadata: JSONValue?

    public init(path: String, features: [RegionFeature], nullGeometries: Int = 0) {
        self.path = path
        self.features = features
        self.nullGeometries = nullGeometries
    }

    /// Every ring vertex of every feature, in file order (feature, polygon, ring, vertex).
    public var allCoordinates: (lon: [Double], lat: [Double]) {
        var lon: [Double] = []
        var lat: [Double] = []
        for f in features {
            for polygon in f.polygons {
                for ring in polygon {
                    lon.append(contentsOf: ring.lon)
                    lat.append(contentsOf: ring.lat)
                }
            }
        }
        return (lon, lat)
    }

    /// Several files read as one (their features in order, `path` naming them all joined by
    /// " + "), for truth spread over files (strips, districts and café clusters of one city).
    /// Feature positions in messages stay those of each feature in its own file.
    public static func concatenating(_ files: [RegionFeatureFile]) -> RegionFeatureFile {
        if files.count == 1 { return files[0] }
        return RegionFeatureFile(
            path: files.map(\.path).joined(separator: " + "), features: files.flatMap(\.features),
            nullGeometries: files.reduce(0) { $0 + $1.nullGeometries })
    }

    /// Reads and parses a file (gzip-compressed files are recognised by their magic bytes).
    public static func read(path: String) throws -> RegionFeatureFile {
        let bytes = try ByteReader(path: path).readAll()
        if let format = InputFormatDetector.binaryGISFormat(Array(bytes.prefix(4096))) {
            throw EvaluateError.unreadable(
                path: path,
                reason:
                    "the file is \(format), not GeoJSON, which this reads; convert it: ogr2ogr -f GeoJSON "
                    + "regions.geojson \(path)")
        }
        return try bytes.withUnsafeBufferPointer { buf throws(EvaluateError) in
            try RegionFeatureFile(path: path, bytes: buf)
        }
    }

    /// Parses GeoJSON text; `path` names the source in errors.
    public init(path: String, text: String) throws(EvaluateError) {
        var copy = text
        let result: Result<RegionFeatureFile, EvaluateError> = copy.withUTF8 { buf in
            do throws(EvaluateError) {
                return .success(try RegionFeatureFile(path: path, bytes: buf))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Parses GeoJSON bytes; `path` names the source in errors.
    public init(path: String, bytes: UnsafeBufferPointer<UInt8>) throws(EvaluateError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes: bytes)
        } catch {
            throw EvaluateError.badJSON(path: path, error: error)
        }
        self.path = path
        features = []
        nullGeometries = 0
        metadata = root["regionsearch"]
        func fail(_ location: String, _ reason: String) -> EvaluateError {
            EvaluateError.badGeoJSON(path: path, location: location, reason: reason)
        }
        guard let type = root["type"]?.stringValue else { throw fail("", "the top level has no \"type\" member") }
        let featureValues: [JSONValue]
        switch type {
        case "FeatureCollection":
            guard let list = root["features"]?.arrayValue else {
                throw fail("", "a FeatureCollection needs a \"features\" array")
            }
            featureValues = list
        case "Feature":
            featureValues = [root]
        case "Polygon", "MultiPolygon":
            featureValues = [.object([("type", .string("Feature")), ("geometry", root), ("properties", .null)])]
        default:
            throw fail("", "expected a FeatureCollection, Feature, Polygon or MultiPolygon, found type \"\(type)\"")
        }
        for (index, f) in featureValues.enumerated() {
            let at = "feature \(index)"
            guard f["type"]?.stringValue == "Feature" else { throw fail(at, "not a Feature object") }
            let properties = f["properties"]
            if let p = properties, p != .null, p.objectValue == nil {
                throw fail(at, "\"properties\" must be an object or null, found \(p.typeName)")
            }
            guard let geometry = f["geometry"], geometry != .null else {
                nullGeometries += 1
                continue
            }
            guard let gtype = geometry["type"]?.stringValue else { throw fail(at, "the geometry has no \"type\"") }
            guard let coordinates = geometry["coordinates"]?.arrayValue else {
                throw fail(at, "the \(gtype) geometry has no \"coordinates\" array")
            }
            var polygons: [[GeoJSONWriter.Ring]] = []
            switch gtype {
            case "Polygon":
                polygons.append(try Self.polygon(coordinates, at: at, fail))
            case "MultiPolygon":
                for (k, p) in coordinates.enumerated() {
                    guard let rings = p.arrayValue else {
                        throw fail(at + ", polygon \(k)", "expected an array of rings")
                    }
                    polygons.append(try Self.polygon(rings, at: at + ", polygon \(k)", fail))
                }
            default:
                throw fail(at, "geometry type \"\(gtype)\" is not supported (regions must be Polygon or MultiPolygon)")
            }
            let parent = properties?["parent_id"]
            features.append(
                RegionFeature(
                    id: Self.identifier(f, properties: properties, index: index),
                    keyword: try Self.keyword(properties, at: at, fail), polygons: polygons, index: index,
                    kind: properties?["kind"]?.stringValue, properties: properties ?? .null,
                    level: try Self.level(properties, at: at, fail), parentID: parent == .null ? nil : parent))
        }
    }

    private static func identifier(_ feature: JSONValue, properties: JSONValue?, index: Int) -> JSONValue {
        for key in ["region_id", "cluster_id", "truth_id", "id"] {
            if let v = properties?[key], v.stringValue != nil || v.doubleValue != nil { return v }
        }
        if let v = feature["id"], v.stringValue != nil || v.doubleValue != nil { return v }
        return .number(Double(index))
    }

    /// The `level` property: a whole number ≥ 0; absent or null is level 0.
    private static func level(_ properties: JSONValue?, at: String, _ fail: (String, String) -> EvaluateError)
        throws(EvaluateError) -> Int
    {
        guard let v = properties?["level"], v != .null else { return 0 }
        guard let level = v.intValue, level >= 0, level < 1000 else {
            throw fail(at, "the \"level\" property must be a whole number from 0 to 999, found \(v.serialized())")
        }
        return level
    }

    private static func keyword(_ properties: JSONValue?, at: String, _ fail: (String, String) -> EvaluateError)
        throws(EvaluateError) -> String?
    {
        guard let v = properties?["keyword"] else { return nil }
        switch v {
        case .null: return nil
        case .string(let s): return s == "*" ? nil : s
        case .number(let d): return JSONValue.formatNumber(d)
        default: throw fail(at, "the \"keyword\" property must be a string, found \(v.typeName)")
        }
    }

    private static func polygon(_ rings: [JSONValue], at: String, _ fail: (String, String) -> EvaluateError)
        throws(EvaluateError) -> [GeoJSONWriter.Ring]
    {
        guard !rings.isEmpty else { throw fail(at, "a polygon needs at least one ring") }
        var out: [GeoJSONWriter.Ring] = []
        for (r, ringValue) in rings.enumerated() {
            let where_ = at + ", ring \(r)"
            guard let positions = ringValue.arrayValue else { throw fail(where_, "expected an array of positions") }
            var lon: [Double] = []
            var lat: [Double] = []
            lon.reserveCapacity(positions.count + 1)
            lat.reserveCapacity(positions.count + 1)
            for (k, p) in positions.enumerated() {
                guard let a = p.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
                    throw fail(where_ + ", position \(k)", "expected [longitude, latitude], found \(p.serialized())")
                }
                guard abs(y) <= 90, abs(x) <= 360 else {
                    throw fail(
                        where_ + ", position \(k)",
                        "longitude/latitude out of range: [\(a[0].serialized()), \(a[1].serialized())]")
                }
                lon.append(x)
                lat.append(y)
            }
            if let fx = lon.first, let fy = lat.first, fx != lon.last || fy != lat.last {
                lon.append(fx)
                lat.append(fy)
            }
            guard lon.count >= 4 else {
                throw fail(where_, "a ring needs at least 4 positions (3 distinct corners), found \(positions.count)")
            }
            out.append(GeoJSONWriter.Ring(lon: lon, lat: lat))
        }
        return out
    }
}
