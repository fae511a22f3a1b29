import RegionSearchCore
import RegionSearchGDAL

/// How to read one input file: its format, how to split it into fields and which fields hold the
/// id, name, keywords and coordinates.
///
/// The same keys are used by a manifest's `inputs[]` entries and by `regionsearch-ingest
/// --input-spec JSON`; the format options of the command line build one of these too. Every
/// key is validated, and unknown keys are errors that name the key and suggest the closest known
/// one. The full schema with defaults is in docs/INGEST.md.
public struct InputSpec: Sendable {
    /// The input format; `auto` detects it from the file's first bytes.
    public enum Format: String, CaseIterable, Sendable {
        case auto, csv, geojson
        case osmPBF = "osm_pbf"
        case osmXML = "osm_xml"
        /// Any vector source GDAL/OGR opens: GeoPackage, Shapefile, FlatGeobuf, KML, GML, GPX,
        /// MapInfo, CSV through OGR, a `PG:` connection string, …
        case ogr
    }

    /// Options of OGR input (`format: "ogr"`); nil members keep the defaults.
    public struct OGRSettings: Sendable, Equatable {
        /// The layer to read, by name (default: the first layer).
        public var layer: String?
        /// An SQL statement whose result is read instead of a layer (the source's own SQL
        /// dialect: SQLite for GeoPackage, PostgreSQL for PostGIS, OGR SQL otherwise).
        public var sql: String?
        /// An attribute filter (OGR SQL WHERE syntax) on the layer read.
        public var whereClause: String?
        /// Driver open options, `KEY=VALUE` (e.g. `X_POSSIBLE_NAMES=lon` for CSV).
        public var openOptions: [String] = []
        /// The CRS of a layer that declares none ("EPSG:3067", WKT, PROJ string); a declared CRS
        /// is always used as declared.
        public var sourceCRS: String?
        public init() {}

        /// Whether any key was given.
        var isSet: Bool { self != OGRSettings() }
    }

    /// Whether the first record of delimited text names the columns.
    public enum HeaderMode: Sendable, Equatable {
        case present, absent
        /// A header exists when the first record's coordinate fields are not numbers (or when
        /// columns are given by name or guessed).
        case auto
    }

    /// A column (delimited text) or property (GeoJSON), by header/property name or by 0-based
    /// position.
    public enum ColumnRef: Equatable, Sendable, CustomStringConvertible {
        case name(String)
        case index(Int)

        public var description: String {
            switch self {
            case .name(let n): return "'\(n)'"
            case .index(let i): return "#\(i)"
            }
        }

        var json: JSONValue {
            switch self {
            case .name(let n): return .string(n)
            case .index(let i): return .number(Double(i))
            }
        }
    }

    /// How one keyword field is split into keyword values.
    public enum KeywordSplit: String, CaseIterable, Sendable {
        /// `list` when the value looks like `[...]`, otherwise `hierarchy`.
        case auto
        /// The whole value is one keyword.
        case plain
        /// Split at `keyword_separator` (Amap's `餐饮服务;中餐厅;火锅店`): each level is a keyword.
        case hierarchy
        /// A Python or JSON list literal, `['Кафе', 'Бары']` or `["a","b"]`; each item is a keyword.
        case list
        /// OSM tags in PostgreSQL hstore text, `"amenity"=>"cafe","cuisine"=>"coffee_shop"` (as
        /// osm2pgsql/ogr2ogr write `other_tags`): the values of the OSM keyword keys, each with
        /// its tag key (see ``KeywordSplitter``).
        case hstore
    }

    /// The order of the two numbers in a combined coordinate column.
    public enum CoordinateOrder: String, CaseIterable, Sendable {
        case lonLat = "lon_lat"
        case latLon = "lat_lon"
    }

    /// One keyword column and, optionally, its own split rule.
    public struct KeywordColumn: Sendable, Equatable {
        public var column: ColumnRef
        /// nil: the input's `keyword_split`.
        public var split: KeywordSplit?
        /// nil: the input's `keyword_separator`.
        public var separator: String?

