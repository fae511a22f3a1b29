import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel
import RegionSearchOutput

/// The runner's lineage step on one result: the hulls stage's GeoJSON (provisional ids 1…n)
/// becomes the published regions — stable `region_id` and `parent_id`, `change`, `label` and
/// `label_rule` — with the change report and the lineage file to publish beside it.
///
/// Members come from the regions artifact (a region's keyword POIs by projected index → POI row
/// → ``POIKey``); labels from the POIs' names and streets and the data's place nodes
/// (``RegionLabeler``). Everything is read from verified artifacts and written in one fixed
/// order, so the same inputs and lineage file give the same bytes.
public struct RegionIdentity {
    /// What the step needs from the run.
    public struct Inputs {
        /// The hulls stage's GeoJSON.
        public var hulls: [UInt8]
        public var regions: RegionTable
        /// The query keywords in the regions artifact's order.
        public var keywords: [String]
        public var projected: ProjectedPoints
        public var pois: POITable
        /// Which projected points match each keyword (the scores artifact's `matches`).
        public var matches: [Column<UInt8>]
        public var labeler: RegionLabeler
        /// Each POI row's street (`addr:street`), when the data has them.
        public var streets: StringColumn?
        /// Whether an id names a POI within its own input only (`ingest.id_scope: input`): the
        /// POIs' keys then name their input (``POIKey``).
        public var idsPerInput = false

        public init(
            hulls: [UInt8], regions: RegionTable, keywords: [String], projected: ProjectedPoints, pois: POITable,
            matches: [Column<UInt8>], labeler: RegionLabeler, streets: StringColumn?
        ) {
            self.hulls = hulls
            self.regions = regions
            self.keywords = keywords
            self.projected = projected
            self.pois = pois
            self.matches = matches
            self.labeler = labeler
            self.streets = streets
        }
    }

    /// The published files' contents.
    public struct Output {
        public var geoJSON: String
        public var changes: ChangeReport
        public var lineage: LineageState
        public var continued: Bool
    }

