import RegionSearchCore
import RegionSearchModel

/// Neighbourhood geometry of a subset of the points — one keyword's POIs: their Delaunay edges
/// and how far each is from its k-th nearest other member.
///
/// Positions are indices into `subset`. Coincident members (several restaurants in one food court)
/// are one location for the triangulation, joined to it by zero-length edges, but each counts as
/// a POI for distances: a member with four others at its own location has its 4th nearest at 0 m.
public struct SubsetGeometry: Sendable {
    /// The point index of each position.
    public let subset: [UInt32]
    /// Undirected edges between positions, each once with a < b, sorted: the Delaunay edges of the
    /// distinct locations (the chain for collinear ones) and each duplicate's zero-length link to
    /// its location's first position.
    public let edges: [(a: Int32, b: Int32)]
    /// Edge lengths in metres, parallel to ``edges``.
    public let lengths: [Double]
    /// The first position at the same location, per position (itself for distinct locations).
    public let representative: [Int32]

    // Internal, not private: SubsetGeometry+Bands.swift reads them.
    let locations: [UInt32]
    let multiplicity: [Int32]
    let locationOf: [Int32]
    let x: [Double]
    let y: [Double]

    /// The geometry of the points `subset` (point indices, ascending) of x, y.
    public init(x fullX: UnsafeBufferPointer<Double>, y fullY: UnsafeBufferPointer<Double>, subset: [UInt32]) {
        self.subset = subset
        let m = subset.count
        let sx = subset.map { fullX[Int($0)] }
        let sy = subset.map { fullY[Int($0)] }
        x = sx
        y = sy
        let groups = sx.withUnsafeBufferPointer { bx in sy.withUnsafeBufferPointer { CoincidentPoints(x: bx, y: $0) } }
        representative = groups.representative.map { Int32(bitPattern: $0) }
        locations = groups.unique
        var locationOf = [Int32](repeating: -1, count: m)
        var multiplicity = [Int32](repeating: 0, count: groups.unique.count)
        for (l, p) in groups.unique.enumerated() { locationOf[Int(p)] = Int32(l) }
        for p in 0..<m {
            let l = locationOf[Int(groups.representative[p])]
            locationOf[p] = l
            multiplicity[Int(l)] += 1
        }
        self.locationOf = locationOf
        self.multiplicity = multiplicity

        var pairs: [(a: Int32, b: Int32)] = []
        if groups.unique.count >= 2 {
            let ux = groups.unique.map { sx[Int($0)] }
            let uy = groups.unique.map { sy[Int($0)] }
            let dt = ux.withUnsafeBufferPointer { bx in
                uy.withUnsafeBufferPointer { DelaunayTriangulation(x: bx, y: $0) }
            }
            let (a, b) = dt.edges()
            pairs.reserveCapacity(a.count + m - groups.unique.count)
            for e in 0..<a.count {
                let pa = Int32(groups.unique[Int(a[e])])
                let pb = Int32(groups.unique[Int(b[e])])
                pairs.append(pa < pb ? (pa, pb) : (pb, pa))
            }
        }
        for p in 0..<m where Int(groups.representative[p]) != p {
            pairs.append((Int32(groups.representative[p]), Int32(p)))
        }
        pairs.sort { $0.a != $1.a ? $0.a < $1.a : $0.b < $1.b }
        edges = pairs
        lengths = pairs.map { e in
            let dx = sx[Int(e.a)] - sx[Int(e.b)]
            let dy = sy[Int(e.a)] - sy[Int(e.b)]
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    public var count: Int { subset.count }

    /// The coordinates of position `p`, metres.
    public func point(_ p: Int) -> (x: Double, y: Double) { (x[p], y[p]) }

    /// The position of point index `point`, if it is a member.
    public func position(of point: UInt32) -> Int? {
        var lo = 0
        var hi = subset.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if subset[mid] < point { lo = mid + 1 } else { hi = mid }
        }
        return lo < subset.count && subset[lo] == point ? lo : nil
    }

    /// The nearest other locations of every location, enough for any k up to `k` (the lists
    /// of a smaller k are prefixes of these: neighbours are ordered by distance, then index).
    ///
    /// The lists come from the subset's own triangulation (``edges``) by best-first search
    /// (``DelaunayNeighborSearch``: exact, ties by index, the k-d tree's lists), as the graph
    /// stage's kNN lists do; the k-d tree is the fallback should the search not reach k.
    public func nearestLocations(_ k: Int) -> NearestLocations {
        let u = locations.count
        guard k >= 1, u >= 2 else { return NearestLocations(lists: nil) }
        let kk = min(k, u - 1)
        let knn = x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { by in
                NearestNeighbors(
                    delaunay: adjacency(), x: bx, y: by,
                    groups: CoincidentPoints(representative: representative.map { UInt32($0) }, unique: locations),
                    k: kk)
                    ?? locations.withUnsafeBufferPointer { NearestNeighbors(x: bx, y: by, subset: $0, k: kk) }
            }
        }
        return NearestLocations(lists: knn)
    }