        public init(column: ColumnRef, split: KeywordSplit? = nil, separator: String? = nil) {
            self.column = column
            self.split = split
            self.separator = separator
        }
    }

    /// Which fields hold what. nil members are guessed from the header / property names.
    public struct Columns: Sendable, Equatable {
        public var id: ColumnRef?
        public var name: ColumnRef?
        public var keywords: [KeywordColumn]?
        public var lon: ColumnRef?
        public var lat: ColumnRef?
        /// One field holding both numbers ("lon,lat" or "lon lat"; see `coordinate_order`).
        public var coordinates: ColumnRef?
        /// One field holding a WKT `POINT(lon lat)`.
        public var wkt: ColumnRef?
        /// OSM tags in hstore text (`other_tags`), read for region labels only: `addr:street` and
        /// `place` (``LabelTags``); never keywords.
        public var tags: ColumnRef?

        public init() {}

        /// Whether any coordinate column was given.
        var hasCoordinates: Bool { lon != nil || lat != nil || coordinates != nil || wkt != nil }

        /// Every column given, with its key, for validation against a header.
        var all: [(String, ColumnRef)] {
            var out: [(String, ColumnRef)] = []
            if let id { out.append(("id", id)) }
            if let name { out.append(("name", name)) }
            for (i, k) in (keywords ?? []).enumerated() { out.append(("keywords[\(i)]", k.column)) }
            if let lon { out.append(("lon", lon)) }
            if let lat { out.append(("lat", lat)) }
            if let coordinates { out.append(("coordinates", coordinates)) }
            if let wkt { out.append(("wkt", wkt)) }
            if let tags { out.append(("tags", tags)) }
            return out
        }
    }

    /// Options passed to the OSM readers; nil keeps the reader's default.
    public struct OSMSettings: Sendable, Equatable {
        var poiKeys: [String]?
        var keywordKeys: [String]?
        var nameKey: String?
        public init() {}
    }

    /// The families of input formats; the rejects file follows the family of its inputs.
    enum Family: String, Sendable {
        case delimited, geojson, osm, ogr
    }

    /// Values that mean "missing" by default (besides the empty string, which always does).
    static let defaultMissingValues = ["NULL", "null", "NaN", "nan", "N/A", "None"]
    /// Default `max_record_bytes` for delimited text: a quoted field still open after this many
    /// bytes is taken for a stray quote.
    static let defaultMaxRecordBytesDelimited = 1 << 20
    /// Default `max_record_bytes` for GeoJSON: one feature may be a large polygon.
    static let defaultMaxRecordBytesGeoJSON = 256 << 20
    /// The values `max_record_bytes` may take.
    public static let maxRecordBytesRange = 1024...(1 << 30)

    /// Where error messages say this input came from (`inputs[0]`, `input 'a.csv'`).
    public var context: String
    public var path: String
    public var format: Format = .auto
    /// nil: sniffed from the first line among `,` tab `|` `;`.
    public var delimiter: UInt8?
    /// nil: no quoting (quote characters are ordinary text).
    public var quote: UInt8? = 0x22
    public var header: HeaderMode = .auto
    /// Trim spaces (and tabs, unless tab is the delimiter) around unquoted field values and
    /// around quoted ones.
    public var trim = true
    public var columns = Columns()
    var coordinateOrder: CoordinateOrder = .lonLat
    public var crs: ChineseCoordinates.System = .wgs84
    var keywordSplit: KeywordSplit = .auto
    var keywordSeparator = ";"
    var missingValues: [String] = InputSpec.defaultMissingValues
    public var osm = OSMSettings()
    public var ogr = OGRSettings()
    /// nil: the format's default.
    var maxRecordBytes: Int?

