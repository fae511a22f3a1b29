import Foundation

/// Streets inside a region: straight runs of its keyword POIs along a narrow band, denser than the
/// ground right beside them (``DensityHierarchy``, rule 5).
///
/// A dining street through a downtown is a line of restaurants through blocks that hold
/// restaurants too. By the density bands the hierarchy cuts, which are round, it is not much
/// denser than the blocks around it, and its restaurants belong to the downtown and to one or more
/// of its districts; a person still draws the street. What sets it apart is its band: along it,
/// the keyword's POIs stand far closer together than in the bands either side.
///
/// The search looks along every direction (``directions`` over 180°) and, across it, at bands
/// `2 halfWidth` wide set every `halfWidth / 2`. Along a band the region's POIs form runs, broken
/// where two consecutive ones stand more than `gap` apart. A run of at least ``minimumPOIs``
/// POIs, at least `aspect` times as long as its band is wide, is tested against the keyword's POIs
/// (the region's and any others) in the two bands of the same width beside it over the run's
/// length, the denser of the two counted for both (`f` = twice its count): with no street there,
/// the `k` POIs of the run and those `f` would lie anywhere in the three bands,
/// `k ~ Binomial(k + f, 1/3)`. Its p-value is that upper tail times the directions and the region's
/// POIs (the places such a band could be centred on, a Bonferroni bound), and it is a street at
/// ``alpha``. A comparison with the ground on either side of the band, not with the region's
/// average: a round cluster inside the region is as dense beside any band through it, and the edge
/// of a region along a river or a park, empty on one side, is no denser than the region on its
/// other side.
///
/// A run must be at least twice as dense as the denser band beside it (with hundreds of POIs a
/// band through the middle of a peaked cluster is significantly denser than its sides, by a
/// fifth), and denser than either band beside it in each half of its length: a band
/// through a round cluster is denser than its sides only where it crosses the cluster. Besides
/// each run between gaps, its stretch that stands out most from its sides is tested (a street
/// through a district is one run with the district's POIs along the same line beyond its ends).
///
/// Bands of ``widths`` widths are searched (``halfWidths``: each √2 times the one before), and
/// the bound counts them all. One frontage of restaurants fills the narrowest band; the two
/// frontages of a wide avenue, 100–130 m apart, fill a wider one. A wider band can also hold a
/// narrow street with the ground beside it, or a round cluster whole, so a run in it must pass
/// three more rules: it is at least ``widerBandDensityShare`` as dense as the densest narrower
/// band across its POIs, and what it adds to that band is a line along it
/// (``addedLineShare``); half of its POIs span at least half the least length of a street in
/// its band; and it is denser than either side in each quarter of its length.
///
/// The streets are then taken greedily, the most significant first (then the most POIs, then the
/// shorter; ties by direction, band and the narrower band): a run that shares POIs with one taken is judged again on
/// the POIs left to it, so one street is found once; a street crossing one taken first keeps what
/// is left of it, when that is still a street. Deterministic: nothing depends on hashing or
/// thread count.
struct StreetBands {
    /// Half the width of a street's band, in metres.
    var halfWidth: Double
    /// A run breaks where two consecutive POIs along it stand farther apart than this, in metres.
    var gap: Double
    /// A street is at least this many times as long as its band is wide.
    var aspect: Double
    /// How many band widths are searched: `halfWidth`, then each √2 times the one before. One
    /// frontage of restaurants fills a narrow band; a wide avenue with restaurants on both frontages
    /// fills none of it, and a band twice as wide holds both.
    var widths = 1

    /// The half-widths searched, narrowest first: `halfWidth` times powers of √2, made by square
    /// roots and doublings only, so the same on every platform.
    var halfWidths: [Double] {
        let root2 = 2.0.squareRoot()
        var out: [Double] = []
        var even = halfWidth
        for k in 0..<max(1, widths) {
            out.append(k % 2 == 0 ? even : even * root2)
            if k % 2 == 1 { even *= 2 }
        }
        return out
    }