    /// Why the hulls result and the artifacts do not fit together.
    public struct Mismatch: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs the step: `previous` is the published lineage (nil: a fresh lineage); `result`
    /// identifies the inputs (everything but the lineage). Without `tracking` (a manifest with
    /// `"lineage": false`) the ids stay the result's own numbers and `change` is null.
    public static func identify(_ inputs: Inputs, previous: LineageState?, result: String, tracking: Bool = true)
        throws -> Output
    {
        let document: JSONValue
        do {
            document = try inputs.hulls.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }
        } catch {
            throw Mismatch(description: "the hulls GeoJSON is not JSON (\(error)); rerun hulls (--from hulls)")
        }
        let layer: FeatureLayer
        do {
            layer = try FeatureLayerReader.read(
                geoJSON: inputs.hulls, name: RegionFeatureSchema.layerName, geometryType: .multiPolygon,
                fields: RegionFeatureSchema.fields)
        } catch {
            throw Mismatch(description: "the hulls GeoJSON does not fit the region schema (\(error)); rerun hulls")
        }
        let field = Dictionary(uniqueKeysWithValues: layer.fields.enumerated().map { ($1.name, $0) })
        func int(_ values: [FieldValue], _ name: String) -> Int? {
            if case .integer(let v) = values[field[name]!] { return Int(v) }
            return nil
        }
        func real(_ values: [FieldValue], _ name: String) -> Double {
            switch values[field[name]!] {
            case .real(let v): return v
            case .integer(let v): return Double(v)
            default: return 0
            }
        }
        func string(_ values: [FieldValue], _ name: String) -> String? {
            if case .string(let v) = values[field[name]!] { return v }
            return nil
        }
        // Table row by (keyword, level, rank).
        var rowOf: [[Int]: Int] = [:]
        for (i, r) in inputs.regions.regions.enumerated() { rowOf[[r.keyword, r.level, r.rank]] = i }
        let keywordIndex = Dictionary(inputs.keywords.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var labeler = inputs.labeler
        for (k, keyword) in inputs.keywords.enumerated() where k < inputs.matches.count {
            let m = inputs.matches[k]
            var names: [String] = []
            for point in 0..<inputs.projected.count where m[point] & 1 != 0 {
                names.append(inputs.pois.names[Int(inputs.projected.row[point])])
            }
            labeler.addKeywordNames(keyword, names: names)
        }
        var tracked: [TrackedRegion] = []
        var features: [FeatureLayer.Feature] = []
        for i in 0..<layer.count {
            let f = layer.feature(i)
            guard let id = int(f.values, "region_id"), let keyword = string(f.values, "keyword"),
                let k = keywordIndex[keyword], let level = int(f.values, "level"), let rank = int(f.values, "rank"),
                let row = rowOf[[k, level, rank]]
            else {
                throw Mismatch(
                    description: "region feature \(i + 1) has no region of the regions artifact (keyword, level, "
                        + "rank); rerun hulls")
            }
            guard case .multiPolygon(let polygons) = f.geometry else {
                throw Mismatch(description: "region feature \(i + 1) is not a polygon; rerun hulls")
            }
            let region = inputs.regions.regions[row]
            var keys: [String] = []
            var names: [String] = []
            var streets: [String] = []
            for (v, flag) in zip(region.members, region.memberMatch) where flag & RegionTable.Region.matchesFlag != 0 {
                guard Int(v) < inputs.projected.count else {
                    throw Mismatch(description: "region member \(v) is not a projected point; rerun the pipeline")
                }
                let poi = Int(inputs.projected.row[Int(v)])
                guard poi < inputs.pois.count else {
                    throw Mismatch(description: "projected row \(poi) is not a POI; rerun the pipeline")
                }
                keys.append(
                    POIKey.key(
                        id: inputs.pois.ids[poi], lon: inputs.pois.lon[poi], lat: inputs.pois.lat[poi],
                        input: inputs.idsPerInput ? Int(inputs.pois.source[poi]) : nil))
                names.append(inputs.pois.names[poi])
                streets.append(inputs.streets.map { $0[poi] } ?? "")
            }
            let label = labeler.label(
                keyword: keyword, polygons: polygons, members: .init(names: names, streets: streets))
            tracked.append(
                TrackedRegion(
                    id: id, keyword: keyword, level: level, rank: rank, parentID: int(f.values, "parent_id"),
                    members: TrackedRegion.canonicalMembers(keys), keywordPOIs: Set(keys).count,
                    areaM2: real(f.values, "area_m2"), polygons: polygons, label: label?.label, labelRule: label?.rule))
            features.append(f)
        }
        let step = try Lineage.advance(
            previous: tracking ? previous : nil, current: tracked, result: result, currentSource: "result \(result)")
        let verdicts = step.report.entries.filter { $0.verdict != .retired }
        for i in features.indices {
            let r = step.regions[i]
            var values = features[i].values
            values[field["region_id"]!] = .integer(Int64(r.id))
            values[field["parent_id"]!] = r.parentID.map { .integer(Int64($0)) } ?? .null
            values[field["label"]!] = r.label.map { .string($0) } ?? .null
            values[field["label_rule"]!] = r.labelRule.map { .string($0) } ?? .null
            values[field["change"]!] = tracking ? .string(verdicts[i].verdict.rawValue) : .null
            features[i].values = values
        }
        let identified = FeatureLayer(
            name: layer.name, geometryType: layer.geometryType, fields: layer.fields, features: features)
        var foreign = (document.objectValue ?? []).filter { $0.0 != "type" && $0.0 != "features" }
        let lineage: JSONValue =
            !tracking
            ? .null
            : .object([
                ("result", .string(result)),
                ("previous_result", Lineage.base(of: previous, result: result).map { .string($0.result) } ?? .null),
                ("high_water_mark", .number(Double(step.state.highWaterMark))),
                ("summary", .string(step.report.summary)),
            ])
        // Without a lineage the regions keep the hulls stage's provenance as it was.
        if tracking, let i = foreign.firstIndex(where: { $0.0 == "regionsearch" }),
            case .object(var members) = foreign[i].1
        {
            members.append(("lineage", lineage))
            foreign[i].1 = .object(members)
        }
        return Output(
            geoJSON: GeoJSONWriter.document(identified, foreignMembers: foreign), changes: step.report,
            lineage: step.state, continued: step.continued)
    }
}