    /// All keys of the JSON form, in documentation order.
    public static let keys = [
        "path", "format", "delimiter", "quote", "header", "trim", "columns", "coordinate_order", "crs",
        "keyword_split", "keyword_separator", "missing_values", "osm", "max_record_bytes", "layer", "sql", "where",
        "open_options", "source_crs",
    ]
    static let columnKeys = ["id", "name", "keywords", "lon", "lat", "coordinates", "wkt", "tags"]
    static let keywordColumnKeys = ["column", "split", "separator"]
    static let osmKeys = ["poi_keys", "keyword_keys", "name_key"]

    public init(path: String, context: String? = nil) {
        self.path = path
        self.context = context ?? "input '\(path)'"
    }

    /// Parses and validates the JSON form; errors name the offending key, prefixed by `context`.
    public init(json: JSONValue, context: String) throws(UsageError) {
        guard let members = json.objectValue else {
            throw UsageError("\(context): expected an object, got \(json.typeName)")
        }
        try Self.checkKeys(members, known: Self.keys, context: context)
        guard let pathValue = json["path"] else { throw UsageError("\(context).path: required (the input file)") }
        guard let path = pathValue.stringValue, !path.isEmpty else {
            throw UsageError("\(context).path: expected a non-empty string, got \(pathValue.serialized())")
        }
        // What reaches the system or GDAL, which read a text only up to a NUL (a delimiter or a
        // missing-value marker stays with RegionSearch's own readers, where a NUL is a byte).
        let outward = JSONValue.object(
            members.filter { ["path", "layer", "sql", "where", "open_options", "source_crs"].contains($0.0) })
        if let key = outward.firstNUL(at: context) {
            throw UsageError(
                "\(key): holds the control character U+0000 (NUL): the system and GDAL read a path, layer, filter "
                    + "or option only up to it, so another one would be used than the one named; remove it")
        }
        self.init(path: path, context: context)
        for (key, value) in members where value != .null {
            let at = "\(context).\(key)"
            switch key {
            case "path": break
            case "format": format = try Self.choice(value, at: at)
            case "delimiter": delimiter = try Self.delimiterByte(value, at: at)
            case "quote": quote = try Self.quoteByte(value, at: at)
            case "header":
                if let b = value.boolValue {
                    header = b ? .present : .absent
                } else if value.stringValue == "auto" {
                    header = .auto
                } else {
                    throw UsageError("\(at): expected true, false or \"auto\", got \(value.serialized())")
                }
            case "trim": trim = try Self.bool(value, at: at)
            case "columns": columns = try Self.parseColumns(value, at: at)
            case "coordinate_order": coordinateOrder = try Self.choice(value, at: at)
            case "crs": crs = try Self.choice(value, at: at)
            case "keyword_split": keywordSplit = try Self.choice(value, at: at)
            case "keyword_separator": keywordSeparator = try Self.separator(value, at: at)
            case "missing_values": missingValues = try Self.stringList(value, at: at)
            case "osm": osm = try Self.parseOSM(value, at: at)
            case "max_record_bytes":
                guard let n = value.intValue, Self.maxRecordBytesRange.contains(n) else {
                    let range = Self.maxRecordBytesRange
                    throw UsageError(
                        "\(at): expected an integer in [\(range.lowerBound), \(range.upperBound)], got \(value.serialized())"
                    )
                }
                maxRecordBytes = n
            case "layer": ogr.layer = try Self.nonEmptyString(value, at: at)
            case "sql": ogr.sql = try Self.nonEmptyString(value, at: at)
            case "where": ogr.whereClause = try Self.nonEmptyString(value, at: at)
            case "source_crs": ogr.sourceCRS = try Self.nonEmptyString(value, at: at)
            case "open_options":
                ogr.openOptions = try Self.stringList(value, at: at)
                for (i, o) in ogr.openOptions.enumerated() where !o.contains("=") {
                    throw UsageError("\(at)[\(i)]: expected KEY=VALUE, got \"\(o)\"")
                }
            default: break  // unknown keys were rejected above
            }
        }
        if let q = quote, q == delimiter {
            throw UsageError("\(context).quote: the quote character cannot also be the delimiter")
        }
        if ogr.sql != nil && (ogr.layer != nil || ogr.whereClause != nil) {
            throw UsageError("\(context).sql: give either sql or layer/where (the SQL names its layer and filter)")
        }
        if format != .auto && format != .ogr, let key = ogrKeyGiven {
            throw UsageError(
                "\(context).\(key): only for OGR input (format \"ogr\"), but the format is \(format.rawValue)")
        }
        if Self.isConnectionString(path) && format != .auto && format != .ogr {
            throw UsageError("\(context).format: '\(path)' is a database connection, read with format \"ogr\"")
        }
        try checkColumnCombination()
    }