    /// A run in a wider band is a street only when it is at least this share as dense as the
    /// densest narrower band over its POIs (its POIs over its band's width): 2^(−1/4), the
    /// geometric mean of what a line of POIs reads in a band √2 times as wide (1/√2) and what an
    /// avenue's two frontages read there (about 1). A narrow street is drawn narrow, not with the
    /// ground's POIs either side of it.
    static let widerBandDensityShare = 0.5.squareRoot().squareRoot()
    /// What a wider band adds to the densest narrower band across a run's POIs (four POIs or more)
    /// spans along it at least this share of what all the run's POIs span (the middle half of
    /// each): an avenue's other frontage runs its whole length, a clump beside a narrow street
    /// does not.
    static let addedLineShare = 0.5

    /// Runs that cannot be twice as dense as the denser band beside them are dropped in the sweep,
    /// before the test counts their sides (false only in tests, which compare the two).
    var prefilter = true

    /// Directions searched over 180° (every 2°).
    static let directions = 90
    /// A street holds at least this many POIs: with fewer, a band through a dense downtown lines
    /// up that many by chance somewhere (the street probe of EXPERIMENTS.md).
    static let minimumPOIs = 12
    /// A run breaks at gaps of this many of the region's spacings (a street runs on past one
    /// missing restaurant, not past a block without any).
    static let gapSpacings = 2.0
    /// The significance a street needs (a Bonferroni bound; the finer levels' false discovery
    /// rate then applies to the streets with the other finer candidates).
    static let alpha = 0.05

    struct Street: Equatable {
        /// Indices into the points searched, in order along the street.
        var members: [Int]
        var pValue: Double
        var length: Double
    }

    private struct Run {
        var members: [Int]
        var direction: Int
        var band: Int
        var length: Double
        var logP: Double
        var halfWidth: Double
    }

    /// One direction's points, in flat lists sorted along it: `binItems[binStart[k] ..< binStart[k + 1]]`
    /// are the points of bin offset k, `bandItems[bandStart[b] ..< bandStart[b + 1]]` the members
    /// in the band of bins b ... b + 3.
    private struct Direction {
        let along: UnsafeBufferPointer<Double>
        let binStart: UnsafeBufferPointer<Int>
        let binItems: UnsafeBufferPointer<Int32>
        let bandStart: UnsafeBufferPointer<Int>
        let bandItems: UnsafeBufferPointer<Int32>
        let width: Int

