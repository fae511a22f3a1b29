import RegionSearchCore

/// Normalised POIs, the output of `ingest` and the `pois` artifact.
///
/// Columns: `lon`, `lat` (f64, WGS84 degrees), `id`, `name`, `keywords` (strings), `source` (u32,
/// index of the input file in `metadata.inputs`), `line` (u64, 1-based line or record number in
/// that file), and `keyword_keys` (strings, one per key, not per POI). `keywords` holds the POI's
/// keyword values, each Unicode NFKC + case-folded, joined by `\n`; a value that came from a
/// named key (an OSM tag key, a GeoJSON property, a delimited column with a header, `name` for
/// the name) starts with the code of that key's index in `keyword_keys` (see ``KeywordText``).
public struct POITable: Sendable {
    public var lon: [Double] = []
    public var lat: [Double] = []
    public var ids = StringColumn()
    public var names = StringColumn()
    public var keywords = StringColumn()
    /// The keys that keyword values came from, normalised like values; index `i` is written as
    /// ``KeywordText/keyCode(_:)`` in `keywords`.
    public var keywordKeys: [String] = []
    public var source: [UInt32] = []
    public var line: [UInt64] = []
    /// Each POI's street (`addr:street`), for region labels; nil when no POI of the input has one
    /// (the artifact then has no `street` column).
    public var streets: StringColumn?
    /// The place nodes of the input (`place=neighbourhood|suburb|quarter` with a name), for
    /// region labels: not POIs, kept beside them (columns `place_*`, of their own length).
    public var places: [Place] = []

    /// A named place node.
    public struct Place: Sendable, Equatable {
        public var name: String
        public var kind: String
        public var lon: Double
        public var lat: Double

        public init(name: String, kind: String, lon: Double, lat: Double) {
            self.name = name
            self.kind = kind
            self.lon = lon
            self.lat = lat
        }
    }

    public init() {}

    public var count: Int { lon.count }

    /// Appends one POI. `keywordText` must already be normalised.
    public mutating func append(
        id: String, name: String, keywordText: String, lon: Double, lat: Double, source: UInt32, line: UInt64
    ) {
        self.lon.append(lon)
        self.lat.append(lat)
        ids.append(id)
        names.append(name)
        keywords.append(keywordText)
        self.source.append(source)
        self.line.append(line)
    }

    /// Reads a `pois` artifact.
    public init(artifact: ArtifactFile) throws(ArtifactError) {
        let n = artifact.rowCount
        lon = try artifact.array("lon", count: n)
        lat = try artifact.array("lat", count: n)
        ids = try artifact.strings("id", count: n)
        names = try artifact.strings("name", count: n)
        keywords = try artifact.strings("keywords", count: n)
        keywordKeys = try Self.keywordKeys(artifact)
        source = try artifact.array("source", count: n)
        line = try artifact.array("line", count: n)
        // String columns are stored as NAME.offsets and NAME.bytes.
        if artifact.hasColumn("street.offsets") { streets = try artifact.strings("street", count: n) }
        if artifact.hasColumn("place_name.offsets") {
            let names = try artifact.strings("place_name")
            let kinds = try artifact.strings("place_kind", count: names.count)
            let lons: [Double] = try artifact.array("place_lon", count: names.count)
            let lats: [Double] = try artifact.array("place_lat", count: names.count)
            places = (0..<names.count).map { Place(name: names[$0], kind: kinds[$0], lon: lons[$0], lat: lats[$0]) }
        }
    }

    /// The `keyword_keys` of a `pois` artifact (empty for an artifact written before keys were
    /// recorded: its values have no key codes).
    public static func keywordKeys(_ artifact: ArtifactFile) throws(ArtifactError) -> [String] {
        do {
            let column = try artifact.strings("keyword_keys")
            return (0..<column.count).map { column[$0] }
        } catch .missingColumn {
            return []
        }
    }

    /// An artifact writer holding these columns and `metadata`.
    public func writer(metadata: JSONValue) -> ArtifactWriter {
        var w = ArtifactWriter(kind: .pois, rowCount: count, metadata: metadata)
        w.add("lon", lon)
        w.add("lat", lat)
        w.add("id", ids)
        w.add("name", names)
        w.add("keywords", keywords)
        var keys = StringColumn()
        for k in keywordKeys { keys.append(k) }
        w.add("keyword_keys", keys)
        w.add("source", source)
        w.add("line", line)
        // Only when the input has them: an input without streets or places keeps its bytes.
        if let streets { w.add("street", streets) }
        if !places.isEmpty {
            w.add("place_name", StringColumn(places.map(\.name)))
            w.add("place_kind", StringColumn(places.map(\.kind)))
            w.add("place_lon", places.map(\.lon))
            w.add("place_lat", places.map(\.lat))
        }
        return w
    }
}

/// Projected points, the output of `project` and the `projected` artifact.
///
/// Points are stored in spatial (Hilbert-curve) order so that graph building and propagation
/// touch memory locally. Columns: `x`, `y` (f64, metres in the CRS named by `metadata.crs`),
/// `lon`, `lat` (f64, the WGS84 input), `row` (u32, the POI's row in the `pois` artifact).
///
/// Read from an artifact, the columns are used in place (see ``Column``).
public struct ProjectedPoints: Sendable {
    public var x = Column<Double>()
    public var y = Column<Double>()
    public var lon = Column<Double>()
    public var lat = Column<Double>()
    public var row = Column<UInt32>()

    public init() {}

    public var count: Int { x.count }

    public init(artifact: ArtifactFile) throws(ArtifactError) {
        let n = artifact.rowCount
        x = try artifact.view("x", count: n)
        y = try artifact.view("y", count: n)
        lon = try artifact.view("lon", count: n)
        lat = try artifact.view("lat", count: n)
        row = try artifact.view("row", count: n)
    }

    public func writer(metadata: JSONValue) -> ArtifactWriter {
        var w = ArtifactWriter(kind: .projected, rowCount: count, metadata: metadata)
        w.add("x", x)
        w.add("y", y)
        w.add("lon", lon)
        w.add("lat", lat)
        w.add("row", row)
        return w
    }
}