    /// The first OGR-only key given, for messages.
    var ogrKeyGiven: String? {
        if ogr.layer != nil { return "layer" }
        if ogr.sql != nil { return "sql" }
        if ogr.whereClause != nil { return "where" }
        if !ogr.openOptions.isEmpty { return "open_options" }
        if ogr.sourceCRS != nil { return "source_crs" }
        return nil
    }

    /// Whether `path` is a GDAL connection string rather than a file (`PG:…`): read through OGR,
    /// never made absolute or hashed as a file.
    public static func isConnectionString(_ path: String) -> Bool { path.hasPrefix("PG:") }

    /// The first pair of `specs` (indices, earlier first) that read one file the same way (a path
    /// and a link to it, or two spellings of it): its POIs would count twice. One file read two
    /// ways (two layers, SQL statements or filters of a GeoPackage) is no repeat; connection
    /// strings are not files.
    public static func firstRepeatedFile(_ specs: [InputSpec]) -> (first: Int, repeated: Int)? {
        FileIdentity.firstRepeat(
            specs.map { isConnectionString($0.path) ? "" : $0.path },
            reads: specs.map {
                [$0.ogr.layer ?? "", $0.ogr.sql ?? "", $0.ogr.whereClause ?? ""].joined(separator: "\u{0}")
            })
    }

    /// The path for messages, the rejects file and metadata: a connection string's password
    /// replaced by `***`.
    public var displayPath: String { GDALLibrary.redacted(path) }

    /// The column keys must describe one way of finding coordinates.
    func checkColumnCombination() throws(UsageError) {
        let c = columns
        let at = "\(context).columns"
        if (c.lon == nil) != (c.lat == nil) {
            throw UsageError("\(at).\(c.lon == nil ? "lon" : "lat"): lon and lat must be given together")
        }
        let ways = (c.lon != nil ? 1 : 0) + (c.coordinates != nil ? 1 : 0) + (c.wkt != nil ? 1 : 0)
        if ways > 1 {
            throw UsageError("\(at): give only one of lon+lat, coordinates, wkt")
        }
    }