    /// ``edges`` as a graph over the positions (``CSRBuilder``).
    private func adjacency() -> AdjacencyGraph {
        x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { by in
                CSRBuilder.build(
                    nodeCount: subset.count, a: edges.map { UInt32($0.a) }, b: edges.map { UInt32($0.b) }, x: bx,
                    y: by)
            }
        }
    }

    /// Nearest-location lists computed once for several spacings (``nearestLocations(_:)``).
    public struct NearestLocations: Sendable {
        let lists: NearestNeighbors?
    }

    /// The listed nearest other locations of position `p`'s location, nearest first (ties by
    /// index): each location's first position, its multiplicity (positions stacked there) and its
    /// distance from `p`, metres.
    public func listedLocations(of p: Int, nearest: NearestLocations) -> [(position: Int, count: Int, distance: Double)]
    {
        guard let knn = nearest.lists else { return [] }
        let l = Int(locationOf[p])
        let from = Int(locations[l])
        return (0..<knn.k).map { i in
            let o = Int(knn.neighbors[l * knn.k + i])
            let q = Int(locations[o])
            let dx = x[from] - x[q]
            let dy = y[from] - y[q]
            return (q, Int(multiplicity[o]), (dx * dx + dy * dy).squareRoot())
        }
    }

    /// How many positions stand at position `p`'s location (itself included).
    public func stacked(at p: Int) -> Int { Int(multiplicity[Int(locationOf[p])]) }

    /// For every position, the distance from its location to the nearest other location among
    /// the `nearest` lists that `accept` takes (`accept(from, to)`: the two locations' first
    /// positions), infinity when it takes none of them. Exact when that location is among the
    /// listed ones; the lists are ordered by distance, then index.
    public func nearestListedDistance(nearest: NearestLocations, accept: (Int, Int) -> Bool) -> [Double] {
        let m = subset.count
        guard let knn = nearest.lists else { return [Double](repeating: .infinity, count: m) }
        var perLocation = [Double](repeating: .infinity, count: locations.count)
        for l in 0..<locations.count {
            let p = Int(locations[l])
            for i in 0..<knn.k {
                let q = Int(locations[Int(knn.neighbors[l * knn.k + i])])
                guard accept(p, q) else { continue }
                let dx = x[p] - x[q]
                let dy = y[p] - y[q]
                perLocation[l] = (dx * dx + dy * dy).squareRoot()
                break
            }
        }
        return (0..<m).map { perLocation[Int(locationOf[$0])] }
    }

    /// For every position, the distance from its location to the k-th nearest other *location*
    /// of the subset (coincident members count once), infinity when there are not k others: the
    /// subset's local spacing in the sense of the graph's σ. `nearest`: lists for at least k.
    public func kthLocationDistance(_ k: Int, nearest: NearestLocations? = nil) -> [Double] {
        let m = subset.count
        let u = locations.count
        guard k >= 1, u >= 2 else { return [Double](repeating: .infinity, count: m) }
        let kk = min(k, u - 1)
        guard let knn = (nearest ?? nearestLocations(k)).lists, knn.k >= kk else {
            preconditionFailure("nearest-location lists shorter than k")
        }
        var perLocation = [Double](repeating: .infinity, count: u)
        if kk == k {
            for l in 0..<u {
                let p = Int(locations[l])
                let q = Int(locations[Int(knn.neighbors[l * knn.k + kk - 1])])
                let dx = x[p] - x[q]
                let dy = y[p] - y[q]
                perLocation[l] = (dx * dx + dy * dy).squareRoot()
            }
        }
        return (0..<m).map { perLocation[Int(locationOf[$0])] }
    }

    /// Whether each position lies in the ball of a position where `centres` holds: at a location
    /// within `radius` of it (its own radius, such as its k-th neighbour distance; its own location
    /// included) among its location and its listed nearest locations, that `accept(centre, other)`
    /// takes (`other` that location's first position). POIs at one location share the answer.
    /// `nearest` must list every location a ball holds (the lists of the k that `radius` was
    /// measured with); a location beyond the lists is not looked at.
    public func inBalls(
        of centres: [Bool], radius: [Double], nearest: NearestLocations, accept: (Int, Int) -> Bool = { _, _ in true }
    ) -> [Bool] {
        let m = subset.count
        var marked = [Bool](repeating: false, count: locations.count)
        let knn = nearest.lists
        for p in 0..<m where centres[p] {
            let l = Int(locationOf[p])
            if accept(p, Int(locations[l])) { marked[l] = true }
            guard let knn else { continue }
            let (px, py) = (x[p], y[p])
            for t in 0..<knn.k {
                let q = Int(knn.neighbors[l * knn.k + t])
                let qp = Int(locations[q])
                let dx = px - x[qp]
                let dy = py - y[qp]
                // The lists are ordered by distance: the first one beyond the radius ends the ball.
                guard (dx * dx + dy * dy).squareRoot() <= radius[p] else { break }
                if accept(p, qp) { marked[q] = true }
            }
        }
        return (0..<m).map { marked[Int(locationOf[$0])] }
    }

    /// Whether each position's location, or one of its listed nearest locations, holds a
    /// position where `changed` holds: the positions whose neighbourhood in `nearest` changed.
    public func near(_ changed: [Bool], nearest: NearestLocations) -> [Bool] {
        let m = subset.count
        var hit = [Bool](repeating: false, count: locations.count)
        for p in 0..<m where changed[p] { hit[Int(locationOf[p])] = true }
        var out = hit
        if let knn = nearest.lists {
            for l in 0..<locations.count where !hit[l] {
                for t in 0..<knn.k where hit[Int(knn.neighbors[l * knn.k + t])] {
                    out[l] = true
                    break
                }
            }
        }
        return (0..<m).map { out[Int(locationOf[$0])] }
    }

    /// For every position, the distance to its k-th nearest other member, duplicates counted
    /// (infinity when there are not k others). `nearest`: lists for at least k.
    public func kthNeighbourDistance(_ k: Int, nearest: NearestLocations? = nil) -> [Double] {
        let m = subset.count
        guard k >= 1, m >= 2 else { return [Double](repeating: .infinity, count: m) }
        let u = locations.count
        // Enough distinct neighbours to reach k others even if every one holds a single POI.
        let kk = min(k, u - 1)
        var perLocation = [Double](repeating: .infinity, count: u)
        guard kk >= 1 else {
            // One location holding every member.
            for l in 0..<u where k - Int(multiplicity[l] - 1) <= 0 { perLocation[l] = 0 }
            return (0..<m).map { perLocation[Int(locationOf[$0])] }
        }
        guard let knn = (nearest ?? nearestLocations(k)).lists, knn.k >= kk else {
            preconditionFailure("nearest-location lists shorter than k")
        }
        for l in 0..<u {
            var need = k - Int(multiplicity[l] - 1)
            if need <= 0 {
                perLocation[l] = 0
                continue
            }
            let p = Int(locations[l])
            for t in 0..<kk {
                let q = Int(knn.neighbors[l * knn.k + t])
                need -= Int(multiplicity[q])
                if need <= 0 {
                    let qp = Int(locations[q])
                    let dx = x[p] - x[qp]
                    let dy = y[p] - y[qp]
                    perLocation[l] = (dx * dx + dy * dy).squareRoot()
                    break
                }
            }
        }
        return (0..<m).map { perLocation[Int(locationOf[$0])] }
    }
}
