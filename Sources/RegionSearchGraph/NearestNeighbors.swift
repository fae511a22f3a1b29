import RegionSearchCore

/// Exact k nearest neighbours of every point, by a k-d tree (``KDTree``).
///
/// Neighbours are ordered by squared distance, computed as `(xᵢ − xⱼ)² + (yᵢ − yⱼ)²` in double
/// precision, and then by index, so the set of k nearest is unique even with ties (grids) and the
/// result does not depend on the thread count (nor on the search structure: the answer is the
/// unique exact one). Points must be distinct (see ``CoincidentPoints``): leaves then hold a fixed
/// number of points however dense a neighbourhood is, so a 30× or 1000× density contrast costs
/// nothing extra.
struct NearestNeighbors: Sendable {
    /// Neighbours per point: min(k, n − 1).
    public let k: Int
    /// `neighbors[i * k ..< (i + 1) * k]`: point i's neighbours, nearest first.
    public private(set) var neighbors: [UInt32]

    static let leafSize = 8

    /// Lists made elsewhere (``init(delaunay:x:y:groups:k:)``).
    init(k: Int, neighbors: [UInt32]) {
        self.k = k
        self.neighbors = neighbors
    }

    public init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, k requested: Int) {
        self.init(x: x, y: y, subset: nil, k: requested)
    }

    /// The neighbours among the points `subset` (x[subset[p]], y[subset[p]]), indexed by position
    /// in `subset` — without copying those coordinates out first (the tree gathers them anyway).
    public init(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, subset: UnsafeBufferPointer<UInt32>?,
        k requested: Int
    ) {
        let n = subset?.count ?? x.count
        let k = max(0, min(requested, n - 1))
        self.k = k
        if k == 0 {
            neighbors = []
            return
        }
        let tree = KDTree(x: x, y: y, subset: subset, leafSize: Self.leafSize)
        var out = [UInt32](repeating: 0, count: n * k)
        out.withUnsafeMutableBufferPointer { outBuf in
            let result = outBuf
            Parallel.forRanges(n, minChunk: 2048) { range in
                tree.query(positions: range, k: k, into: result)
            }
        }
        neighbors = out
    }

    /// Hands over the lists and leaves this value empty, so the caller owns the only reference
    /// and can reorder them in place.
    mutating func takeNeighbors() -> [UInt32] {
        let lists = neighbors
        neighbors = []
        return lists
    }
}
