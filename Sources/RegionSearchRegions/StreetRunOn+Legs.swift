import Foundation
import RegionSearchCore
import RegionSearchGraph

extension StreetRunOn {
    /// A leg reaches at most this many step reaches (``reach``) ahead of the run's end.
    ///
    /// Where a dining street's restaurants thin out for good (a bent strip's second leg holds 6–9
    /// of its restaurants 80–100 m apart), one step's band holds 4 or 5 of them: so few cannot
    /// reach ``alpha`` once the directions are counted, although together they stand out clearly
    /// (EXPERIMENTS.md, "a whole leg at once"). Three reaches hold the leg of every strip and
    /// frontage the step test lost on the tuning seeds (two and four gave the same regions).
    static let legReach = 3.0
    /// A leg takes at least this many keyword POIs, or none.
    static let legMinimum = 3
    /// A leg continues only a street at most this wide to either side, metres (a street's
    /// half-width is twice its members' median offset from its centre line). A district's or a
    /// downtown's set can have a long spine for its width and street ends, and a leg from it
    /// would grow an arm along any line of its keyword (Chicago's downtown fast food grew one
    /// 1.4 km long); at the scale of a continent a line of heliports is no street.
    static let legHalfWidth = 50.0

    /// The leg ahead of `run`'s end where the step test found nothing: the keyword POIs of the
    /// street's continuation over its whole length, judged as one window.
    ///
    /// The directions tried run from the end towards each keyword POI ahead, turned by at most
    /// ``maxTurn`` from the run's heading: a band a few metres wide and a kilometre long needs
    /// directions finer than a step's 5°, and a leg's line runs through its own POIs. In each, the
    /// keyword POIs the set does not hold, in the band of the street's half-width up to
    /// ``legReach`` reaches ahead, are taken in order along it while each hop is at most
    /// ``streetGap`` of the run's gaps through POIs of any kind all along the way
    /// (``continuous(from:to:kg:near:halfWidth:spacing:linked:support:)``, a step's test for its
    /// longer hops; a hop within the gap alone is not enough here: a line of cafés 120 m apart in
    /// open ground, with no street under it, is no street going on) — never across a river or a
    /// park — passing over a keyword POI the POI graph does not link to the end that is not along
    /// the street (as a step does), up to the first linked one that is not, or the first member of
    /// another set (left to the run's next step, which may reach it and join the two). Each prefix
    /// of at least ``legMinimum`` is judged: its count against the keyword's density over the
    /// band's area up to its last POI must reach ``alpha`` (Poisson; the directions that do not
    /// overlap at that length and the lengths tried counted as windows). The keyword's density is
    /// its reference where the run started (1 / typical spacing², the run's reach) or, where
    /// higher, that of its POIs around within the leg's reach that the set does not hold: a leg
    /// must stand out from the ground it crosses, not only from the city (judged against the
    /// reference alone, legs along the restaurants of a district gave blocks s301 four finer
    /// regions more, and an earlier form of this search took a line of seven background restaurants
    /// 50° aside from a strip's end, strips s11).
    ///
    /// Only from a street at most ``legHalfWidth`` wide. Returns the most significant leg (on a
    /// tie, the one in the direction of the smaller turn, then of the POI first in the keyword
    /// graph) with its heading, or nil. `stamp` and `round` mark the POIs linked to the end, as
    /// for a step.
    func leg(
        _ run: Walk, set: Int32, kg: KeywordGraph, setGap: [Double], claimed: [Int32], support: inout PathSupport,
        stamp: inout [UInt32], round: inout UInt32
    ) -> (taken: [Int32], heading: Double)? {
        let halfWidth = run.halfWidth
        // A band of no width (a perfectly straight street where `min_spacing_m` is 0) holds nothing.
        guard halfWidth > 0, halfWidth <= Self.legHalfWidth else { return nil }
        let geometry = kg.geometry
        let typical = run.reach / Self.reach
        let length = Self.legReach * run.reach
        let (ex, ey) = geometry.point(run.from)
        markLinked(around: Int(geometry.subset[run.from]), ex, ey, radius: length, stamp: &stamp, round: &round)
        let near = support.within(length, of: ex, ey)
        // The keyword POIs around that the set does not hold, as offsets from the end.
        var around: [(position: Int32, dx: Double, dy: Double)] = []
        for v in near {
            guard let q = geometry.position(of: v), claimed[q] != set else { continue }
            around.append((Int32(q), x[Int(v)] - ex, y[Int(v)] - ey))
        }
        guard around.count >= Self.legMinimum else { return nil }
        let density = max(1 / (typical * typical), Double(around.count) / (Double.pi * length * length))
        // The spacing of all POIs around, for the hops' test of POIs all along the way (as a step's).
        let spacing = (Double.pi * length * length / Double(max(1, near.count))).squareRoot()
        // The directions tried: towards each keyword POI ahead, turned by at most `maxTurn` (a
        // band a few metres wide and a kilometre long needs directions finer than a step's;
        // a leg's line runs through its own POIs).
        var directions: [(turn: Double, position: Int32, heading: Double)] = []
        for (q, dx, dy) in around where hypot(dx, dy) > 0 {
            let heading = atan2(dy, dx)
            let turn = remainder(heading - run.heading, 2 * Double.pi)
            guard abs(turn) <= Self.maxTurn else { continue }
            directions.append((abs(turn), q, heading))
        }
        // The smaller turn first, then the keyword position: on a tie in p the first found wins.
        directions.sort { ($0.turn, $0.position) < ($1.turn, $1.position) }
        var best: (p: Double, heading: Double, taken: [Int32])? = nil
        // Whether a hop is along the street depends only on its two ends here (the band, the
        // spacing and the POIs around are the leg's): each is judged once, not in every direction
        // that holds it.
        var alongStreetCache: [UInt64: Bool] = [:]
        for (_, _, heading) in directions {
            let (ux, uy) = (cos(heading), sin(heading))
            var ahead: [(along: Double, position: Int32)] = []
            for (q, dx, dy) in around {
                let along = dx * ux + dy * uy
                guard along > 0, along <= length else { continue }
                if abs(dy * ux - dx * uy) <= halfWidth { ahead.append((along, q)) }
            }
            ahead.sort { ($0.along, $0.position) < ($1.along, $1.position) }
            var taken: [Int32] = []
            var last = Int32(run.from)
            for (along, q) in ahead {
                let (lx, ly) = geometry.point(Int(last))
                let (qx, qy) = geometry.point(Int(q))
                let hop = hypot(qx - lx, qy - ly)
                let limit = claimed[Int(q)] >= 0 ? min(run.gap, setGap[Int(claimed[Int(q)])]) : run.gap
                let linked = stamp[Int(geometry.subset[Int(q)])] == round
                let key = UInt64(UInt32(bitPattern: last)) << 32 | UInt64(UInt32(bitPattern: q))
                let alongStreet: Bool
                if let known = alongStreetCache[key] {
                    alongStreet = known
                } else {
                    alongStreet =
                        hop <= min(run.reach, Self.streetGap * limit)
                        && continuous(
                            from: last, to: q, kg: kg, near: near, halfWidth: halfWidth, spacing: spacing,
                            linked: linked, support: &support)
                    alongStreetCache[key] = alongStreet
                }
                if !alongStreet && !linked { continue }
                // A member of another set ends the leg before it (the run's next step may reach it).
                guard alongStreet, claimed[Int(q)] < 0 else { break }
                taken.append(q)
                last = q
                let k = taken.count
                guard k >= Self.legMinimum else { continue }
                // The directions that do not overlap at this length, and the lengths tried.
                let windows = max(1, Int((2 * Self.maxTurn / (2 * atan(2 * halfWidth / along))).rounded(.up)))
                let p = Significance.densityPValue(
                    k: k, expected: density * 2 * halfWidth * along, windows: windows * ahead.count)
                if p <= Self.alpha, best.map({ p < $0.p }) ?? true {
                    best = (p, heading, taken)
                }
            }
        }
        return best.map { ($0.taken, $0.heading) }
    }
}
