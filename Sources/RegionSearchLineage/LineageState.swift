import RegionSearchCore
import RegionSearchOutput

/// The lineage file (`<output stem>.lineage.json`, published with the outputs): what the next
/// run needs to keep ids — every region of this result with its id, keyword, level, polygon and
/// members (POI keys) — the highest id ever given, and the previous result this one was matched
/// against.
///
/// It is a GeoJSON FeatureCollection (one feature per region, `members` an array property), so
/// `regionsearch diff`, QGIS and ogrinfo read it as a region file; the lineage itself is the
/// foreign member `regionsearch_lineage`:
///
/// ```json
/// {"type":"FeatureCollection",
///  "regionsearch_lineage":{"format":1,"high_water_mark":57,"result":"<hash>",
///                          "manifest":"../pipelines/nightly.json",
///                          "previous":{"high_water_mark":52,"result":"<hash>","features":[…]} | null},
///  "features":[{"type":"Feature","geometry":{…},"properties":{"region_id":3,"keyword":"restaurant",
///    "level":0,"rank":1,"parent_id":null,"n_keyword_pois":41,"area_m2":80312.5,"label":"North Clark Street",
///    "label_rule":"street","members":["1234","5678",…]}}, …]}
/// ```
///
/// `result` identifies the unidentified result the file labels (everything the run's ids depend
/// on except the lineage): a run whose result equals it is a rerun and is matched against
/// `previous` again, so rerunning gives the same bytes (``Lineage``). `manifest` names the
/// manifest whose runs keep the lineage (the runner's record, relative to the file's folder):
/// a run of another manifest that would advance it is refused, since each night would move the
/// other's ids and change reports. Files written before it was recorded have none.
public struct LineageState {
    /// Format of the file; a reader refuses a newer one.
    public static let formatVersion = 1
    /// The foreign member holding the lineage.
    public static let member = "regionsearch_lineage"

    /// The highest id given in this lineage so far: new regions get the next ones, so a retired
    /// id is never given again.
    public var highWaterMark: Int
    /// The unidentified result this state labels (a content hash, as the runner computes it).
    public var result: String
    /// The manifest whose runs keep this lineage, as the runner records it (a path relative to the
    /// lineage file's folder); nil in a file written before the owner was recorded, or by a caller
    /// that keeps none.
    public var manifest: String?
    public var regions: [TrackedRegion]
    /// The state this one was matched against, without its own previous; nil for the first result
    /// of a lineage.
    public var previous: Previous?

    /// A previous state kept inside the file (one level deep).
    public struct Previous {
        public var highWaterMark: Int
        public var result: String
        public var regions: [TrackedRegion]

        /// Its form in the file (`regionsearch_lineage.previous`); hashing its text identifies it.
        public var json: JSONValue {
            .object([
                ("high_water_mark", .number(Double(highWaterMark))),
                ("result", .string(result)),
                (
                    "features",
                    .array(
                        regions.map { r in
                            .object([
                                ("type", .string("Feature")), ("geometry", ChangeReport.geometry(r.polygons)),
                                ("properties", .object(LineageState.properties(r))),
                            ])
                        })
                ),
            ])
        }

        public init(highWaterMark: Int, result: String, regions: [TrackedRegion]) {
            self.highWaterMark = highWaterMark
            self.result = result
            self.regions = regions
        }
    }

    public init(
        highWaterMark: Int, result: String, regions: [TrackedRegion], previous: Previous?, manifest: String? = nil
    ) {
        self.highWaterMark = highWaterMark
        self.result = result
        self.manifest = manifest
        self.regions = regions
        self.previous = previous
    }

    /// This state as the previous of the next one.
    public var asPrevious: Previous { Previous(highWaterMark: highWaterMark, result: result, regions: regions) }

    // MARK: Writing

    static func properties(_ r: TrackedRegion) -> [(String, JSONValue)] {
        [
            ("region_id", .number(Double(r.id))),
            ("keyword", .string(r.keyword)),
            ("level", .number(Double(r.level))),
            ("rank", .number(Double(r.rank))),
            ("parent_id", r.parentID.map { .number(Double($0)) } ?? .null),
            ("n_keyword_pois", .number(Double(r.keywordPOIs))),
            ("area_m2", .number(r.areaM2)),
            ("label", r.label.map { .string($0) } ?? .null),
            ("label_rule", r.labelRule.map { .string($0) } ?? .null),
            ("members", .array(r.members.map { .string($0) })),
        ]
    }

