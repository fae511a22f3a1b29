import CGEOS
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// POIs laid out in metres east and north of 77° W, 39° N (UTM 18N), projected as the pipeline
/// projects them, and drawn polygons brought back into those metres: the polygon builder's tests
/// state their regions and expectations in plane coordinates.
struct PlanarTestFrame {
    // 77° W is 2° west of the zone's central meridian (75° W): 500 km false easting minus about
    // 173 km.
    static let origin = (east: 327_000.0, north: 4_318_000.0)
    let toLonLat: PROJTransform
    let projected: (points: ProjectedPoints, choice: CRSChoice)
    /// `position[row]`: the projected point of input row `row` (projection may reorder points).
    let position: [Int]

    init(x: [Double], y: [Double]) throws {
        let proj = PROJContext()
        toLonLat = try proj.transformation(from: "EPSG:32618", to: "EPSG:4326")
        var lon = x.map { $0 + Self.origin.east }
        var lat = y.map { $0 + Self.origin.north }
        XCTAssertEqual(try toLonLat.transform(x: &lon, y: &lat), [])
        let projected = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "EPSG:32618") }
        }
        self.projected = (projected.points, projected.choice)
        var position = [Int](repeating: 0, count: lon.count)
        for p in 0..<projected.points.row.count { position[Int(projected.points.row[p])] = p }
        self.position = position
    }

    /// A `side` × `side` grid of points `step` metres apart from the origin, row by row: point
    /// (i, j) is input row j · side + i.
    static func grid(side: Int, step: Double) -> (x: [Double], y: [Double]) {
        var x: [Double] = []
        var y: [Double] = []
        for j in 0..<side {
            for i in 0..<side {
                x.append(Double(i) * step)
                y.append(Double(j) * step)
            }
        }
        return (x, y)
    }

    /// The rows of that grid's points over columns and rows `range`, and the edges joining them
    /// along the grid and by one diagonal per cell (so its triangles fill it).
    static func mesh(side: Int, over range: ClosedRange<Int>) -> (rows: [Int], edges: [(Int, Int)]) {
        func index(_ i: Int, _ j: Int) -> Int { j * side + i }
        var rows: [Int] = []
        var edges: [(Int, Int)] = []
        for j in range {
            for i in range {
                rows.append(index(i, j))
                if i < range.upperBound { edges.append((index(i, j), index(i + 1, j))) }
                if j < range.upperBound { edges.append((index(i, j), index(i, j + 1))) }
                if i < range.upperBound && j < range.upperBound { edges.append((index(i, j), index(i + 1, j + 1))) }
            }
        }
        return (rows, edges)
    }

    /// A region of keyword 0 whose members are the given input rows, all matching, with the given
    /// skeleton edges (input rows), spacing and rank.
    func region(rows: [Int], edges: [(Int, Int)], spacing: Double, rank: Int) -> RegionTable.Region {
        let flags = RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag
        var region = RegionTable.Region(
            keyword: 0, members: rows.map { UInt32(position[$0]) },
            memberMatch: [UInt8](repeating: flags, count: rows.count))
        region.rank = rank
        region.spacing = spacing
        region.edges = edges.map { (UInt32(position[$0.0]), UInt32(position[$0.1])) }
        return region
    }

    /// The table's polygons and the regions dropped, built as the hulls stage builds them.
    func build(_ table: RegionTable, with builder: RegionPolygonBuilder) throws -> (
        polygons: [RegionPolygonBuilder.Polygon], dropped: Int
    ) {
        try builder.build(
            table: table, points: projected.points, crs: projected.choice.definition,
            crsIsLocal: projected.choice.isLocal)
    }

    /// A written polygon back in the frame's metres: a Polygon, or a MultiPolygon of its parts.
    func planar(_ polygon: RegionPolygonBuilder.Polygon, geos: GEOSContext) throws -> GEOSGeometry {
        var parts: [GEOSGeometry] = []
        for part in polygon.polygons {
            let rings = try part.map { ring -> (x: [Double], y: [Double]) in
                var rx = ring.lon
                var ry = ring.lat
                XCTAssertEqual(try toLonLat.transform(x: &rx, y: &ry, inverse: true), [])
                return (rx.map { $0 - Self.origin.east }, ry.map { $0 - Self.origin.north })
            }
            parts.append(try geos.polygon(rings: rings))
        }
        return parts.count == 1 ? parts[0] : try geos.collection(GEOS_MULTIPOLYGON, of: parts)
    }
}
