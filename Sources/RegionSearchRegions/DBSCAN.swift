import RegionSearchModel

/// DBSCAN (Ester et al. 1996) over the keyword's matching POIs only — the baseline most people
/// reach for first. It measures absolute keyword density, not the keyword's share among all POIs,
/// so one `eps` cannot suit a dense centre and a sparse suburb; RegionSearch offers it so
/// experiments can show the difference.
public enum DBSCAN {
    /// Clusters of `points` (indices into x/y), each sorted ascending; noise is left out.
    /// Points are visited in index order and a border point joins the first cluster that reaches
    /// it, so the result is deterministic.
    public static func clusters(points: [Int], x: Column<Double>, y: Column<Double>, eps: Double, minSamples: Int)
        -> [[UInt32]]
    {
        guard !points.isEmpty, eps > 0 else { return [] }
        var minX = Double.infinity
        var minY = Double.infinity
        for p in points {
            minX = min(minX, x[p])
            minY = min(minY, y[p])
        }
        // Grid with cells of side eps: neighbours lie in the 3 × 3 block around a point's cell.
        struct Cell: Hashable {
            var cx: Int64
            var cy: Int64
        }
        var cells: [Cell: [Int]] = [:]
        var cellOf = [Cell](repeating: Cell(cx: 0, cy: 0), count: points.count)
        for (k, p) in points.enumerated() {
            let c = Cell(
                cx: Int64(((x[p] - minX) / eps).rounded(.down)), cy: Int64(((y[p] - minY) / eps).rounded(.down)))
            cellOf[k] = c
            cells[c, default: []].append(k)
        }
        let eps2 = eps * eps
        func neighbours(_ k: Int) -> [Int] {
            let p = points[k]
            var out: [Int] = []
            let c = cellOf[k]
            for dx in -1...1 {
                for dy in -1...1 {
                    guard let list = cells[Cell(cx: c.cx + Int64(dx), cy: c.cy + Int64(dy))] else { continue }
                    for j in list {
                        let q = points[j]
                        let ddx = x[p] - x[q]
                        let ddy = y[p] - y[q]
                        if ddx * ddx + ddy * ddy <= eps2 { out.append(j) }
                    }
                }
            }
            return out.sorted()
        }
        let neighbourLists = (0..<points.count).map { neighbours($0) }
        let isCore = neighbourLists.map { $0.count >= minSamples }
        var label = [Int](repeating: -1, count: points.count)
        var result: [[UInt32]] = []
        for s in 0..<points.count where isCore[s] && label[s] < 0 {
            let id = result.count
            var members: [Int] = [s]
            label[s] = id
            var head = 0
            while head < members.count {
                let k = members[head]
                head += 1
                guard isCore[k] else { continue }
                for j in neighbourLists[k] where label[j] < 0 {
                    label[j] = id
                    members.append(j)
                }
            }
            result.append(members.map { UInt32(points[$0]) }.sorted())
        }
        return result
    }
}
