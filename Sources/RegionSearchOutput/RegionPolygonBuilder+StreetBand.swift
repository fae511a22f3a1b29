import CGEOS
import Foundation
import RegionSearchCore
import RegionSearchModel

extension RegionPolygonBuilder {
    /// The share of a street's members its band must hold to be drawn as one (rule 3a).
    static let streetBandShare = ShapeCheck.insideLimit
    /// The fewest members a street is drawn as a band from: fewer do not fix a line and a width.
    static let streetMinimumMembers = 12

    /// A region that is a street drawn as a person draws a street (rule 3a): a band along its
    /// centre line, as wide as its members spread across it, from its first member to its last;
    /// nil when the region is not a street, the band would leave more than a tenth of its members
    /// out, or the centre line turns back. (The caller keeps the grown skeleton when the band holds
    /// more empty ground.)
    ///
    /// The centre line is the region's ``StreetSpine`` over its skeleton edges (the longest path of
    /// their minimum spanning tree, smoothed over five nodes), run on at each end to where the end
    /// member lies along it. The band reaches the spine's half-width (twice the members' median
    /// distance from the centre line: the street's half-width when they are spread evenly across
    /// it) plus the margin on either side, with round ends. The region is a street when the centre
    /// line is at least `street_aspect` times as long as the band (without the margin) is wide. The
    /// grown skeleton draws such a region as its members' zigzag with bulges where two stand side
    /// by side and arms to the one a little off the line; a person draws the street.
    func streetBand(
        _ region: RegionTable.Region, members: [UInt32], x: [Double], y: [Double], margin: Double, geos: GEOSContext
    ) throws -> GEOSGeometry? {
        guard options.streetAspect > 0, !options.concave, !region.edges.isEmpty,
            members.count >= Self.streetMinimumMembers
        else { return nil }
        var position: [UInt32: Int] = [:]
        for (p, v) in members.enumerated() { position[v] = p }
        var edges: [(a: Int, b: Int, length: Double)] = []
        for (a, b) in region.edges {
            guard let pa = position[a], let pb = position[b], pa != pb else { continue }
            let length = hypot(x[pa] - x[pb], y[pa] - y[pb])
            if length > 0 { edges.append((pa, pb, length)) }
        }
        guard
            let spine = StreetSpine(x: x, y: y, edges: edges, minimumHalfWidth: options.minExtent / 4),
            spine.isStreet(aspect: options.streetAspect)
        else { return nil }
        // The centre line run on to the end members' positions along it.
        var line = spine.centre
        for (tip, atStart) in [(spine.path.first!, true), (spine.path.last!, false)] {
            let (end, next) = atStart ? (line[0], line[1]) : (line[line.count - 1], line[line.count - 2])
            let (dx, dy) = (end.x - next.x, end.y - next.y)
            let l = hypot(dx, dy)
            guard l > 0 else { continue }
            let along = ((x[tip] - end.x) * dx + (y[tip] - end.y) * dy) / l
            guard along > 0 else { continue }
            let extended = (x: end.x + along * dx / l, y: end.y + along * dy / l)
            if atStart { line[0] = extended } else { line[line.count - 1] = extended }
        }
        // A street: nine in ten members lie in a band `street_aspect` times as long as it is wide
        // (a block with restaurants on both frontages has a long spine along one of them, and
        // the members on the other lie a block's depth from it).
        // Both tests count members by their distance from the line, so each member's distance
        // is only looked at against the two limits, and the count stops as soon as either test
        // has failed: a district's wandering spine passes the spine's own test, and measuring
        // every one of its tens of thousands of members against every vertex was most of the
        // hulls stage's time for a keyword on half a city's POIs.
        guard spine.length >= options.streetAspect * 2 * spine.halfWidth else { return nil }
        let count = members.count
        // The nine-in-ten member (the sorted distances' index below) must lie within the band.
        let ninth = Int((Self.streetBandShare * Double(count - 1)).rounded(.up))
        let reach = spine.halfWidth + margin
        var beyondBand = 0
        var outside = 0
        for k in 0..<count {
            let (inBand, inReach) = Self.within(
                x[k], y[k], line: line, band: { spine.length >= options.streetAspect * 2 * $0 }, reach: reach)
            if !inBand {
                beyondBand += 1
                if beyondBand > count - 1 - ninth { return nil }
            }
            if !inReach {
                outside += 1
                if Double(count - outside) < Self.streetBandShare * Double(count) { return nil }
            }
        }
        // A street does not turn back: a centre line that comes back towards itself goes around
        // a block or a square (its members line the frontages, ground a person draws whole), or
        // through a few POIs scattered along a curve.
        if StreetSpine.turnsBack(line, beyond: 2 * reach) { return nil }
        return try geos.lineString(x: line.map(\.x), y: line.map(\.y)).buffer(reach, quadrantSegments: 4)
    }

    /// Whether a point's distance d from a polyline passes `band(d)` (a test that holds for
    /// every distance up to some limit) and whether d ≤ `reach`: the same answers as from d
    /// itself, with the search over the segments stopped once both hold.
    static func within(
        _ px: Double, _ py: Double, line: [(x: Double, y: Double)], band: (Double) -> Bool, reach: Double
    ) -> (band: Bool, reach: Bool) {
        var best = Double.infinity
        for k in 0..<(line.count - 1) {
            best = min(best, StreetSpine.distance(px, py, toSegment: line[k], line[k + 1]))
            if best <= reach && band(best) { return (true, true) }
        }
        return (band(best), best <= reach)
    }
}