        /// The first point of bin offset `k` at or beyond `v` along (beyond it, `after`), as an
        /// index into `binItems`.
        func first(_ k: Int, _ v: Double, after: Bool) -> Int {
            var (lo, hi) = (binStart[k], binStart[k + 1])
            while lo < hi {
                let mid = (lo + hi) / 2
                let t = along[Int(binItems[mid])]
                if after ? t <= v : t < v { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        /// The points along [a0, a1] in the bands beside band `b`: the four bins before it and the
        /// four after it.
        func beside(band b: Int, _ a0: Double, _ a1: Double) -> (left: Int, right: Int) {
            var left = 0
            var right = 0
            for k in (b - 4)...(b - 1) where k >= 0 { left += first(k, a1, after: true) - first(k, a0, after: false) }
            for k in (b + 4)...(b + 7) where k < width {
                right += first(k, a1, after: true) - first(k, a0, after: false)
            }
            return (left, right)
        }
    }

    /// The runs of every band (as ranges of `bandItems`) long enough to test, band by band: each
    /// run between gaps, and its stretch that stands out most from the bands beside it (a street
    /// through a district is one run with the district's POIs along the same line beyond its ends,
    /// which dilute it): the most POIs in excess of what the bands beside it hold, each POI beside
    /// counting −1/2 (under no street the band holds half as many as its two sides), by Kadane's
    /// maximum sum over the POIs in order along the band.
    ///
    /// One sweep along the direction over all points (`order`, with each point's bin offset in
    /// `offset`) serves every band at once: the points beside band b that the sweep has passed are
    /// those of the four-bin bands at b − 4 and b + 4, counted as it passes them, where a cursor per
    /// bin beside each band would visit every point eight times.
    private func bandRuns(
        _ v: Direction, order: [(along: Double, index: Int32)], offset: [Int], member: [Bool], halfWidth: Double
    ) -> [(band: Int, i: Int, j: Int)] {
        let width = v.width
        let along = v.along
        let items = v.bandItems
        func long(_ i: Int, _ j: Int) -> Bool {
            j - i >= Self.minimumPOIs && along[Int(items[j - 1])] - along[Int(items[i])] >= aspect * 2 * halfWidth
        }
        // Points passed in the bins c ... c + 3, at c + 4 (c from −4).
        var passedIn = [Int](repeating: 0, count: width + 8)
        var state = (0..<width).map { BandRunState(first: v.bandStart[$0]) }
        var found: [(band: Int, i: Int, j: Int)] = []
        // A run is kept only when it can pass the test's first rule, at least twice as many members
        // as the denser band beside it (``streets(x:y:member:)``): the points beside it that the
        // sweep passed from its first member to its last are at most both sides' count, so at most
        // twice the denser's. Most runs through a district fail there, and are not judged.
        func close(_ b: Int, _ s: BandRunState, at end: Int) {
            guard long(s.runStart, end) else { return }
            let whole = !prefilter || end - s.runStart >= s.besideBefore - s.runBesideStart
            if whole { found.append((b, s.runStart, end)) }
            // The stretch's excess is twice its members less the points beside it passed.
            let stretch = !prefilter || s.bestExcess >= s.bestTo - s.bestFrom
            if (s.bestFrom, s.bestTo) != (s.runStart, end) && long(s.bestFrom, s.bestTo) && stretch {
                found.append((b, s.bestFrom, s.bestTo))
            }
        }
        let gap = self.gap
        state.withUnsafeMutableBufferPointer { state in
            passedIn.withUnsafeMutableBufferPointer { passedIn in
                order.withUnsafeBufferPointer { order in
                    var g = 0
                    while g < order.count {
                        let t = order[g].along
                        var h = g + 1
                        while h < order.count && order[h].along == t { h += 1 }
                        // The members at t first, against the points strictly before t; then those points.
                        for q in g..<h where member[Int(order[q].index)] {
                            let k = offset[Int(order[q].index)]
                            for b in (k - 3)...k {
                                var s = state[b]
                                let m = s.next
                                s.next += 1
                                let beside = passedIn[b] + passedIn[b + 8]
                                if m == v.bandStart[b] || t - s.last > gap {
                                    if m > v.bandStart[b] { close(b, s, at: m) }
                                    s.open(at: m, beside: beside)
                                }
                                s.add(m, beside: beside, at: t)
                                state[b] = s
                            }
                        }
                        for q in g..<h {
                            let k = offset[Int(order[q].index)]
                            for c in (k - 3)...k { passedIn[c + 4] += 1 }
                        }
                        g = h
                    }
                    for b in 0..<width where v.bandStart[b + 1] > v.bandStart[b] {
                        close(b, state[b], at: v.bandStart[b + 1])
                    }
                }
            }
        }
        // Band by band, each band's in the order found (its runs in order, a run's stretch after it).
        var count = [Int](repeating: 0, count: width + 1)
        for r in found { count[r.band + 1] += 1 }
        for b in 0..<width { count[b + 1] += count[b] }
        var ordered = found
        for r in found {
            ordered[count[r.band]] = r
            count[r.band] += 1
        }
        return ordered
    }

    /// A band's place in the sweep of ``bandRuns(_:order:offset:member:)``: its next member (an
    /// index into `bandItems`), its current run and Kadane's maximum sum over that run, in halves
    /// (+2 per member, −1 per point beside), so that it adds up exactly.
    private struct BandRunState {
        var next: Int
        var runStart: Int
        /// The last member's position along the direction.
        var last = 0.0
        /// The points beside the band before the last member.
        var besideBefore = 0
        /// The points beside the band before the run's first member.
        var runBesideStart = 0
        var excess = 0
        var from: Int
        var bestExcess = Int.min
        var bestFrom: Int
        var bestTo: Int

        init(first: Int) {
            (next, runStart, from, bestFrom, bestTo) = (first, first, first, first, first)
        }

        /// A run starts at member `m`, with `beside` points beside the band before it.
        mutating func open(at m: Int, beside: Int) {
            (runStart, excess, from, bestExcess, bestFrom, bestTo) = (m, 0, m, Int.min, m, m)
            (besideBefore, runBesideStart) = (beside, beside)
        }

        /// Member `m` at `t` along, with `beside` points beside the band before it.
        mutating func add(_ m: Int, beside: Int, at t: Double) {
            excess -= beside - besideBefore
            besideBefore = beside
            last = t
            if excess < 0 {
                excess = 0
                from = m
            }
            excess += 2
            if excess > bestExcess { (bestExcess, bestFrom, bestTo) = (excess, from, m + 1) }
        }
    }

    /// Sorts `order` by position along the direction, position breaking ties (a total order, so
    /// any sort gives the same result). From one direction to the next (2° on) a pair of points
    /// changes order only when the line through them turns through the perpendicular: about n² /
    /// 180 pairs, fewer moves than a merge sort's comparisons up to a few thousand points. So
    /// insertion first, and the library's sort once the moves pass n log₂ n.
    static func sortAlong(_ order: inout [(along: Double, index: Int32)], nearlyOrdered: Bool) {
        let n = order.count
        guard n > 1 else { return }
        var budget = nearlyOrdered ? n * (Int.bitWidth - n.leadingZeroBitCount) : -1
        order.withUnsafeMutableBufferPointer { o in
            var i = 1
            while i < n && budget >= 0 {
                let item = o[i]
                var j = i
                while j > 0
                    && (o[j - 1].along > item.along || (o[j - 1].along == item.along && o[j - 1].index > item.index))
                {
                    o[j] = o[j - 1]
                    j -= 1
                }
                o[j] = item
                budget -= i - j
                i += 1
            }
        }
        if budget < 0 { order.sort { ($0.along, $0.index) < ($1.along, $1.index) } }
    }

    /// The cosine and sine of direction `direction` (of ``directions`` over 180°): a point's
    /// position along it is `x c + y s`, across it `−x s + y c`.
    private static func axis(_ direction: Int) -> (c: Double, s: Double) {
        let theta = Double.pi * Double(direction) / Double(directions)
        return (cos(theta), sin(theta))
    }

    /// Whether the POIs `members` of a run in a band `halfWidth` either side of its line (along
    /// `axis`) are at least ``widerBandDensityShare`` as dense as the most of them any narrower
    /// band of `halfWidths` holds, placed anywhere across the same direction.
    private static func asDenseAsNarrowerBands(
        _ members: [Int], halfWidth: Double, of halfWidths: [Double], _ axis: (c: Double, s: Double), _ x: [Double],
        _ y: [Double]
    ) -> Bool {
        let (c, s) = axis
        let points = members.map { (across: -x[$0] * s + y[$0] * c, along: x[$0] * c + y[$0] * s) }
            .sorted { ($0.across, $0.along) < ($1.across, $1.along) }
        // The middle half of POIs `along` spans (its interquartile range).
        func spread(_ along: [Double]) -> Double {
            let t = along.sorted()
            return t[(3 * t.count) / 4] - t[t.count / 4]
        }
        let whole = spread(points.map(\.along))
        for narrower in halfWidths where narrower < halfWidth {
            // The most members within 2 × narrower across, by a window sliding over them.
            var (most, from) = (0, 0)
            var low = 0
            for high in 0..<points.count {
                while points[high].across - points[low].across > 2 * narrower { low += 1 }
                if high - low + 1 > most { (most, from) = (high - low + 1, low) }
            }
            if Double(members.count) / halfWidth < widerBandDensityShare * Double(most) / narrower { return false }
            // What the wider band adds is a line along it too (an avenue's other frontage), not a
            // clump beside the narrower band's street.
            let added = (points[..<from] + points[(from + most)...]).map(\.along)
            if added.count >= 4 && spread(added) < addedLineShare * whole { return false }
        }
        return true
    }

    /// The bin of a point `across` metres across a direction, bins `step` wide.
    private static func bin(_ across: Double, _ step: Double) -> Int { Int((across / step).rounded(.down)) }

    /// The streets among the points (`x`, `y`) with `member` true; the others (the keyword's POIs
    /// round them) count only beside a band.
    func streets(x: [Double], y: [Double], member: [Bool]) -> [Street] {
        let n = x.count
        let members = member.filter { $0 }.count
        guard members >= Self.minimumPOIs, halfWidth > 0, gap > 0 else { return [] }
        let bandHalfWidths = halfWidths
        // Every band of every width is a place a street could be found: all count in the bound.
        let windows = Self.directions * members * bandHalfWidths.count
        var runs: [Run] = []
        var along = [Double](repeating: 0, count: n)
        var bin = [Int](repeating: 0, count: n)
        // Each point's bin offset in the flat lists of the direction (its bin − low + 4).
        var offset = [Int](repeating: 0, count: n)
        // Kept from one direction to the next, 2° on: nearly in order already, which the
        // insertion in `sortAlong` uses.
        var order = (0..<n).map { (along: 0.0, index: Int32($0)) }
        // log P(X ≥ k), X ~ Binomial(n, 1/3), by (k, n): the same counts recur across directions.
        var tails: [Int: Double] = [:]
        // The log of the p-value (not clamped, so runs far beyond any threshold still rank).
        func logPValue(_ k: Int, _ total: Int) -> Double {
            // At most as dense as the bands beside it: no test is needed.
            guard 3 * k > total else { return 0 }
            let key = k << 32 | total
            let tail = tails[key] ?? Significance.logUpperTail(k: k, n: total, p: 1.0 / 3)
            tails[key] = tail
            return tail + Foundation.log(Double(windows))
        }
        // The log p-value of POIs at `t` along the direction (in order), in a band `bandHalfWidth`
        // either side of their line, when they are a street by every rule, against `sides(from, to)`,
        // the points in the bands beside them; nil when they are not: at least twice as dense as
        // the denser side (counted for both), significant, and in each half of their length denser
        // than either side there — in each quarter in a band wider than the narrowest, which can
        // hold a round cluster whole.
        func judged(_ t: [Double], halfWidth bandHalfWidth: Double, sides: (Double, Double) -> (left: Int, right: Int))
            -> Double?
        {
            let pieces = bandHalfWidth > bandHalfWidths[0] ? 4 : 2
            let (a0, a1) = (t[0], t[t.count - 1])
            let (left, right) = sides(a0, a1)
            let beside = 2 * max(left, right)
            guard t.count >= beside else { return nil }
            if pieces == 4 {
                // In a wider band, half of its POIs span at least half the least length of a street
                // in it: a round cluster the band holds whole, with a few POIs of the ground
                // running on from it, is no street.
                guard t[(3 * t.count) / 4] - t[t.count / 4] >= aspect * bandHalfWidth else { return nil }
            }
            let logP = logPValue(t.count, t.count + beside)
            guard logP <= Foundation.log(Self.alpha) else { return nil }
            // The stretches' ends, by halving (the middle, then the middles of the halves).
            let middle = (a0 + a1) / 2
            let ends = pieces == 2 ? [middle, a1] : [(a0 + middle) / 2, middle, (middle + a1) / 2, a1]
            var from = a0
            var counted = 0
            for end in ends {
                var upTo = counted
                while upTo < t.count && t[upTo] <= end { upTo += 1 }
                let (l, r) = sides(from, end)
                guard upTo - counted > max(l, r) else { return nil }
                (counted, from) = (upTo, end.nextUp)
            }
            return logP
        }
        for d in 0..<Self.directions {
            let (c, s) = Self.axis(d)
            along.withUnsafeMutableBufferPointer { along in
                for i in 0..<n { along[i] = x[i] * c + y[i] * s }
            }
            for j in 0..<n { order[j].along = along[Int(order[j].index)] }
            // Every list below is filled in order along the direction (position breaks ties), so
            // each is sorted as it is made.
            Self.sortAlong(&order, nearlyOrdered: d > 0)
            // The bands of each width, from the same order along the direction.
            for hw in bandHalfWidths {
                let step = hw / 2
                var low = Int.max
                var high = Int.min
                bin.withUnsafeMutableBufferPointer { bin in
                    for i in 0..<n {
                        bin[i] = Self.bin(-x[i] * s + y[i] * c, step)
                        low = min(low, bin[i])
                        high = max(high, bin[i])
                    }
                }
                for i in 0..<n { offset[i] = bin[i] - low + 4 }
                // Bins `low − 4 … high + 4` at offset `bin − low + 4`, flat: all points per bin, and the
                // members of each band (four bins from the band's first bin, at that bin's offset).
                let width = high - low + 9
                var binStart = [Int](repeating: 0, count: width + 1)
                var bandStart = [Int](repeating: 0, count: width + 1)
                binStart.withUnsafeMutableBufferPointer { binStart in
                    bandStart.withUnsafeMutableBufferPointer { bandStart in
                        for i in 0..<n {
                            let k = offset[i]
                            binStart[k + 1] += 1
                            if member[i] { for b in (k - 3)...k { bandStart[b + 1] += 1 } }
                        }
                        for k in 0..<width {
                            binStart[k + 1] += binStart[k]
                            bandStart[k + 1] += bandStart[k]
                        }
                    }
                }
                var binItems = [Int32](repeating: 0, count: n)
                var bandItems = [Int32](repeating: 0, count: bandStart[width])
                var binFill = binStart
                var bandFill = bandStart
                binItems.withUnsafeMutableBufferPointer { binItems in
                    bandItems.withUnsafeMutableBufferPointer { bandItems in
                        binFill.withUnsafeMutableBufferPointer { binFill in
                            bandFill.withUnsafeMutableBufferPointer { bandFill in
                                for (_, i) in order {
                                    let k = offset[Int(i)]
                                    binItems[binFill[k]] = i
                                    binFill[k] += 1
                                    guard member[Int(i)] else { continue }
                                    for b in (k - 3)...k {
                                        bandItems[bandFill[b]] = i
                                        bandFill[b] += 1
                                    }
                                }
                            }
                        }
                    }
                }
                along.withUnsafeBufferPointer { along in
                    binStart.withUnsafeBufferPointer { binStart in
                        binItems.withUnsafeBufferPointer { binItems in
                            bandStart.withUnsafeBufferPointer { bandStart in
                                bandItems.withUnsafeBufferPointer { bandItems in
                                    let view = Direction(
                                        along: along, binStart: binStart, binItems: binItems, bandStart: bandStart,
                                        bandItems: bandItems, width: width)
                                    for (b, i, j) in bandRuns(
                                        view, order: order, offset: offset, member: member, halfWidth: hw)
                                    {
                                        let t = bandItems[i..<j].map { along[Int($0)] }
                                        let (a0, a1) = (t[0], t[t.count - 1])
                                        guard
                                            let logP = judged(
                                                t, halfWidth: hw,
                                                sides: { view.beside(band: b, $0, $1) })
                                        else { continue }
                                        runs.append(
                                            Run(
                                                members: bandItems[i..<j].map { Int($0) }, direction: d,
                                                band: b + low - 4, length: a1 - a0, logP: logP, halfWidth: hw))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // The most significant first (the band best aligned with a street: one a little askew
        // holds fewer of its POIs and more of the ground's), then the most POIs, then the shorter;
        // ties by direction, band and the narrower band.
        runs.sort {
            (-$0.logP, $0.members.count, -$0.length, -$0.direction, -$0.band, -$0.halfWidth)
                > (-$1.logP, $1.members.count, -$1.length, -$1.direction, -$1.band, -$1.halfWidth)
        }
        var taken = [Bool](repeating: false, count: n)
        var out: [Street] = []
        for run in runs {
            let left = run.members.filter { !taken[$0] }
            guard left.count >= Self.minimumPOIs else { continue }
            let (c, s) = Self.axis(run.direction)
            if run.halfWidth > bandHalfWidths[0]
                && !Self.asDenseAsNarrowerBands(left, halfWidth: run.halfWidth, of: bandHalfWidths, (c, s), x, y)
            {
                continue
            }
            var length = run.length
            var logP = run.logP
            if left.count < run.members.count {
                // Judged again, by every rule, on the POIs left to it: its sides counted anew over
                // its own length (where a street runs from quiet ground into a district, what is
                // left of it in the district is no denser than the district beside it), and in
                // one piece (no gap longer than `gap` where a street taken crossed it).
                let t = left.map { x[$0] * c + y[$0] * s }.sorted()
                length = t[t.count - 1] - t[0]
                let step = run.halfWidth / 2
                guard length >= aspect * 2 * run.halfWidth,
                    !zip(t, t.dropFirst()).contains(where: { $1 - $0 > gap })
                else { continue }
                // The points in the bands beside the run's band along [a0, a1].
                func sides(_ a0: Double, _ a1: Double) -> (left: Int, right: Int) {
                    var (l, r) = (0, 0)
                    for i in 0..<n {
                        let along = x[i] * c + y[i] * s
                        guard along >= a0 && along <= a1 else { continue }
                        let k = Self.bin(-x[i] * s + y[i] * c, step) - run.band
                        if k >= -4 && k < 0 { l += 1 } else if k >= 4 && k < 8 { r += 1 }
                    }
                    return (l, r)
                }
                guard let judgedAgain = judged(t, halfWidth: run.halfWidth, sides: sides)
                else { continue }
                logP = judgedAgain
            }
            for i in left { taken[i] = true }
            out.append(Street(members: left, pValue: min(1, Foundation.exp(logP)), length: length))
        }
        return out
    }
}
