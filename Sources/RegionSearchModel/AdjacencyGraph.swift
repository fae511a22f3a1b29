import RegionSearchCore

/// An undirected graph over the projected points in CSR (compressed sparse row) form; the
/// `graph` artifact.
///
/// Every undirected edge {i, j} appears twice, as j in row i and as i in row j; rows are sorted by
/// neighbour index and hold no self-loops or repeats. Columns: `offsets` (u64, n + 1),
/// `neighbors` (u32), `length` (f32, edge length in metres, parallel to `neighbors`) and `scale`
/// (f32, n: the point's local spacing σᵢ, the distance to its k-th nearest other location — see
/// `LocalScale` — used for local-scale pruning and the self-tuning propagation kernel).
///
/// Read from an artifact, the columns are used in place (see ``Column``).
public struct AdjacencyGraph: Sendable {
    public var offsets: Column<UInt64>
    public var neighbors: Column<UInt32>
    public var length: Column<Float>
    public var scale: Column<Float>

    public init(offsets: Column<UInt64>, neighbors: Column<UInt32>, length: Column<Float>, scale: Column<Float>) {
        self.offsets = offsets
        self.neighbors = neighbors
        self.length = length
        self.scale = scale
    }

    public init(offsets: [UInt64], neighbors: [UInt32], length: [Float], scale: [Float]) {
        self.init(offsets: Column(offsets), neighbors: Column(neighbors), length: Column(length), scale: Column(scale))
    }

    public var nodeCount: Int { offsets.count - 1 }
    /// Number of undirected edges.
    public var edgeCount: Int { neighbors.count / 2 }

    /// Neighbour index range of node `i` into `neighbors` / `length`.
    @inline(__always)
    public func range(_ i: Int) -> Range<Int> { Int(offsets[i])..<Int(offsets[i + 1]) }

    /// Builds CSR from an undirected edge list (each edge once, any order, i != j; duplicates
    /// are removed). Rows come out sorted by neighbour, so the result is deterministic.
    public init(nodeCount n: Int, edges: [(UInt32, UInt32)], x: [Double], y: [Double]) {
        var degree = [UInt64](repeating: 0, count: n + 1)
        for (a, b) in edges {
            degree[Int(a) + 1] += 1
            degree[Int(b) + 1] += 1
        }
        for i in 0..<n { degree[i + 1] += degree[i] }
        var fill = degree
        var nb = [UInt32](repeating: 0, count: Int(degree[n]))
        for (a, b) in edges {
            nb[Int(fill[Int(a)])] = b
            fill[Int(a)] += 1
            nb[Int(fill[Int(b)])] = a
            fill[Int(b)] += 1
        }
        // Sort each row and drop repeats, compacting in place.
        var offsets = [UInt64](repeating: 0, count: n + 1)
        var write = 0
        for i in 0..<n {
            let lo = Int(degree[i])
            let hi = Int(degree[i + 1])
            nb[lo..<hi].sort()
            var last: UInt32 = .max
            for k in lo..<hi where nb[k] != last && Int(nb[k]) != i {
                last = nb[k]
                nb[write] = nb[k]
                write += 1
            }
            offsets[i + 1] = UInt64(write)
        }
        nb.removeLast(nb.count - write)
        var len = [Float](repeating: 0, count: write)
        for i in 0..<n {
            for k in Int(offsets[i])..<Int(offsets[i + 1]) {
                let j = Int(nb[k])
                len[k] = Float(((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j])).squareRoot())
            }
        }
        self.offsets = Column(offsets)
        neighbors = Column(nb)
        length = Column(len)
        scale = Column([Float](repeating: 0, count: n))
    }

    public init(artifact: ArtifactFile) throws(ArtifactError) {
        let n = artifact.rowCount
        let offsets = try artifact.view("offsets", as: UInt64.self, count: n + 1)
        let neighbors = try artifact.view("neighbors", as: UInt32.self)
        length = try artifact.view("length", count: neighbors.count)
        scale = try artifact.view("scale", count: n)
        guard offsets.first == 0, offsets.last.map({ Int($0) }) == neighbors.count else {
            throw ArtifactError.malformed(path: artifact.path, detail: "CSR offsets do not match the neighbour count")
        }
        let off = offsets.buffer
        let nb = neighbors.buffer
        for i in 0..<n where off[i + 1] < off[i] {
            throw ArtifactError.malformed(path: artifact.path, detail: "CSR offsets decrease at row \(i)")
        }
        // One pass with a running maximum, then the exact culprit only when there is one.
        var largest: UInt32 = 0
        for v in nb { largest = max(largest, v) }
        if !nb.isEmpty && Int(largest) >= n {
            let v = nb.first { Int($0) >= n }!
            throw ArtifactError.malformed(path: artifact.path, detail: "neighbour index \(v) out of range (n = \(n))")
        }
        self.offsets = offsets
        self.neighbors = neighbors
    }

    public func writer(metadata: JSONValue) -> ArtifactWriter {
        var w = ArtifactWriter(kind: .graph, rowCount: nodeCount, metadata: metadata)
        w.add("offsets", offsets)
        w.add("neighbors", neighbors)
        w.add("length", length)
        w.add("scale", scale)
        return w
    }

    /// Undirected edges (i < j), in row order.
    var edgeList: [(UInt32, UInt32)] {
        var out: [(UInt32, UInt32)] = []
        out.reserveCapacity(edgeCount)
        for i in 0..<nodeCount {
            for k in range(i) where Int(neighbors[k]) > i { out.append((UInt32(i), neighbors[k])) }
        }
        return out
    }
}

extension AdjacencyGraph {
    /// The ground node `i` occupies, m²: a disc of its local spacing σᵢ shared by the `scaleK`
    /// neighbours that spacing reaches (π σᵢ² / k), split evenly between the POIs at its location
    /// (linked by zero-length edges) so that a building of thirty shops is not thirty times the
    /// ground. An isolated node (no edge at all) occupies nothing: it is no part of the city's
    /// fabric. Densities per area divide by sums of these.
    public func ownedArea(_ i: Int, scaleK: Int) -> Double {
        let range = self.range(i)
        if range.isEmpty { return 0 }
        var stacked = 1
        for e in range where length[e] == 0 { stacked += 1 }
        let s = Double(scale[i])
        return Double.pi * s * s / Double(max(1, scaleK)) / Double(stacked)
    }
}
