/// A level-of-detail point quadtree for the web map, so the page draws only the POIs in view
/// and never more than a few thousand at once.
///
/// Each node keeps up to ``capacity`` of its points — an even random sample (by a hash of the
/// point's index, so the same every run), in sample order — and passes the rest to its four
/// quadrants. The page draws a node's points when the node's points' bounds meet the view, as
/// many of them (a prefix: still an even sample) as the bounds' area on screen allows at the dot
/// density it accepts, and descends into the children only when it drew them all: zoomed out it
/// shows a sample spread like the data, never a solid sheet; zoomed in, every point of the
/// visible area and nothing else.
///
/// Coordinates are integers: lon/lat in units of ``quantum`` degrees from ``origin``.
struct PointQuadtree {
    struct Node: Equatable {
        /// Quantized bounds of the quadrant: [x0, x1) × [y0, y1).
        var x0, y0, x1, y1: Int
        /// Quantized bounds of the points in the subtree, inclusive: [bx0, bx1] × [by0, by1].
        var bx0, by0, bx1, by1: Int
        /// Range of this node's own points in ``order``.
        var start: Int
        var count: Int
        /// Child node indices (-1 for an empty quadrant).
        var children: [Int]
    }

    /// Degrees per coordinate unit (1e-6° ≈ 0.1 m).
    static let quantum = 1e-6
    /// Points a node keeps for itself before splitting.
    static let capacity = 256
    static let maxDepth = 20

    /// (lon, lat) of coordinate (0, 0).
    let origin: (lon: Double, lat: Double)
    private(set) var nodes: [Node] = []
    /// Point indices (into the arrays given to `init`), node by node in ``nodes`` order.
    private(set) var order: [Int] = []
    /// Quantized coordinates of the points, per index of the input.
    let qx: [Int]
    let qy: [Int]

    /// Builds the tree over the points `indices` of `lon`/`lat`.
    init(lon: [Double], lat: [Double], indices: [Int]) {
        let west = indices.map { lon[$0] }.min() ?? 0
        let south = indices.map { lat[$0] }.min() ?? 0
        origin = (
            (west / Self.quantum).rounded(.down) * Self.quantum, (south / Self.quantum).rounded(.down) * Self.quantum
        )
        var qx = [Int](repeating: 0, count: lon.count)
        var qy = [Int](repeating: 0, count: lon.count)
        var side = 1
        for i in indices {
            qx[i] = Int(((lon[i] - origin.lon) / Self.quantum).rounded())
            qy[i] = Int(((lat[i] - origin.lat) / Self.quantum).rounded())
            while side <= max(qx[i], qy[i]) { side *= 2 }
        }
        self.qx = qx
        self.qy = qy
        guard !indices.isEmpty else { return }
        // The sample order: a fixed hash of each index, so samples are spread evenly and stable.
        let keyed = indices.map { (Self.mix(UInt64($0)), $0) }.sorted { $0 < $1 }.map(\.1)
        build(keyed, x0: 0, y0: 0, side: side, depth: 0)
    }

    /// Adds the node for `points` (in sample order) and its subtree; returns its index.
    @discardableResult
    private mutating func build(_ points: [Int], x0: Int, y0: Int, side: Int, depth: Int) -> Int {
        let index = nodes.count
        let own = points.count <= Self.capacity || depth >= Self.maxDepth || side <= 1 ? points.count : Self.capacity
        var (bx0, by0, bx1, by1) = (Int.max, Int.max, Int.min, Int.min)
        for p in points {
            (bx0, bx1) = (min(bx0, qx[p]), max(bx1, qx[p]))
            (by0, by1) = (min(by0, qy[p]), max(by1, qy[p]))
        }
        nodes.append(
            Node(
                x0: x0, y0: y0, x1: x0 + side, y1: y0 + side, bx0: bx0, by0: by0, bx1: bx1, by1: by1,
                start: order.count,
                count: own, children: []))
        order += points[0..<own]
        guard own < points.count else { return index }
        let half = side / 2
        var quadrants: [[Int]] = [[], [], [], []]
        for p in points[own...] {
            let q = (qx[p] >= x0 + half ? 1 : 0) + (qy[p] >= y0 + half ? 2 : 0)
            quadrants[q].append(p)
        }
        var children = [-1, -1, -1, -1]
        for q in 0..<4 where !quadrants[q].isEmpty {
            children[q] = build(
                quadrants[q], x0: x0 + (q & 1) * half, y0: y0 + (q >> 1) * half, side: half, depth: depth + 1)
        }
        nodes[index].children = children
        return index
    }

    /// SplitMix64's finaliser: a well-spread, fixed hash.
    static func mix(_ v: UInt64) -> UInt64 {
        var z = v &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
