import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel

/// The scored POI layer — the batch form of the original application's POI annotations: every
/// POI (or those in a region) with its id, name and keyword text, and per query keyword its
/// propagated score, whether it matches, and the region it belongs to. The field list is
/// ``fields(keywords:)``; ``layer(_:keywords:selection:)`` fills it.
///
/// Per keyword `k` (1-based, query order) the fields are `score_k`, `match_k`, `region_k`,
/// `region_k_level` and `region_k_path`: numbered, not named after the keyword, so that they are
/// valid column names in every format (a keyword can be `美食` or hold spaces); their
/// descriptions, which name the keyword, become aliases in the QGIS style. In a Shapefile
/// (dBASE allows 10 bytes) the last two are `rlevel_k` and `rpath_k`.
///
/// Regions nest (``RegionFeatureSchema``: `level`, `parent_id`), so a POI can belong to a
/// region at every level. `region_k` is the finest: the written region of the deepest level that
/// was found with the POI among its members; `region_k_level` is its level and `region_k_path`
/// its chain of `region_id`s from level 0 down to it, `/`-separated (`"4/61/75"`), read from the
/// written regions' `parent_id`, so that a join on any level needs no second lookup
/// (`split_part(region_1_path, '/', 1)` is the POI's coarsest region). A POI in no written
/// region of the keyword has null in all three. The fields are the same for any number of
/// levels, so an appended PostGIS table keeps its columns.
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
                .init(
                    "region_\(k)", .integer,
                    "region_id of the finest '\(keyword)' region the POI belongs to (the deepest level), or null"),
                .init(
                    "region_\(k)_level", .integer, "level of region_\(k) (0 = coarsest), or null",
                    shapefileName: "rlevel_\(k)"),
                .init(
                    "region_\(k)_path", .string,
                    "region_ids of the '\(keyword)' regions holding the POI, from level 0 down to region_\(k), "
                        + "separated by \"/\", or null",
                    shapefileName: "rpath_\(k)"),
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
        /// The regions layer as written: `region_id` by (keyword, level, rank), so that
        /// `region_k` names the feature of the regions output (a region the hulls stage dropped,
        /// or did not write at its `levels`, has none), and `parent_id` for the paths.
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
        guard scores.hasScores else {
            throw Mismatch(
                description:
                    "the scores artifact holds no scores (propagate ran with scores false): rerun propagate with "
                    + "--scores true (a manifest with poi_output does)")
        }
        // Projected point of each POI row (-1: not projected).
        var pointOfRow = [Int32](repeating: -1, count: pois.count)
        for i in 0..<projected.count {
            let row = Int(projected.row[i])
            guard row < pois.count else { throw Mismatch(description: "projected row \(row) is not a POI") }
            pointOfRow[row] = Int32(i)
        }
        let written = try writtenRegions(inputs.regionLayer)
        // The finest written region per keyword, by POI row: the deepest level holding the POI,
        // the best-ranked of a level should two hold it (table order is level, then rank).
        var regionOfRow = [[Int: WrittenRegion]](repeating: [:], count: keywords.count)
        for r in inputs.regions.regions {
            guard r.keyword < keywords.count,
                let region = written.byKey[Key(keyword: keywords[r.keyword], level: r.level, rank: r.rank)]
            else { continue }
            for v in r.members {
                guard Int(v) < projected.count else {
                    throw Mismatch(description: "region member \(v) is not a projected point; rerun the pipeline")
                }
                let row = Int(projected.row[Int(v)])
                if let held = regionOfRow[r.keyword][row], held.level >= region.level { continue }
                regionOfRow[r.keyword][row] = region
            }
        }
        let paths = written.paths
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
                if let region = regionOfRow[k][row] {
                    values += [
                        .integer(region.id), .integer(Int64(region.level)),
                        .string(paths[region.id] ?? String(region.id)),
                    ]
                } else {
                    values += [.null, .null, .null]
                }
            }
            return FeatureLayer.Feature(
                geometry: .point(lon: GeoJSONWriter.rounded(pois.lon[row]), lat: GeoJSONWriter.rounded(pois.lat[row])),
                values: values)
        }
        layer.qgisStyle = QGISStyle.pois(fields: fields)
        return layer
    }

    /// A region feature's place in the hierarchy: (keyword, level, rank) is unique in a layer.
    struct Key: Hashable {
        var keyword: String
        var level: Int
        var rank: Int
    }

    /// A written region: its `region_id`, level and `parent_id`.
    struct WrittenRegion {
        var id: Int64
        var level: Int
        var parent: Int64?
    }

    /// The regions of a written layer, by key, and each one's path of `region_id`s from level 0.
    struct WrittenRegions {
        var byKey: [Key: WrittenRegion] = [:]
        var paths: [Int64: String] = [:]
    }

    /// The written regions, from the regions layer (`level` and `parent_id` read as 0 and null
    /// in a layer without them).
    static func writtenRegions(_ layer: FeatureLayer) throws(Mismatch) -> WrittenRegions {
        func field(_ name: String) -> Int? { layer.fields.firstIndex { $0.name == name } }
        guard let idField = field("region_id"), let keywordField = field("keyword"), let rankField = field("rank")
        else { throw Mismatch(description: "the regions layer has no region_id, keyword and rank fields") }
        let levelField = field("level")
        let parentField = field("parent_id")
        var out = WrittenRegions()
        var parentOf: [Int64: Int64] = [:]
        var ids: [Int64] = []
        for i in 0..<layer.count {
            let values = layer.feature(i).values
            guard case .integer(let id) = values[idField], case .string(let keyword) = values[keywordField],
                case .integer(let rank) = values[rankField]
            else { throw Mismatch(description: "region feature \(i + 1) lacks region_id, keyword or rank") }
            var level = 0
            if let levelField, case .integer(let l) = values[levelField] { level = Int(l) }
            var parent: Int64?
            if let parentField, case .integer(let p) = values[parentField] { parent = p }
            let key = Key(keyword: keyword, level: level, rank: Int(rank))
            guard out.byKey[key] == nil else {
                throw Mismatch(description: "two regions of '\(keyword)' at level \(level) have rank \(rank)")
            }
            out.byKey[key] = WrittenRegion(id: id, level: level, parent: parent)
            parentOf[id] = parent
            ids.append(id)
        }
        let known = Set(ids)
        for id in ids {
            // Up the parents to level 0 (a parent that is not in the layer, or a cycle, ends it).
            var chain = [id]
            var seen: Set<Int64> = [id]
            while let p = parentOf[chain.last!], known.contains(p), seen.insert(p).inserted { chain.append(p) }
            out.paths[id] = chain.reversed().map(String.init).joined(separator: "/")
        }
        return out
    }
}
