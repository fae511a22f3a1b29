import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchOutput

/// The thresholds of the per-region checks and of member recall (docs/EVALUATE.md, "Region
/// checks" and "Member recall").
public struct CheckOptions: Sendable, Equatable {
    /// A keyword POI's spacing is the distance to its k-th nearest other keyword location.
    public var spacingK = 5
    /// A region's spacing below this many metres counts as this much (`regions.min_spacing_m`):
    /// below it the discs would measure geocoding noise — the units of one building a metre
    /// apart — not empty ground.
    public var minSpacing = 5.0
    /// Discs of this many spacings around each keyword POI; what they leave of the polygon is empty.
    public var discFactor = 2.0
    /// A region is flagged when its empty share is above this.
    public var emptyLimit = 0.1
    /// A region is flagged when its area (m²) is above this.
    public var maxArea = 5e6
    /// A truth item is found when at least this share of its members lies in regions of its keyword.
    public var foundShare = 0.5
    /// A region is a fragment of a found item when it holds at least max(`fragmentMinimum`,
    /// `fragmentShare` × members) of the item's members.
    public var fragmentShare = 0.1
    public var fragmentMinimum = 2

    /// Vertices of the polygon standing in for each disc; its radius is enlarged so that its area
    /// equals the disc's (an isolated disc's area is exact, a union's is off by well under 0.1 %).
    static let discSegments = 64

    public init() {}

    public var json: JSONValue {
        .object([
            ("spacing_k", .number(Double(spacingK))), ("min_spacing_m", .number(minSpacing)),
            ("disc_factor", .number(discFactor)),
            ("empty_limit", .number(emptyLimit)), ("max_area_m2", .number(maxArea)),
            ("found_share", .number(foundShare)), ("fragment_share", .number(fragmentShare)),
            ("fragment_minimum", .number(Double(fragmentMinimum))),
        ])
    }
}

/// The checks of one region against its keyword's POIs: how many lie inside, their spacing, the
/// share of the polygon that is far from all of them (empty share), the area and density.
public struct RegionCheck: Sendable, Equatable {
    public var regionID: JSONValue
    public var keyword: String
    /// Polygon area, m² in the evaluation CRS.
    public var area: Double
    /// POIs matching the keyword inside the polygon (boundary included), and their distinct locations.
    public var keywordPOIs: Int
    public var keywordLocations: Int
    /// Median over the keyword POIs inside of the distance to their k-th nearest other keyword
    /// location (among all the keyword's POIs); nil without POIs inside or when the keyword has
    /// no more than k locations.
    public var spacing: Double?
    /// Share of the area farther than `discFactor` × spacing from every keyword POI inside; 1
    /// when no keyword POI is inside; nil when the spacing is undefined or the area is 0.
    public var emptyShare: Double?

    /// Keyword POIs inside per km² (nil for a polygon without area).
    public var density: Double? { area > 0 ? Double(keywordPOIs) / (area / 1e6) : nil }

    /// The same checks over a group of regions.
    public struct Summary: Sendable, Equatable {
        /// Regions checked (regions with a keyword).
        public var regions = 0
        public var maxEmptyShare: Double?
        /// Regions whose empty share is above the limit / whose area is above the maximum.
        public var overEmptyLimit = 0
        public var overArea = 0
        /// Regions whose empty share is undefined.
        public var undefined = 0

        init(_ checks: [RegionCheck], options: CheckOptions) {
            for c in checks {
                regions += 1
                if let e = c.emptyShare {
                    maxEmptyShare = max(maxEmptyShare ?? 0, e)
                    if e > options.emptyLimit { overEmptyLimit += 1 }
                } else {
                    undefined += 1
                }
                if c.area > options.maxArea { overArea += 1 }
            }
        }
    }

    /// Checks every region that has a keyword (wildcard regions have no keyword POIs: nil).
    static func check(
        regions: [EvaluationLayer.Item], pois: LocatedPOIs, options: CheckOptions, context: GEOSContext
    ) throws -> [RegionCheck?] {
        var out = [RegionCheck?](repeating: nil, count: regions.count)
        let labels = Set(regions.compactMap(\.keyword)).sorted(by: codePointOrder)
        for label in labels {
            let matching = pois.matching(pois.matcher(label))
            let members = (0..<pois.count).filter { matching[$0] }
            let index = LocationIndex(x: members.map { pois.x[$0] }, y: members.map { pois.y[$0] })
            // Spacing per keyword POI, computed once even when regions overlap.
            var spacing = [Double?](repeating: nil, count: members.count)
            var known = [Bool](repeating: false, count: members.count)
            for (j, region) in regions.enumerated() where region.keyword == label {
                var inside: [Int] = []
                if let e = region.envelope, region.area > 0 {
                    let prepared = try region.geometry.prepared()
                    for (m, p) in members.enumerated() where e.contains(x: pois.x[p], y: pois.y[p]) {
                        if try prepared.covers(x: pois.x[p], y: pois.y[p]) { inside.append(m) }
                    }
                }
                var values: [Double] = []
                for m in inside {
                    if !known[m] {
                        spacing[m] = index.kthNearestOther(
                            x: pois.x[members[m]], y: pois.y[members[m]], k: options.spacingK)
                        known[m] = true
                    }
                    if let s = spacing[m] { values.append(s) }
                }
                let median = Self.median(values).map { max($0, options.minSpacing) }
                var locations: [(Double, Double)] = inside.map { (pois.x[members[$0]], pois.y[members[$0]]) }
                locations.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
                var distinct: [(Double, Double)] = []
                for l in locations where distinct.last.map({ $0 != l }) ?? true { distinct.append(l) }
                var empty: Double?
                if region.area > 0 {
                    if inside.isEmpty {
                        empty = 1
                    } else if let median {
                        empty = try Self.emptyShare(
                            region.geometry, area: region.area, centres: distinct, radius: options.discFactor * median,
                            context: context)
                    }
                }
                out[j] = RegionCheck(
                    regionID: region.id, keyword: label, area: region.area, keywordPOIs: inside.count,
                    keywordLocations: distinct.count, spacing: median, emptyShare: empty)
            }
        }
        return out
    }

    /// area(polygon − ∪ discs) / area(polygon), the discs as equal-area 64-gons.
    static func emptyShare(
        _ polygon: GEOSGeometry, area: Double, centres: [(Double, Double)], radius: Double, context: GEOSContext
    ) throws(GEOSError) -> Double {
        guard area > 0 else { return 0 }
        guard radius > 0, !centres.isEmpty else { return 1 }
        let n = CheckOptions.discSegments
        let step = 2 * Double.pi / Double(n)
        let r = radius * (2 * Double.pi / (Double(n) * sin(step))).squareRoot()
        let unitX = (0..<n).map { cos(Double($0) * step) * r }
        let unitY = (0..<n).map { sin(Double($0) * step) * r }
        var discs: [GEOSGeometry] = []
        discs.reserveCapacity(centres.count)
        for (cx, cy) in centres {
            discs.append(try context.polygon(x: unitX.map { $0 + cx }, y: unitY.map { $0 + cy }))
        }
        let cover = try context.unionAll(discs)
        let left = try polygon.difference(cover).area
        return min(1, max(0, left / area))
    }

    /// The median (mean of the two middle values for an even count); nil when empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }
}
