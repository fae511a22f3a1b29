import Foundation

/// The centre line of a set of points joined by edges, and how far its points lie from it: the
/// spine a street of POIs is drawn along and run on from (the regions stage's street rules and
/// the hulls stage's street-wide bands measure a street the same way).
///
/// The spine is the longest path of the minimum spanning tree of the points over the given edges
/// (on the component of the first point that has an edge), smoothed over five nodes: the raw path
/// zigzags from one side of the street to the other, through its members. Every point of that
/// component hangs on the spine node the tree reaches it from; its offset is its distance from
/// the centre line near that node. The half-width is twice the median offset — the half-width of
/// the band when the points are spread evenly across it — and never less than a given floor.
public struct StreetSpine: Sendable {
    /// The spine's nodes (indices into the points), from one end to the other.
    public var path: [Int]
    /// The spine smoothed over five nodes, one vertex per node of `path`.
    public var centre: [(x: Double, y: Double)]
    /// The length of `centre`.
    public var length: Double
    /// Each point's distance from the centre line; nil for a point the tree does not reach.
    public var offsets: [Double?]
    /// Twice the median of the offsets, at least the floor given.
    public var halfWidth: Double

    /// The distance from (px, py) to the segment from `a` to `b`.
    public static func distance(
        _ px: Double, _ py: Double, toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)
    ) -> Double {
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let l2 = dx * dx + dy * dy
        let t = l2 > 0 ? min(1, max(0, ((px - a.x) * dx + (py - a.y) * dy) / l2)) : 0
        return hypot(px - a.x - t * dx, py - a.y - t * dy)
    }

    /// The length of the polyline through `line`'s points, in order.
    public static func length(of line: [(x: Double, y: Double)]) -> Double {
        var length = 0.0
        for k in line.indices.dropFirst() { length += hypot(line[k].x - line[k - 1].x, line[k].y - line[k - 1].y) }
        return length
    }

    /// Whether two vertices of a polyline more than `beyond` apart along it are less than half
    /// that apart in the plane: the line turns back (a U-turn, a loop; a right-angled corner
    /// keeps 0.71 of it, a semicircle 0.64, a hairpin less).
    public static func turnsBack(_ line: [(x: Double, y: Double)], beyond: Double) -> Bool {
        guard line.count > 2 else { return false }
        var along = [0.0]
        for k in 1..<line.count {
            along.append(along[k - 1] + hypot(line[k].x - line[k - 1].x, line[k].y - line[k - 1].y))
        }
        for i in line.indices {
            for j in (i + 1)..<line.count where along[j] - along[i] > beyond {
                if 2 * hypot(line[j].x - line[i].x, line[j].y - line[i].y) < along[j] - along[i] { return true }
            }
        }
        return false
    }

    /// Whether the points form a street: the centre line at least `aspect` times as long as the
    /// band is wide.
    public func isStreet(aspect: Double) -> Bool { length >= aspect * 2 * halfWidth }

    /// Whether the points form a street that runs on: ``isStreet(aspect:)``, and the centre line
    /// does not turn back within two half-widths (``turnsBack(_:beyond:)``: a spine round three
    /// sides of a block lines the block's frontages, and a person draws the block). A street may
    /// bend, as round a corner.
    public func isOpenStreet(aspect: Double) -> Bool {
        isStreet(aspect: aspect) && !Self.turnsBack(centre, beyond: 2 * halfWidth)
    }

    /// The spine of points `x`, `y` over `edges` (indices into the points, with their lengths;
    /// Kruskal takes the shortest first, ties in the order given); nil when fewer than three points
    /// or no edge between distinct points.
    public init?(
        x: [Double], y: [Double], edges: [(a: Int, b: Int, length: Double)], minimumHalfWidth: Double
    ) {
        let count = x.count
        guard count >= 3, !edges.isEmpty else { return nil }
        let order = edges.indices.sorted { (edges[$0].length, $0) < (edges[$1].length, $1) }
        var sets = UnionFind(count: count)
        var tree = [[(to: Int, length: Double)]](repeating: [], count: count)
        for k in order {
            let (a, b, l) = edges[k]
            guard sets.union(Int32(a), Int32(b)).joined else { continue }
            tree[a].append((b, l))
            tree[b].append((a, l))
        }
        // The farthest node from `start` over the tree, and each node's predecessor.
        func farthest(from start: Int) -> (node: Int, previous: [Int]) {
            var distance = [Double](repeating: -1, count: count)
            var previous = [Int](repeating: -1, count: count)
            distance[start] = 0
            var stack = [start]
            var best = start
            while let v = stack.popLast() {
                if distance[v] > distance[best] || (distance[v] == distance[best] && v < best) { best = v }
                for (w, l) in tree[v] where distance[w] < 0 {
                    distance[w] = distance[v] + l
                    previous[w] = v
                    stack.append(w)
                }
            }
            return (best, previous)
        }
        guard let start = tree.indices.first(where: { !tree[$0].isEmpty }) else { return nil }
        let a = farthest(from: start).node
        let (b, previous) = farthest(from: a)
        guard a != b else { return nil }
        var path = [b]
        while path.last! != a { path.append(previous[path.last!]) }
        let centre = path.indices.map { k -> (x: Double, y: Double) in
            let window = max(0, k - 2)...min(path.count - 1, k + 2)
            let n = Double(window.count)
            return (window.reduce(0) { $0 + x[path[$1]] } / n, window.reduce(0) { $0 + y[path[$1]] } / n)
        }
        let length = Self.length(of: centre)
        // Each point hangs on the spine node the tree reaches it from.
        var anchor = [Int](repeating: -1, count: count)
        var queue: [Int] = []
        for (k, v) in path.enumerated() {
            anchor[v] = k
            queue.append(v)
        }
        var head = 0
        while head < queue.count {
            let v = queue[head]
            head += 1
            for (w, _) in tree[v] where anchor[w] < 0 {
                anchor[w] = anchor[v]
                queue.append(w)
            }
        }
        func segmentDistance(_ px: Double, _ py: Double, _ k: Int) -> Double {
            Self.distance(px, py, toSegment: centre[k], centre[k + 1])
        }
        var offsets = [Double?](repeating: nil, count: count)
        var reached: [Double] = []
        for j in 0..<count where anchor[j] >= 0 {
            let k = anchor[j]
            var d = Double.infinity
            for s in max(0, k - 2)...min(centre.count - 2, k + 1) { d = min(d, segmentDistance(x[j], y[j], s)) }
            offsets[j] = d
            reached.append(d)
        }
        self.path = path
        self.centre = centre
        self.length = length
        self.offsets = offsets
        self.halfWidth = max(2 * Selection.median(reached), minimumHalfWidth)
    }
}
