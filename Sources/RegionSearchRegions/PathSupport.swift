import RegionSearchCore
import RegionSearchModel

/// Whether two POIs are connected through the pruned POI graph by a path not much longer than
/// the straight line between them: A* with the straight-line distance as its (consistent)
/// heuristic, so only the ellipse of points that could lie on such a path is searched.
///
/// The pruned graph has no edges across voids (rivers, parks, lakes), so two POIs on opposite
/// banks are connected only around the void, far longer than their distance.
struct PathSupport {
    let graph: AdjacencyGraph
    let x: Column<Double>
    let y: Column<Double>
    /// The search stops (answering no) after this many settled nodes.
    let budget: Int
    private var stamp: [UInt32]
    private var best: [Double]
    private var generation: UInt32 = 0
    private var heap: [(f: Double, g: Double, node: Int32)] = []
    /// Searches run, for the summary.
    private(set) var searches = 0
    /// All POIs by place (``PointBuckets``): the one the caller shares among its workers, or made
    /// at the first request and kept for every keyword and level after it.
    private var buckets: PointBuckets?

    init(
        graph: AdjacencyGraph, x: Column<Double>, y: Column<Double>, budget: Int = 50_000, buckets: PointBuckets? = nil
    ) {
        self.buckets = buckets
        self.graph = graph
        self.x = x
        self.y = y
        self.budget = budget
        stamp = [UInt32](repeating: 0, count: graph.nodeCount)
        best = [Double](repeating: .infinity, count: graph.nodeCount)
    }

    /// The POIs within `radius` of (cx, cy), in index order.
    mutating func within(_ radius: Double, of cx: Double, _ cy: Double) -> [UInt32] {
        if buckets == nil { buckets = PointBuckets(x: x, y: y) }
        return buckets!.within(radius, of: cx, cy, x: x, y: y)
    }

    /// Whether a path from `source` to `target` of length ≤ `limit` + the source's local spacing
    /// exists (the slack lets two POIs a step apart on either side of a street corner pass), or,
    /// with `step`, of length ≤ `limit` through edges at most `step` long (a street's POIs all
    /// along the way, ``StreetRunOn``).
    mutating func connected(_ source: Int, _ target: Int, within limit: Double, step: Double? = nil) -> Bool {
        if source == target { return true }
        let longest = step.map { Float($0) } ?? .infinity
        for e in graph.range(source) where Int(graph.neighbors[e]) == target && graph.length[e] <= longest {
            return true
        }
        searches += 1
        generation &+= 1
        if generation == 0 {
            for i in 0..<stamp.count { stamp[i] = 0 }
            generation = 1
        }
        let bound = step == nil ? limit + Double(graph.scale[source]) : limit
        let tx = x[target]
        let ty = y[target]
        func h(_ v: Int) -> Double {
            let dx = x[v] - tx
            let dy = y[v] - ty
            return (dx * dx + dy * dy).squareRoot()
        }
        heap.removeAll(keepingCapacity: true)
        stamp[source] = generation
        best[source] = 0
        push((h(source), 0, Int32(source)))
        var settled = 0
        while let top = pop() {
            let v = Int(top.node)
            if top.g > best[v] { continue }
            if v == target { return true }
            settled += 1
            if settled > budget { return false }
            for e in graph.range(v) where graph.length[e] <= longest {
                let w = Int(graph.neighbors[e])
                let g = top.g + Double(graph.length[e])
                let f = g + h(w)
                if f > bound { continue }
                if stamp[w] != generation {
                    stamp[w] = generation
                    best[w] = .infinity
                }
                if g < best[w] {
                    best[w] = g
                    push((f, g, Int32(w)))
                }
            }
        }
        return false
    }

    // A binary min-heap on f (ties by node index, so the search order is deterministic).
    private mutating func push(_ item: (f: Double, g: Double, node: Int32)) {
        heap.append(item)
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if less(heap[i], heap[p]) {
                heap.swapAt(i, p)
                i = p
            } else {
                break
            }
        }
    }

    private mutating func pop() -> (f: Double, g: Double, node: Int32)? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
        }
        return first
    }

    @inline(__always)
    private func less(_ a: (f: Double, g: Double, node: Int32), _ b: (f: Double, g: Double, node: Int32)) -> Bool {
        a.f != b.f ? a.f < b.f : a.node < b.node
    }
}