    /// Checks that the keys used suit the detected format.
    func checkApplicable(to family: Family) throws(UsageError) {
        let at = "\(context)"
        if family != .ogr, let key = ogrKeyGiven {
            throw UsageError(
                "\(at).\(key): only for OGR input (format \"ogr\"), but '\(path)' is read as \(family.rawValue)")
        }
        switch family {
        case .ogr:
            if delimiter != nil || header != .auto || maxRecordBytes != nil {
                let key = delimiter != nil ? "delimiter" : header != .auto ? "header" : "max_record_bytes"
                throw UsageError("\(at).\(key): not used for OGR input (GDAL reads the format itself)")
            }
            if osm != OSMSettings() {
                throw UsageError("\(at).osm: only for OSM input, but '\(path)' is read through OGR")
            }
            if columns.tags != nil {
                throw UsageError(
                    "\(at).columns.tags: only for delimited text so far, but '\(path)' is read through OGR")
            }
            for (key, ref) in [
                ("lon", columns.lon), ("lat", columns.lat), ("coordinates", columns.coordinates), ("wkt", columns.wkt),
            ]
            where ref != nil {
                throw UsageError(
                    "\(at).columns.\(key): not used for OGR input (coordinates come from the geometry; for CSV "
                        + "through OGR give open_options such as X_POSSIBLE_NAMES=lon and Y_POSSIBLE_NAMES=lat)")
            }
        case .delimited:
            if osm != OSMSettings() {
                throw UsageError("\(at).osm: only for OSM input, but '\(path)' is delimited text")
            }
        case .geojson, .osm:
            let what = family == .geojson ? "GeoJSON" : "OSM"
            if delimiter != nil {
                throw UsageError("\(at).delimiter: only for delimited text, but '\(path)' is \(what)")
            }
            if header != .auto { throw UsageError("\(at).header: only for delimited text, but '\(path)' is \(what)") }
            if columns.tags != nil {
                throw UsageError(
                    "\(at).columns.tags: only for delimited text (OSM input reads addr:street and place from the tags), "
                        + "but '\(path)' is \(what)")
            }
            for (key, ref) in [
                ("lon", columns.lon), ("lat", columns.lat), ("coordinates", columns.coordinates), ("wkt", columns.wkt),
            ]
            where ref != nil {
                throw UsageError(
                    "\(at).columns.\(key): only for delimited text, but '\(path)' is \(what) (coordinates come from "
                        + "the geometry)"
                )
            }
            if family == .osm {
                if columns != Columns() {
                    throw UsageError(
                        "\(at).columns: not used for OSM input; use osm.poi_keys, osm.keyword_keys and osm.name_key")
                }
                if crs != .wgs84 { throw UsageError("\(at).crs: OSM data is always WGS84") }
            } else {
                if osm != OSMSettings() { throw UsageError("\(at).osm: only for OSM input, but '\(path)' is GeoJSON") }
                for (key, ref) in columns.all {
                    if case .index = ref {
                        throw UsageError("\(at).columns.\(key): GeoJSON properties are named, not numbered")
                    }
                }
            }
        }
    }

    /// The resolved spec as JSON (every key, defaults filled in), for artifact metadata.
    public var json: JSONValue {
        var cols: [(String, JSONValue)] = []
        if let v = columns.id { cols.append(("id", v.json)) }
        if let v = columns.name { cols.append(("name", v.json)) }
        if let ks = columns.keywords {
            cols.append(
                (
                    "keywords",
                    .array(
                        ks.map { k in
                            var m: [(String, JSONValue)] = [("column", k.column.json)]
                            if let s = k.split { m.append(("split", .string(s.rawValue))) }
                            if let s = k.separator { m.append(("separator", .string(s))) }
                            return .object(m)
                        })
                ))
        }
        if let v = columns.lon { cols.append(("lon", v.json)) }
        if let v = columns.lat { cols.append(("lat", v.json)) }
        if let v = columns.coordinates { cols.append(("coordinates", v.json)) }
        if let v = columns.wkt { cols.append(("wkt", v.json)) }
        if let v = columns.tags { cols.append(("tags", v.json)) }
        var osmMembers: [(String, JSONValue)] = []
        if let v = osm.poiKeys { osmMembers.append(("poi_keys", .array(v.map { .string($0) }))) }
        if let v = osm.keywordKeys { osmMembers.append(("keyword_keys", .array(v.map { .string($0) }))) }
        if let v = osm.nameKey { osmMembers.append(("name_key", .string(v))) }
        let headerValue: JSONValue
        switch header {
        case .present: headerValue = .bool(true)
        case .absent: headerValue = .bool(false)
        case .auto: headerValue = .string("auto")
        }
        var members: [(String, JSONValue)] = [
            ("path", .string(path)),
            ("format", .string(format.rawValue)),
            ("delimiter", delimiter.map { .string(String(UnicodeScalar($0))) } ?? .null),
            ("quote", .string(quote.map { String(UnicodeScalar($0)) } ?? "")),
            ("header", headerValue),
            ("trim", .bool(trim)),
            ("columns", .object(cols)),
            ("coordinate_order", .string(coordinateOrder.rawValue)),
            ("crs", .string(crs.rawValue)),
            ("keyword_split", .string(keywordSplit.rawValue)),
            ("keyword_separator", .string(keywordSeparator)),
            ("missing_values", .array(missingValues.map { .string($0) })),
            ("osm", .object(osmMembers)),
            ("max_record_bytes", maxRecordBytes.map { .number(Double($0)) } ?? .null),
        ]
        // Only when given, so that the metadata of other inputs is what it was before OGR input.
        if ogr.isSet {
            members += [
                ("layer", ogr.layer.map { .string($0) } ?? .null),
                ("sql", ogr.sql.map { .string($0) } ?? .null),
                ("where", ogr.whereClause.map { .string($0) } ?? .null),
                ("open_options", .array(ogr.openOptions.map { .string($0) })),
                ("source_crs", ogr.sourceCRS.map { .string($0) } ?? .null),
            ]
        }
        return .object(members)
    }

