import RegionSearchModel
import RegionSearchProjection

/// POIs projected into the evaluation CRS.
struct LocatedPOIs {
    let pois: EvaluationPOIs
    var x: [Double]
    var y: [Double]
    /// False for POIs PROJ could not project (left out and counted).
    var valid: [Bool]
    var failed: Int

    init(_ pois: EvaluationPOIs, transform: PROJTransform) throws {
        self.pois = pois
        x = pois.lon
        y = pois.lat
        let bad = try transform.transform(x: &x, y: &y)
        valid = [Bool](repeating: true, count: pois.count)
        for i in bad { valid[i] = false }
        failed = bad.count
    }

    var count: Int { x.count }

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
