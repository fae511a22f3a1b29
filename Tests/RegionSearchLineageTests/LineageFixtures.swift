import Foundation

@testable import RegionSearchLineage
@testable import RegionSearchOutput

/// Regions made to measure for the lineage tests: squares at known places in metres east and
/// north of a point in Chicago, with members named by number.
enum LineageFixtures {
    static let originLon = -87.63
    static let originLat = 41.88
    static let metresPerDegreeLat = LocalPlane.radius * Double.pi / 180
    static var metresPerDegreeLon: Double { metresPerDegreeLat * cos(originLat * Double.pi / 180) }

    /// A square `side` metres wide centred `east`/`north` metres from the origin (counter-clockwise).
    static func square(east: Double, north: Double, side: Double) -> [[GeoJSONWriter.Ring]] {
        let h = side / 2
        let xs = [east - h, east + h, east + h, east - h, east - h]
        let ys = [north - h, north - h, north + h, north + h, north - h]
        return [
            [
                GeoJSONWriter.Ring(
                    lon: xs.map { originLon + $0 / metresPerDegreeLon },
                    lat: ys.map { originLat + $0 / metresPerDegreeLat }
                )
            ]
        ]
    }

    static func region(
        _ id: Int, keyword: String = "restaurant", level: Int = 0, rank: Int = 1, parent: Int? = nil,
        members: ClosedRange<Int>?, east: Double, north: Double, side: Double
    ) -> TrackedRegion {
        let keys = members.map { r in r.map { "poi\($0)" } } ?? []
        return TrackedRegion(
            id: id, keyword: keyword, level: level, rank: rank, parentID: parent,
            members: TrackedRegion.canonicalMembers(keys), keywordPOIs: members?.count ?? 0, areaM2: side * side,
            polygons: square(east: east, north: north, side: side))
    }

    /// A region of explicit members (for splits and merges by POI).
    static func region(
        _ id: Int, keys: [Int], level: Int = 0, rank: Int = 1, east: Double, north: Double, side: Double
    ) -> TrackedRegion {
        TrackedRegion(
            id: id, keyword: "restaurant", level: level, rank: rank, parentID: nil,
            members: TrackedRegion.canonicalMembers(keys.map { "poi\($0)" }), keywordPOIs: keys.count,
            areaM2: side * side, polygons: square(east: east, north: north, side: side))
    }

    static func state(_ regions: [TrackedRegion], highWaterMark: Int? = nil, result: String = "night-1")
        -> LineageState
    {
        LineageState(
            highWaterMark: highWaterMark ?? regions.map(\.id).max() ?? 0, result: result, regions: regions,
            previous: nil)
    }
}