    // MARK: - Value parsing

    static func checkKeys(_ members: [(String, JSONValue)], known: [String], context: String) throws(UsageError) {
        for (k, _) in members where !known.contains(k) {
            let hint = closestMatch(k, in: known).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("\(context).\(k): unknown key\(hint); known keys: \(known.joined(separator: ", "))")
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ value: JSONValue, at: String) throws(UsageError) -> T
    where T.RawValue == String {
        let options = T.allCases.map { $0.rawValue }
        let list = options.map { "\"\($0)\"" }.joined(separator: ", ")
        guard let s = value.stringValue else {
            throw UsageError("\(at): expected one of \(list), got \(value.typeName)")
        }
        guard let v = T(rawValue: s) else {
            let hint = closestMatch(s, in: options).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw UsageError("\(at): expected one of \(list), got \"\(s)\"\(hint)")
        }
        return v
    }

    static func bool(_ value: JSONValue, at: String) throws(UsageError) -> Bool {
        guard let b = value.boolValue else {
            throw UsageError("\(at): expected true or false, got \(value.serialized())")
        }
        return b
    }

    static func stringList(_ value: JSONValue, at: String) throws(UsageError) -> [String] {
        if let s = value.stringValue { return [s] }
        guard let items = value.arrayValue else {
            throw UsageError("\(at): expected a list of strings, got \(value.typeName)")
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let s = item.stringValue else {
                throw UsageError("\(at)[\(i)]: expected a string, got \(item.typeName)")
            }
            out.append(s)
        }
        return out
    }

    static func nonEmptyString(_ value: JSONValue, at: String) throws(UsageError) -> String {
        guard let s = value.stringValue, !s.isEmpty else {
            throw UsageError("\(at): expected a non-empty string, got \(value.serialized())")
        }
        return s
    }

    static func separator(_ value: JSONValue, at: String) throws(UsageError) -> String {
        guard let s = value.stringValue, !s.isEmpty else {
            throw UsageError("\(at): expected a non-empty string, got \(value.serialized())")
        }
        return s
    }

    /// Named delimiters accepted besides a single ASCII character.
    static let delimiterNames: [(String, UInt8)] = [
        ("tab", 0x09), ("\\t", 0x09), ("comma", 0x2C), ("pipe", 0x7C), ("semicolon", 0x3B), ("space", 0x20),
    ]

    /// Parses a delimiter given as one ASCII character or a name (`tab`, `\t`, `comma`, …).
    static func delimiterByte(_ value: JSONValue, at: String) throws(UsageError) -> UInt8 {
        let names = delimiterNames.map { $0.0 }.joined(separator: ", ")
        guard let s = value.stringValue else { throw UsageError("\(at): expected a string, got \(value.typeName)") }
        if let named = delimiterNames.first(where: { $0.0 == s.lowercased() }) { return named.1 }
        let bytes = Array(s.utf8)
        guard bytes.count == 1, bytes[0] < 0x80, bytes[0] != 0x0A, bytes[0] != 0x0D, bytes[0] != 0x22 else {
            throw UsageError(
                "\(at): expected a single ASCII character other than a quote "
                    + "or line break, or one of \(names); got \(value.serialized())"
            )
        }
        return bytes[0]
    }

    static func quoteByte(_ value: JSONValue, at: String) throws(UsageError) -> UInt8? {
        guard let s = value.stringValue else { throw UsageError("\(at): expected a string, got \(value.typeName)") }
        if s.isEmpty || s == "none" { return nil }
        let bytes = Array(s.utf8)
        guard bytes.count == 1, bytes[0] < 0x80, bytes[0] != 0x0A, bytes[0] != 0x0D else {
            throw UsageError(
                "\(at): expected a single ASCII character, or \"\" for no quoting; got \(value.serialized())")
        }
        return bytes[0]
    }

    static func columnRef(_ value: JSONValue, at: String) throws(UsageError) -> ColumnRef {
        if let s = value.stringValue { return .name(s) }
        if let i = value.intValue {
            guard i >= 0, i < 1 << 20 else {
                throw UsageError("\(at): a column index must be 0 or more (0 is the first column), got \(i)")
            }
            return .index(i)
        }
        throw UsageError(
            "\(at): expected a column name (string) or a 0-based column index (integer), got \(value.serialized())")
    }

    static func parseColumns(_ value: JSONValue, at: String) throws(UsageError) -> Columns {
        guard let members = value.objectValue else {
            throw UsageError("\(at): expected an object, got \(value.typeName)")
        }
        try checkKeys(members, known: columnKeys, context: at)
        var c = Columns()
        for (key, v) in members where v != .null {
            let here = "\(at).\(key)"
            switch key {
            case "id": c.id = try columnRef(v, at: here)
            case "name": c.name = try columnRef(v, at: here)
            case "lon": c.lon = try columnRef(v, at: here)
            case "lat": c.lat = try columnRef(v, at: here)
            case "coordinates": c.coordinates = try columnRef(v, at: here)
            case "wkt": c.wkt = try columnRef(v, at: here)
            case "tags": c.tags = try columnRef(v, at: here)
            case "keywords":
                let items = v.arrayValue ?? [v]
                var out: [KeywordColumn] = []
                for (i, item) in items.enumerated() {
                    let itemAt = v.arrayValue == nil ? here : "\(here)[\(i)]"
                    if let m = item.objectValue {
                        try checkKeys(m, known: keywordColumnKeys, context: itemAt)
                        guard let col = item["column"] else { throw UsageError("\(itemAt).column: required") }
                        var k = KeywordColumn(column: try columnRef(col, at: "\(itemAt).column"))
                        if let s = item["split"], s != .null { k.split = try choice(s, at: "\(itemAt).split") }
                        if let s = item["separator"], s != .null {
                            k.separator = try separator(s, at: "\(itemAt).separator")
                        }
                        out.append(k)
                    } else {
                        out.append(KeywordColumn(column: try columnRef(item, at: itemAt)))
                    }
                }
                c.keywords = out
            default: break
            }
        }
        return c
    }

    static func parseOSM(_ value: JSONValue, at: String) throws(UsageError) -> OSMSettings {
        guard let members = value.objectValue else {
            throw UsageError("\(at): expected an object, got \(value.typeName)")
        }
        try checkKeys(members, known: osmKeys, context: at)
        var o = OSMSettings()
        for (key, v) in members where v != .null {
            let here = "\(at).\(key)"
            switch key {
            case "poi_keys": o.poiKeys = try stringList(v, at: here)
            case "keyword_keys": o.keywordKeys = try stringList(v, at: here)
            case "name_key":
                guard let s = v.stringValue, !s.isEmpty else {
                    throw UsageError("\(here): expected a non-empty string, got \(v.serialized())")
                }
                o.nameKey = s
            default: break
            }
        }
        return o
    }
}
