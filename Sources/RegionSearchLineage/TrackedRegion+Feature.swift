import RegionSearchCore
import RegionSearchOutput

extension TrackedRegion {
    /// Why a feature is not a region the lineage can follow.
    public struct FeatureProblem: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// A region from a GeoJSON feature: a regions output's, or a lineage file's (which adds
    /// `members`).
    public init(feature: JSONValue) throws(FeatureProblem) {
        try self.init(properties: feature["properties"] ?? .null, polygons: try Self.polygons(feature["geometry"]))
    }

    /// A region from a feature's properties — `region_id` and `keyword` required; `level`
    /// (default 0), `rank`, `parent_id`, `members`, `n_keyword_pois`, `area_m2`, `label`,
    /// `label_rule` when present — and its polygons.
    public init(properties p: JSONValue, polygons: [[GeoJSONWriter.Ring]]) throws(FeatureProblem) {
        guard let id = p["region_id"]?.intValue else { throw FeatureProblem(reason: "no integer 'region_id'") }
        guard let keyword = p["keyword"]?.stringValue else { throw FeatureProblem(reason: "no string 'keyword'") }
        var members: [String] = []
        if let list = p["members"]?.arrayValue {
            for m in list {
                guard let s = m.stringValue else { throw FeatureProblem(reason: "'members' holds a non-string") }
                members.append(s)
            }
        }
        members = Self.canonicalMembers(members)
        // A level that is not a whole number ≥ 0 (1.5, -1, "1") was read as 0, or kept negative,
        // and the region matched against the wrong level's regions without a word.
        var level = 0
        if let v = p["level"], v != .null {
            guard let l = v.intValue, l >= 0 else {
                throw FeatureProblem(reason: "'level' must be a whole number ≥ 0, found \(v.serialized())")
            }
            level = l
        }
        let counted = p["n_keyword_pois"]?.intValue ?? p["member_pois"]?.intValue ?? 0
        self.init(
            id: id, keyword: keyword, level: level, rank: p["rank"]?.intValue ?? 0,
            parentID: p["parent_id"]?.intValue, members: members,
            keywordPOIs: members.isEmpty ? counted : members.count, areaM2: p["area_m2"]?.doubleValue ?? 0,
            polygons: polygons, label: p["label"]?.stringValue, labelRule: p["label_rule"]?.stringValue)
    }

    /// Polygons from a GeoJSON Polygon or MultiPolygon geometry.
    static func polygons(_ g: JSONValue?) throws(FeatureProblem) -> [[GeoJSONWriter.Ring]] {
        func ring(_ v: JSONValue) throws(FeatureProblem) -> GeoJSONWriter.Ring {
            guard let list = v.arrayValue else { throw FeatureProblem(reason: "a ring is not an array") }
            var lon: [Double] = []
            var lat: [Double] = []
            lon.reserveCapacity(list.count)
            lat.reserveCapacity(list.count)
            for p in list {
                guard let a = p.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
                    throw FeatureProblem(reason: "a position is not two numbers")
                }
                lon.append(x)
                lat.append(y)
            }
            return GeoJSONWriter.Ring(lon: lon, lat: lat)
        }
        func polygon(_ v: JSONValue) throws(FeatureProblem) -> [GeoJSONWriter.Ring] {
            guard let rings = v.arrayValue else { throw FeatureProblem(reason: "polygon rings are not an array") }
            var out: [GeoJSONWriter.Ring] = []
            for r in rings { out.append(try ring(r)) }
            return out
        }
        switch g?["type"]?.stringValue {
        case "Polygon":
            return [try polygon(g?["coordinates"] ?? .null)]
        case "MultiPolygon":
            guard let list = g?["coordinates"]?.arrayValue else {
                throw FeatureProblem(reason: "MultiPolygon coordinates are not an array")
            }
            var out: [[GeoJSONWriter.Ring]] = []
            for p in list { out.append(try polygon(p)) }
            return out
        case let other:
            throw FeatureProblem(reason: "geometry \(other ?? "missing") is not a Polygon or MultiPolygon")
        }
    }
}
