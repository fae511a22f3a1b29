import RegionSearchModel
import RegionSearchOutput
import RegionSearchProjection

/// POIs projected into the evaluation CRS.
package struct LocatedPOIs {
    let pois: EvaluationPOIs
    var x: [Double]
    var y: [Double]
    /// False for POIs PROJ could not project (left out and counted).
    var valid: [Bool]
    var failed: Int

    package init(_ pois: EvaluationPOIs, transform: PROJTransform) throws {
        self.pois = pois
        x = pois.lon
        y = pois.lat
        let bad = try transform.transform(x: &x, y: &y)
        valid = [Bool](repeating: true, count: pois.count)
        for i in bad { valid[i] = false }
        failed = bad.count
    }

    var count: Int { x.count }

    /// The convex hull of the valid POIs as an open counter-clockwise ring (Andrew's monotone
    /// chain); nil when fewer than three of them are not on one line.
    var convexHull: (x: [Double], y: [Double])? {
        var points = (0..<count).filter { valid[$0] }.map { (x[$0], y[$0]) }
        points.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        func cross(_ o: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
            (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
        }
        var lower: [(Double, Double)] = []
        for p in points {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 {
                lower.removeLast()
            }
            lower.append(p)
        }
        var upper: [(Double, Double)] = []
        for p in points.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 {
                upper.removeLast()
            }
            upper.append(p)
        }
        let hull = Array(lower.dropLast()) + Array(upper.dropLast())
        guard hull.count >= 3 else { return nil }
        return (hull.map(\.0), hull.map(\.1))
    }

    var input: EvaluationInput {
        var i = pois.input
        if failed > 0 {
            i.skipped += failed
            i.notes.append("\(failed) POI(s) cannot be projected into the evaluation CRS and are left out")
        }
        return i
    }

    /// Which POIs are planted, and how many member ids match no POI.
    func plantedFlags(_ members: PlantedMembers) -> (flags: [Bool], missing: Int) {
        let set = IdentifierSet(members.ids)
        var flags = [Bool](repeating: false, count: count)
        var found = [Bool](repeating: false, count: set.count)
        for p in 0..<count where valid[p] {
            if let k = pois.ids.withUTF8(p, { set.find($0) }) {
                flags[p] = true
                found[k] = true
            }
        }
        return (flags, found.filter { !$0 }.count)
    }

    /// The matcher of a keyword over these POIs' keyword text (with its key table).
    func matcher(_ keyword: String) -> KeywordMatcher { KeywordMatcher(keyword, keys: pois.keywordKeys) }

    /// Which POIs' keyword text matches.
    func matching(_ matcher: KeywordMatcher) -> [Bool] {
        var out = [Bool](repeating: false, count: count)
        for p in 0..<count where valid[p] && pois.keywordText.withUTF8(p, { matcher.matches($0) }) { out[p] = true }
        return out
    }

    /// Which POIs (of those with `filter[p]`, or all) lie in the indexed area.
    func covered(by index: PointCoverIndex, where filter: [Bool]?) throws -> [Bool] {
        var out = [Bool](repeating: false, count: count)
        for p in 0..<count where valid[p] && (filter?[p] ?? true) {
            if try index.covers(x: x[p], y: y[p]) { out[p] = true }
        }
        return out
    }
}
