/// Exact k nearest neighbours of every point, by a bounding-box tree over the points in Hilbert
/// order (``HilbertTree``).
///
/// Neighbours are ordered by squared distance, computed as `(xᵢ − xⱼ)² + (yᵢ − yⱼ)²` in double
/// precision, and then by index, so the set of k nearest is unique even with ties (grids) and the
/// result does not depend on the thread count (nor on the search structure: the answer is the
/// unique exact one). Points must be distinct (see ``CoincidentPoints``): leaves then hold a fixed
/// number of points however dense a neighbourhood is, so a 30× or 1000× density contrast costs
/// nothing extra.
public struct NearestNeighbors: Sendable {
    /// Neighbours per point: min(k, n − 1).
    public let k: Int
    /// `neighbors[i * k ..< (i + 1) * k]`: point i's neighbours, nearest first.
    public let neighbors: [UInt32]

    static let leafSize = 8

    public init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, k requested: Int) {
        let n = x.count
        let k = max(0, min(requested, n - 1))
        self.k = k
        if k == 0 {
            neighbors = []
            return
        }
        let tree = KDTree(x: x, y: y, leafSize: Self.leafSize)
        var out = [UInt32](repeating: 0, count: n * k)
        out.withUnsafeMutableBufferPointer { outBuf in
            let result = outBuf
            Parallel.forRanges(n, minChunk: 2048) { range in
                tree.query(positions: range, k: k, into: result)
            }
        }
        neighbors = out
    }
}
