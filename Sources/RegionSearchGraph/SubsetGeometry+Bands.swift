import Foundation

extension SubsetGeometry {
    /// The straight band that a location's nearest other locations lie in: the line through
    /// their centroid along their principal axis (the major axis of their covariance), how far
    /// they reach along it, and how wide they spread across it.
    ///
    /// POIs along a street are a band: around one of them, its neighbours reach far along the
    /// street and little across it, and a POI around the corner stands well off its axis. Around
    /// a POI of a district its neighbours lie on every side, and the band is about as wide as
    /// long.
    public struct Band: Sendable, Equatable {
        /// How far the location and its neighbours reach along the axis, metres.
        public var length: Double
        /// Half the band's width, metres: twice the neighbours' median distance from the axis (POIs
        /// spread evenly over ±w of a centre line lie at a median w / 2 from it), at least the
        /// floor it was measured with.
        public var halfWidth: Double
        /// The location's own distance from the axis, metres.
        public var offset: Double
        /// The neighbours' centroid, x (metres): the axis passes through it.
        public var centreX: Double
        /// The neighbours' centroid, y (metres).
        public var centreY: Double
        /// The axis's unit direction, x component.
        public var directionX: Double
        /// The axis's unit direction, y component.
        public var directionY: Double

        /// The distance of the point (px, py) from the axis, metres.
        public func distanceFromAxis(_ px: Double, _ py: Double) -> Double {
            abs((py - centreY) * directionX - (px - centreX) * directionY)
        }

        /// Length over width; infinite for collinear neighbours measured with no floor.
        public var aspect: Double {
            halfWidth > 0 ? length / (2 * halfWidth) : (length > 0 ? .infinity : 0)
        }
    }

    /// The band (``Band``) of every position's location among its `k` nearest other locations
    /// that `accept` takes (`accept(from, to)`: the two locations' first positions; `nearest`
    /// holds lists for at least `k`, and only those are looked at), with a half-width of at least
    /// `floor(position)` of its location's first position: collinear neighbours (addresses
    /// geocoded onto a street's centre line) have no width of their own. Nil for a position whose
    /// location has fewer than `minimum` (at least 2) accepted neighbours, and for every position
    /// when `only` rejects its location's first position.
    public func bands(
        k: Int, nearest: NearestLocations, minimum: Int = 2, only: (Int) -> Bool = { _ in true },
        accept: (Int, Int) -> Bool = { _, _ in true }, floor: (Int) -> Double
    ) -> [Band?] {
        let m = subset.count
        let u = locations.count
        guard k >= 2, u >= 3, let knn = nearest.lists else { return [Band?](repeating: nil, count: m) }
        let kk = min(k, u - 1)
        precondition(knn.k >= kk, "nearest-location lists shorter than k")
        let needed = max(2, minimum)
        var perLocation = [Band?](repeating: nil, count: u)
        var across = [Double](repeating: 0, count: kk)
        var chosen = [Int](repeating: 0, count: kk)
        for l in 0..<u {
            let p = Int(locations[l])
            guard only(p) else { continue }
            var n = 0
            for t in 0..<kk {
                let q = Int(knn.neighbors[l * knn.k + t])
                if accept(p, Int(locations[q])) {
                    chosen[n] = q
                    n += 1
                }
            }
            guard n >= needed else { continue }
            var mx = 0.0
            var my = 0.0
            for t in 0..<n {
                let q = Int(locations[chosen[t]])
                mx += x[q]
                my += y[q]
            }
            mx /= Double(n)
            my /= Double(n)
            var sxx = 0.0
            var syy = 0.0
            var sxy = 0.0
            for t in 0..<n {
                let q = Int(locations[chosen[t]])
                let dx = x[q] - mx
                let dy = y[q] - my
                sxx += dx * dx
                syy += dy * dy
                sxy += dx * dy
            }
            let angle = 0.5 * atan2(2 * sxy, sxx - syy)
            let (ux, uy) = (cos(angle), sin(angle))
            var lo = (x[p] - mx) * ux + (y[p] - my) * uy
            var hi = lo
            for t in 0..<n {
                let q = Int(locations[chosen[t]])
                let dx = x[q] - mx
                let dy = y[q] - my
                let a = dx * ux + dy * uy
                lo = min(lo, a)
                hi = max(hi, a)
                across[t] = abs(dy * ux - dx * uy)
            }
            across[0..<n].sort()
            let median = n % 2 == 1 ? across[n / 2] : (across[n / 2 - 1] + across[n / 2]) / 2
            perLocation[l] = Band(
                length: hi - lo, halfWidth: max(2 * median, floor(p)),
                offset: abs((y[p] - my) * ux - (x[p] - mx) * uy), centreX: mx, centreY: my, directionX: ux,
                directionY: uy)
        }
        return (0..<m).map { perLocation[Int(locationOf[$0])] }
    }
}