    /// The file's text: deterministic (members bytewise sorted, regions in result order).
    public var text: String {
        let previousValue: JSONValue = previous?.json ?? .null
        return GeoJSONWriter.document(
            features: regions.map { GeoJSONWriter.Feature(polygons: $0.polygons, properties: Self.properties($0)) },
            foreignMembers: [
                (
                    Self.member,
                    .object(
                        [
                            ("format", .number(Double(Self.formatVersion))),
                            ("high_water_mark", .number(Double(highWaterMark))),
                            ("result", .string(result)),
                        ] + (manifest.map { [("manifest", JSONValue.string($0))] } ?? []) + [
                            ("previous", previousValue)
                        ])
                )
            ])
    }

    // MARK: Reading

    /// Reads a lineage file; `path` names it in errors.
    public init(bytes: [UInt8], path: String) throws(LineageError) {
        let document: JSONValue
        do {
            document = try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }
        } catch {
            throw .unreadable(path: path, reason: "not JSON: \(error)")
        }
        guard let lineage = document[Self.member], lineage.objectValue != nil else {
            let what =
                document["features"] != nil || document["type"]?.stringValue == "FeatureCollection"
                ? "a region file, not a lineage file" : "not a lineage file (nor a region file)"
            throw .unreadable(path: path, reason: "no '\(Self.member)' member: \(what)")
        }
        let format = lineage["format"]?.intValue ?? 0
        guard format >= 1 else { throw .unreadable(path: path, reason: "'\(Self.member).format' is missing") }
        guard format <= Self.formatVersion else { throw .unsupportedFormat(path: path, version: format) }
        guard let hwm = lineage["high_water_mark"]?.intValue, let result = lineage["result"]?.stringValue else {
            throw .unreadable(
                path: path, reason: "'\(Self.member)' needs high_water_mark (a whole number) and result (a string)")
        }
        highWaterMark = hwm
        self.result = result
        // Optional: files of earlier versions have no owner (and are taken by the next run).
        if let m = lineage["manifest"], m != .null {
            guard let name = m.stringValue, !name.isEmpty else {
                throw .unreadable(path: path, reason: "'\(Self.member).manifest' is not a path")
            }
            manifest = name
        } else {
            manifest = nil
        }
        regions = try Self.regions(document["features"], path: path, at: "features")
        if let p = lineage["previous"], p != .null {
            guard let phwm = p["high_water_mark"]?.intValue, let presult = p["result"]?.stringValue else {
                throw .unreadable(
                    path: path,
                    reason: "'\(Self.member).previous' needs high_water_mark (a whole number) and result (a string)")
            }
            previous = Previous(
                highWaterMark: phwm, result: presult,
                regions: try Self.regions(p["features"], path: path, at: "\(Self.member).previous.features"))
        } else {
            previous = nil
        }
        for r in regions where r.id > highWaterMark {
            throw .unreadable(path: path, reason: "region_id \(r.id) exceeds high_water_mark \(highWaterMark)")
        }
    }

    static func regions(_ value: JSONValue?, path: String, at: String) throws(LineageError) -> [TrackedRegion] {
        guard let items = value?.arrayValue else { throw .unreadable(path: path, reason: "'\(at)' is not an array") }
        var out: [TrackedRegion] = []
        // An id names one region at most: a file with two (merged or edited by hand) would hand
        // both regions' histories to tonight's matches under one id.
        var firstIndex: [Int: Int] = [:]
        for (i, item) in items.enumerated() {
            let region: TrackedRegion
            do {
                region = try TrackedRegion(feature: item)
            } catch {
                throw .unreadable(path: path, reason: "\(at)[\(i)]: \(error.reason)")
            }
            if let first = firstIndex[region.id] {
                throw .unreadable(
                    path: path, reason: "\(at)[\(i)]: region_id \(region.id) is also the id of \(at)[\(first)]")
            }
            firstIndex[region.id] = i
            out.append(region)
        }
        return out
    }
}
