import Foundation
import RegionSearchCore

extension StreetBands {
    /// The streets with those that continue each other round a corner joined into one.
    ///
    /// The search (``streets(x:y:member:)``) finds straight runs: a dining street that bends by
    /// 30–60° at a corner is two of them, each a street by every rule, with their ends near the
    /// corner. A person draws one street round the corner; two regions of half its length each
    /// match it at IoU 0.3–0.5 (the strips cases, EXPERIMENTS.md).
    ///
    /// Two streets continue each other at an end of each when the way out of the first at its end
    /// and into the second at its end turns by at most ``maximumTurn``, and
    /// - they turn by at least ``minimumCornerTurn``, and each end is at most `gap` + `halfWidth`
    ///   from the corner, the point where their lines meet: each run stops where the street leaves
    ///   its band or thins out, up to a gap short of the corner, and its end can lie a half-width
    ///   off its line (a POI beside the street, or the other street's first POIs, which its band
    ///   still holds); or
    /// - they turn by less, are one line (each end within `halfWidth` of the other street's line)
    ///   and the hop between their ends is at most `gap`, the most a run bridges.
    ///
    /// Parallel streets a block apart are no line and have no corner near their ends, and two
    /// streets that cross, meet at a right angle, or where one ends at the other's middle, are not
    /// joined either.
    ///
    /// Greedily, the shortest hop between the ends first (ties by street and end): each end joins
    /// at most once and a chain never closes on itself, so a street bending twice is three streets
    /// joined into one. A joined street's p-value is the largest of its streets' (each is a street
    /// by itself; the join adds no evidence it would need); its length is theirs plus, at each
    /// join, the way from one end to the corner and on to the other end (the hop between them
    /// where they are one line).
    func joinedRoundCorners(_ streets: [Street], x: [Double], y: [Double]) -> [Street] {
        guard streets.count >= 2 else { return streets }
        let cosTurn = cos(Self.maximumTurn)
        let sinCorner = sin(Self.minimumCornerTurn)
        /// End `e` (0: the first member, 1: the last) of street `s`, and the unit heading out of
        /// the street there.
        func end(_ s: Int, _ e: Int) -> (x: Double, y: Double, dx: Double, dy: Double) {
            let members = streets[s].members
            let (a, b) = e == 0 ? (members[members.count - 1], members[0]) : (members[0], members[members.count - 1])
            let (dx, dy) = (x[b] - x[a], y[b] - y[a])
            let length = (dx * dx + dy * dy).squareRoot()
            return length > 0 ? (x[b], y[b], dx / length, dy / length) : (x[b], y[b], 0, 0)
        }
        let ends = streets.indices.map { s in [end(s, 0), end(s, 1)] }
        var joins: [(hop: Double, a: Int, ea: Int, b: Int, eb: Int, way: Double)] = []
        for a in 0..<streets.count {
            for b in (a + 1)..<streets.count {
                for ea in 0...1 {
                    for eb in 0...1 {
                        let (p, q) = (ends[a][ea], ends[b][eb])
                        // Out of a, into b (b's heading out of its end, reversed).
                        guard p.dx * -q.dx + p.dy * -q.dy >= cosTurn else { continue }
                        let (hx, hy) = (q.x - p.x, q.y - p.y)
                        let hop = (hx * hx + hy * hy).squareRoot()
                        // sin of the turn, signed: the lines meet where p + s (dx, dy) = q + t (dx', dy').
                        let cross = p.dx * q.dy - p.dy * q.dx
                        if abs(cross) >= sinCorner {
                            let s = (hx * q.dy - hy * q.dx) / cross
                            let t = (hx * p.dy - hy * p.dx) / cross
                            guard abs(s) <= gap + halfWidth, abs(t) <= gap + halfWidth else { continue }
                            joins.append((hop, a, ea, b, eb, abs(s) + abs(t)))
                        } else {
                            // One line: each end within a half-width of the other's line.
                            guard hop <= gap, abs(hx * p.dy - hy * p.dx) <= halfWidth,
                                abs(hx * q.dy - hy * q.dx) <= halfWidth
                            else { continue }
                            joins.append((hop, a, ea, b, eb, hop))
                        }
                    }
                }
            }
        }
        guard !joins.isEmpty else { return streets }
        joins.sort { ($0.hop, $0.a, $0.ea, $0.b, $0.eb) < ($1.hop, $1.a, $1.ea, $1.b, $1.eb) }
        // next[s][e]: the street (and its end) that end e of street s is joined to, and the way
        // between the two ends.
        var next = [[(street: Int, end: Int, way: Double)?]](repeating: [nil, nil], count: streets.count)
        var chains = UnionFind(count: streets.count)
        for j in joins where next[j.a][j.ea] == nil && next[j.b][j.eb] == nil {
            guard chains.union(Int32(j.a), Int32(j.b)).joined else { continue }
            next[j.a][j.ea] = (j.b, j.eb, j.way)
            next[j.b][j.eb] = (j.a, j.ea, j.way)
        }
        var done = [Bool](repeating: false, count: streets.count)
        var out: [Street] = []
        for s in 0..<streets.count where !done[s] {
            // Walk back to the chain's first street (an end joined to nothing), then forward.
            var (first, entry) = (s, 0)
            while let previous = next[first][entry] {
                (first, entry) = (previous.street, 1 - previous.end)
            }
            var joined = Street(members: [], pValue: 0, length: 0)
            var (current, from) = (first, entry)
            while true {
                done[current] = true
                let street = streets[current]
                joined.members += from == 0 ? street.members : street.members.reversed()
                joined.pValue = max(joined.pValue, street.pValue)
                joined.length += street.length
                guard let following = next[current][1 - from] else { break }
                joined.length += following.way
                (current, from) = (following.street, following.end)
            }
            out.append(joined)
        }
        return out
    }

    /// The most a street turns where it is joined round a corner (``StreetRunOn/maxTurn``: a
    /// street bends by 20–60° at a corner).
    static let maximumTurn = StreetRunOn.maxTurn
    /// Below this turn two streets have no corner to meet at: they are one line or none.
    static let minimumCornerTurn = 10.0 * Double.pi / 180
}
