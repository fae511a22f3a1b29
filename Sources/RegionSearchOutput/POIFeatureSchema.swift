import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel

/// The scored POI layer — the batch form of the original application's POI annotations: every
/// POI (or those in a region) with its id, name and keyword text, and per query keyword its
/// propagated score, whether it matches, and the region it belongs to. The field list is
/// ``fields(keywords:)``; ``layer(_:keywords:selection:)`` fills it.
///
/// Per keyword `k` (1-based, query order) the fields are `score_k`, `match_k` and `region_k`:
/// numbered, not named after the keyword, so that they are valid column names in every format
/// (a keyword can be `美食` or hold spaces; dBASE allows 10 bytes); their descriptions, which
/// name the keyword, become aliases in the QGIS style.
public enum POIFeatureSchema {
    /// The layer (table) name of the POIs in multi-layer outputs (GeoPackage, PostGIS).
    public static let layerName = "pois"
    /// Bumped when the same inputs give other POI layer values (part of the publish key, so a
    /// published POI layer is rewritten): 2 — `keywords` holds the values only, never the key
    /// codes ingest stores before them.
    public static let version = 2

    /// Which POIs the layer holds.
    public enum Selection: String, CaseIterable, Sendable {
        /// Every POI of the input.
        case all
        /// The POIs that belong to at least one written region.
        case inRegions = "in_regions"
    }

    /// The fields for `keywords` (query order).
    public static func fields(keywords: [String]) -> [FeatureLayer.Field] {
        var fields: [FeatureLayer.Field] = [
            .init("poi_id", .string, "the POI's id in its input"),
            .init("name", .string, "the POI's name"),
            .init("keywords", .string, "the POI's keyword text (normalised values, separated by \"; \")"),
        ]
        for (i, keyword) in keywords.enumerated() {
            let k = i + 1
            fields += [
                .init("score_\(k)", .real, "propagated score for '\(keyword)' (null: the POI was not projected)"),
                .init("match_\(k)", .integer, "1 when the keyword text matches '\(keyword)', else 0"),
                .init("region_\(k)", .integer, "region_id of the '\(keyword)' region the POI belongs to, or null"),
            ]
        }
        return fields
    }

    /// The inputs of the layer: the run's artifacts and the written regions.
    public struct Inputs {
        public var pois: POITable
        public var projected: ProjectedPoints
        public var scores: ScoreTable
        public var regions: RegionTable
        /// The regions layer as written: `region_id` by (keyword, rank), so that `region_k`
        /// names the feature of the regions output (a region the hulls stage dropped has none).
        public var regionLayer: FeatureLayer

        public init(
            pois: POITable, projected: ProjectedPoints, scores: ScoreTable, regions: RegionTable,
            regionLayer: FeatureLayer
        ) {
            self.pois = pois
            self.projected = projected
            self.scores = scores
            self.regions = regions
            self.regionLayer = regionLayer
        }
    }

    /// Why the layer cannot be made from the given artifacts.
    public struct Mismatch: Error, CustomStringConvertible {
        public var description: String
    }

    /// The scored POI layer, POIs in input order.
    public static func layer(_ inputs: Inputs, keywords: [String], selection: Selection) throws(Mismatch)
        -> FeatureLayer
    {
        let pois = inputs.pois
        let projected = inputs.projected
        let scores = inputs.scores
        guard scores.count == projected.count, scores.keywords.count == keywords.count else {
            throw Mismatch(
                description:
                    "the scores (\(scores.count) rows, \(scores.keywords.count) keywords) do not belong to the "
                    + "projected points (\(projected.count)) and keywords (\(keywords.count)); rerun the pipeline")
        }
        // Projected point of each POI row (-1: not projected).
        var pointOfRow = [Int32](repeating: -1, count: pois.count)
        for i in 0..<projected.count {
            let row = Int(projected.row[i])
            guard row < pois.count else { throw Mismatch(description: "projected row \(row) is not a POI") }
            pointOfRow[row] = Int32(i)
        }
        let ids = try regionIDs(inputs.regionLayer)
        // region_id per keyword, by POI row; the best-ranked region first if a POI is in two.
        var regionOfRow = [[Int: Int64]](repeating: [:], count: keywords.count)
        for r in inputs.regions.regions {
            guard r.keyword < keywords.count, let id = ids[keywords[r.keyword]]?[r.rank] else { continue }
            for v in r.members {
                guard Int(v) < projected.count else {
                    throw Mismatch(description: "region member \(v) is not a projected point; rerun the pipeline")
                }
                let row = Int(projected.row[Int(v)])
                if regionOfRow[r.keyword][row] == nil { regionOfRow[r.keyword][row] = id }
            }
        }
        let rows: [Int]
        switch selection {
        case .all:
            rows = Array(0..<pois.count)
        case .inRegions:
            var set = Set<Int>()
            for m in regionOfRow { set.formUnion(m.keys) }
            rows = set.sorted()
        }
        let fields = fields(keywords: keywords)
        var layer = FeatureLayer(name: layerName, geometryType: .point, fields: fields, count: rows.count) { i in
            let row = rows[i]
            var values: [FieldValue] = [
                .string(pois.ids[row]), .string(pois.names[row]),
                // The values without their key codes (internal bytes 0x01–0x1F, KeywordText).
                .string(KeywordText.values(pois.keywords[row]).joined(separator: "; ")),
            ]
            let point = Int(pointOfRow[row])
            for k in 0..<keywords.count {
                if point >= 0 {
                    values.append(.real((scores.scores[k][point] * 1e6).rounded() / 1e6))
                    values.append(.integer(Int64(scores.matches[k][point] & 1)))
                } else {
                    values += [.null, .null]
                }
                values.append(regionOfRow[k][row].map { .integer($0) } ?? .null)
            }
            return FeatureLayer.Feature(
                geometry: .point(lon: GeoJSONWriter.rounded(pois.lon[row]), lat: GeoJSONWriter.rounded(pois.lat[row])),
                values: values)
        }
        layer.qgisStyle = QGISStyle.pois(fields: fields)
        return layer
    }

    /// `region_id` by keyword and rank, from the regions layer.
    static func regionIDs(_ layer: FeatureLayer) throws(Mismatch) -> [String: [Int: Int64]] {
        guard let idField = layer.fields.firstIndex(where: { $0.name == "region_id" }),
            let keywordField = layer.fields.firstIndex(where: { $0.name == "keyword" }),
            let rankField = layer.fields.firstIndex(where: { $0.name == "rank" })
        else { throw Mismatch(description: "the regions layer has no region_id, keyword and rank fields") }
        var out: [String: [Int: Int64]] = [:]
        for i in 0..<layer.count {
            let values = layer.feature(i).values
            guard case .integer(let id) = values[idField], case .string(let keyword) = values[keywordField],
                case .integer(let rank) = values[rankField]
            else { throw Mismatch(description: "region feature \(i + 1) lacks region_id, keyword or rank") }
            guard out[keyword]?[Int(rank)] == nil else {
                throw Mismatch(description: "two regions of '\(keyword)' have rank \(rank)")
            }
            out[keyword, default: [:]][Int(rank)] = id
        }
        return out
    }
}
