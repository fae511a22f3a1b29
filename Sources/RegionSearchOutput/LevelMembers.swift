import RegionSearchCore
import RegionSearchModel
import RegionSearchProjection

/// The shape members of every region, by keyword and level and ordered by latitude: the members
/// of the other regions of a region's keyword and level that stand near it (rule 5a of
/// ``RegionPolygonBuilder``).
struct LevelMembers: Sendable {
    struct Member: Sendable {
        var lat: Double
        var lon: Double
        /// Index into the region table.
        var region: Int
        /// Index into the projected points.
        var point: Int
        /// The region's spacing, metres.
        var spacing: Double
    }

    private var byGroup: [SIMD2<Int>: [Member]] = [:]

    init(regions: [RegionTable.Region], points: ProjectedPoints) {
        for (index, region) in regions.enumerated() {
            let group = SIMD2(region.keyword, region.level)
            for v in region.shapeMembers {
                let i = Int(v)
                byGroup[group, default: []].append(
                    Member(lat: points.lat[i], lon: points.lon[i], region: index, point: i, spacing: region.spacing))
            }
        }
        for key in byGroup.keys {
            byGroup[key]!.sort { ($0.lat, $0.lon, $0.region, $0.point) < ($1.lat, $1.lon, $1.region, $1.point) }
        }
    }

    /// The members of regions after `region` in the table (worse-ranked ones of its level) of
    /// keyword and level `group` whose spacing is below `spacing`, with latitude in `lat` and
    /// longitude in `lon` relative to `centre` (normalised to ±180°, so a box across the
    /// antimeridian is one range), in latitude order.
    func later(
        than region: Int, group: SIMD2<Int>, spacing: Double, lat: ClosedRange<Double>, lon: ClosedRange<Double>,
        centre: Double
    ) -> [Member] {
        guard let members = byGroup[group] else { return [] }
        var lo = 0
        var hi = members.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if members[mid].lat < lat.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        var out: [Member] = []
        for m in members[lo...] {
            if m.lat > lat.upperBound { break }
            if m.region > region && m.spacing < spacing && lon.contains(normalizeLongitude(m.lon - centre)) {
                out.append(m)
            }
        }
        return out
    }
}
