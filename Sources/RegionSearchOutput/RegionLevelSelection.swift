import CGEOS
import RegionSearchCore
import RegionSearchModel
import RegionSearchProjection

/// What the hulls stage writes of the region hierarchy (`hulls.levels`): every level, nested (the
/// default), or one flat, non-overlapping cut for a consumer that shows a single layer and cannot
/// tell a region from the one holding it.
///
/// The regions output, every format converted from it, the POI layer (its `region_k` names the
/// written features) and the maps all follow, because they all read what this stage wrote.
public enum RegionLevelSelection: Sendable, Equatable, CustomStringConvertible {
    /// Every level: a region lies inside its parent, one level up (a street inside its level-0
    /// region, below that region's finest level), so regions of one keyword overlap where they nest.
    case all
    /// The finest region at each place: every region less the finer regions of its keyword that
    /// lie on it. Leaves are written whole; a parent keeps what is left of it around its children
    /// when that holds one of its own POIs (else its POIs all lie in finer regions and what is left
    /// is ground between them, a sliver along a street's edge: dropped, as when nothing is left);
    /// no two regions of a keyword overlap.
    case finest
    /// Level 0 only.
    case coarsest
    /// One level only (0 = ``coarsest``).
    case level(Int)

    /// `all`, `finest`, `coarsest`, or a level number (`"1"`); nil for anything else.
    public init?(_ text: String) {
        switch text {
        case "all": self = .all
        case "finest": self = .finest
        case "coarsest": self = .coarsest
        default:
            guard let n = Int(text), n >= 0, String(n) == text else { return nil }
            self = .level(n)
        }
    }

    /// The parameter's spelling.
    public var description: String {
        switch self {
        case .all: return "all"
        case .finest: return "finest"
        case .coarsest: return "coarsest"
        case .level(let n): return String(n)
        }
    }

    /// The polygons to write, in the order given (table order), from every region's polygon as
    /// ``RegionPolygonBuilder`` drew it (children inside their parents); `points` are the
    /// projected points the table's members index.
    public func select(_ polygons: [RegionPolygonBuilder.Polygon], table: RegionTable, points: ProjectedPoints)
        throws -> [RegionPolygonBuilder.Polygon]
    {
        switch self {
        case .all: return polygons
        case .coarsest: return polygons.filter { table.regions[$0.region].level == 0 }
        case .level(let n): return polygons.filter { table.regions[$0.region].level == n }
        case .finest: return try Self.finestCut(polygons, table: table, points: points)
        }
    }

    /// The finest region at each place. Regions are cut finest level first: each loses the
    /// polygons already kept of its keyword that it meets (its children and, should a child
    /// whose parent was not drawn reach across, any other finer region), on the 7-decimal grid
    /// the output is written on, so the written parts do not overlap.
    static func finestCut(_ polygons: [RegionPolygonBuilder.Polygon], table: RegionTable, points: ProjectedPoints)
        throws -> [RegionPolygonBuilder.Polygon]
    {
        let geos = GEOSContext()
        // Finest level first; within a level the table's (rank) order, which the result keeps.
        let order = polygons.indices.sorted {
            let (a, b) = (table.regions[polygons[$0].region], table.regions[polygons[$1].region])
            return a.level != b.level ? a.level > b.level : $0 < $1
        }
        var kept: [Int: [(GEOSGeometry, GEOSEnvelope?)]] = [:]
        var out = [RegionPolygonBuilder.Polygon?](repeating: nil, count: polygons.count)
        for i in order {
            let p = polygons[i]
            let keyword = table.regions[p.region].keyword
            var shape = try geometry(p.polygons, geos: geos)
            let box = shape.envelope
            let finer = (kept[keyword] ?? []).filter { g, e in
                (box == nil || e == nil || box!.intersects(e!)) && g.intersects(shape)
            }.map(\.0)
            var cut = p
            if !finer.isEmpty {
                shape = try shape.difference(geos.unionAll(finer), gridSize: RegionPolygonBuilder.grid)
                    .polygonalParts()
                guard !shape.isEmpty, shape.area > 0 else { continue }
                // Its POIs as written (7 decimals): one must be left on its own ground.
                let own = try shape.prepared()
                let members = table.regions[p.region].shapeMembers
                guard
                    try members.contains(where: { v in
                        try own.covers(
                            x: GeoJSONWriter.rounded(points.lon[Int(v)]), y: GeoJSONWriter.rounded(points.lat[Int(v)]))
                    })
                else { continue }
                var parts: [[GeoJSONWriter.Ring]] = []
                for piece in try shape.polygons() { parts += try RegionPolygonBuilder.written(piece, geos: geos) }
                // Parts and holes in the builder's fixed order: the bytes do not depend on GEOS's.
                parts = parts.map { [$0[0]] + $0.dropFirst().sorted(by: GeoJSONWriter.ringPrecedes) }
                    .sorted { GeoJSONWriter.ringPrecedes($0[0], $1[0]) }
                guard !parts.isEmpty else { continue }
                var area = 0.0
                for part in parts {
                    area += Geodesic.area(lon: part[0].lon, lat: part[0].lat)
                    for hole in part.dropFirst() { area -= Geodesic.area(lon: hole.lon, lat: hole.lat) }
                }
                cut.polygons = parts
                cut.areaM2 = area
            }
            kept[keyword, default: []].append((shape, shape.envelope))
            out[i] = cut
        }
        return out.compactMap { $0 }
    }

    /// The written rings of a region as one GEOS geometry (a MultiPolygon when it has parts).
    static func geometry(_ parts: [[GeoJSONWriter.Ring]], geos: GEOSContext) throws -> GEOSGeometry {
        let pieces = try parts.map { rings in try geos.polygon(rings: rings.map { (x: $0.lon, y: $0.lat) }) }
        return pieces.count == 1 ? pieces[0] : try geos.collection(GEOS_MULTIPOLYGON, of: pieces)
    }
}
