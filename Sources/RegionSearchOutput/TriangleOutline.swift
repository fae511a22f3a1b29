import Foundation

/// The outline of the union of triangles that form a coverage — no two overlap, and two that meet
/// along a side share that side's two corners — traced from their sides without any overlay: a side
/// that belongs to one triangle only is on the outline, and the outline's sides chain into rings.
///
/// The skeleton's triangles of a region are such a coverage once the triangles that hold a corner
/// of another inside them are set aside (``RegionPolygonBuilder``), because they all come from one
/// planar triangulation. GEOS 3.11's coverage union, which should do the same, refuses many of them
/// (its polygonizer mistakes holes that touch at a corner); its cascaded union is correct but
/// overlays the triangles pairwise, seconds per large region.
///
/// Rings are traced with the interior on the left, taking at a corner where parts or holes touch
/// the side that turns most to the left, and cut into simple loops where they pass a corner twice:
/// parts that touch at a point are separate polygons, and a hole that touches its exterior ring at a
/// point is a separate ring — both valid for GEOS. The order of everything depends only on the
/// corner indices.
enum TriangleOutline {
    /// The polygons of the union: per polygon, its exterior ring then its holes, each a list of
    /// corner indices (not closed); nil when the triangles are not a coverage that can be traced
    /// (a side shared by more than two triangles or by two on the same side of it, a degenerate
    /// ring). The caller still checks the result (validity and area) before trusting it.
    static func polygons(_ triangles: [(Int, Int, Int)], x: [Double], y: [Double]) -> [[[Int]]]? {
        guard let sides = boundary(triangles, x: x, y: y), let rings = trace(sides, x: x, y: y) else { return nil }
        var shells: [(ring: [Int], area: Double)] = []
        var holes: [[Int]] = []
        for ring in rings {
            let area = signedArea(ring, x: x, y: y)
            if area > 0 {
                shells.append((ring, area))
            } else if area < 0 {
                holes.append(ring)
            } else {
                return nil
            }
        }
        var polygons = shells.map { [$0.ring] }
        for hole in holes {
            // The midpoint of a side of the hole lies inside its polygon's exterior ring and on no
            // other ring (no two rings share a side); the smallest exterior holding it is the hole's.
            let (a, b) = (hole[0], hole[1])
            let px = 0.5 * (x[a] + x[b])
            let py = 0.5 * (y[a] + y[b])
            var owner: Int?
            for (s, shell) in shells.enumerated() where contains(shell.ring, px, py, x: x, y: y) {
                if owner.map({ shell.area < shells[$0].area }) ?? true { owner = s }
            }
            guard let owner else { return nil }
            polygons[owner].append(hole)
        }
        return polygons
    }

    /// The sides on the outline, each directed with the interior on its left, sorted.
    static func boundary(_ triangles: [(Int, Int, Int)], x: [Double], y: [Double]) -> [(Int, Int)]? {
        // Each side as (low corner, high corner, whether it runs low → high), sorted: a side on the
        // outline occurs once, a side between two triangles twice, in opposite directions.
        var sides: [(UInt64, Bool)] = []
        sides.reserveCapacity(3 * triangles.count)
        for (a, b, c) in triangles {
            let turn = orientation(x[a], y[a], x[b], y[b], x[c], y[c])
            guard turn != 0 else { return nil }
            let ring = turn > 0 ? [a, b, c] : [a, c, b]
            for k in 0..<3 {
                let u = ring[k]
                let v = ring[(k + 1) % 3]
                sides.append((UInt64(min(u, v)) << 32 | UInt64(max(u, v)), u < v))
            }
        }
        sides.sort { $0.0 != $1.0 ? $0.0 < $1.0 : (!$0.1 && $1.1) }
        var out: [(Int, Int)] = []
        var k = 0
        while k < sides.count {
            var end = k + 1
            while end < sides.count && sides[end].0 == sides[k].0 { end += 1 }
            let lo = Int(sides[k].0 >> 32)
            let hi = Int(sides[k].0 & 0xFFFF_FFFF)
            switch end - k {
            case 1: out.append(sides[k].1 ? (lo, hi) : (hi, lo))
            case 2: guard sides[k].1 != sides[k + 1].1 else { return nil }
            default: return nil
            }
            k = end
        }
        return out
    }

    /// Chains directed sides (interior on the left) into closed rings.
    static func trace(_ sides: [(Int, Int)], x: [Double], y: [Double]) -> [[Int]]? {
        // Outgoing sides per corner: sides sorted by start corner, ranges found by binary search.
        let order = sides.indices.sorted { sides[$0] < sides[$1] }
        let starts = order.map { sides[$0].0 }
        func outgoing(_ v: Int) -> Range<Int> {
            var lo = 0
            var hi = starts.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if starts[mid] < v { lo = mid + 1 } else { hi = mid }
            }
            var end = lo
            while end < starts.count && starts[end] == v { end += 1 }
            return lo..<end
        }
        var used = [Bool](repeating: false, count: order.count)
        var rings: [[Int]] = []
        for first in 0..<order.count where !used[first] {
            var ring: [Int] = []
            var current = first
            while true {
                used[current] = true
                let (u, v) = sides[order[current]]
                ring.append(u)
                guard ring.count <= order.count else { return nil }
                // The side out of v that turns most to the left of u → v: the next one clockwise
                // from v → u. Around a corner the outline's sides alternate in and out, so this
                // pairs every side in with one side out, and a ring comes back to its first side.
                var best: Int?
                var bestTurn = -Double.infinity
                for candidate in outgoing(v) {
                    let w = sides[order[candidate]].1
                    let dx = x[v] - x[u]
                    let dy = y[v] - y[u]
                    let ex = x[w] - x[v]
                    let ey = y[w] - y[v]
                    let turn = atan2(dx * ey - dy * ex, dx * ex + dy * ey)
                    if turn > bestTurn {
                        bestTurn = turn
                        best = candidate
                    }
                }
                guard let next = best else { return nil }
                if next == first { break }
                guard !used[next] else { return nil }
                current = next
            }
            for loop in loops(ring) {
                guard loop.count >= 3 else { return nil }
                rings.append(loop)
            }
        }
        return rings
    }

    /// A traced ring cut into simple loops where it passes a corner twice: the tightest pairing of
    /// sides keeps touching parts apart, but it runs from an exterior ring into a hole that touches
    /// it at a corner; cut there, the exterior and the hole are each a ring (the hole clockwise).
    static func loops(_ ring: [Int]) -> [[Int]] {
        var position: [Int: Int] = [:]
        var path: [Int] = []
        var out: [[Int]] = []
        for v in ring {
            if let start = position[v] {
                out.append(Array(path[start...]))
                for u in path[(start + 1)...] { position[u] = nil }
                path.removeSubrange((start + 1)...)
            } else {
                position[v] = path.count
                path.append(v)
            }
        }
        out.append(path)
        return out
    }

    /// The sign of the turn a → b → c: 1 counter-clockwise, −1 clockwise, 0 collinear.
    static func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
        let d = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        return d > 0 ? 1 : (d < 0 ? -1 : 0)
    }

    /// The signed area of a ring (positive counter-clockwise), relative to its first corner.
    static func signedArea(_ ring: [Int], x: [Double], y: [Double]) -> Double {
        let x0 = x[ring[0]]
        let y0 = y[ring[0]]
        var sum = 0.0
        for k in 0..<ring.count {
            let i = ring[k]
            let j = ring[(k + 1) % ring.count]
            sum += (x[i] - x0) * (y[j] - y0) - (x[j] - x0) * (y[i] - y0)
        }
        return sum / 2
    }

    /// Whether (px, py) lies inside a ring (even–odd rule; the point is never on the ring here).
    static func contains(_ ring: [Int], _ px: Double, _ py: Double, x: [Double], y: [Double]) -> Bool {
        var inside = false
        var j = ring.count - 1
        for k in 0..<ring.count {
            let (xi, yi) = (x[ring[k]], y[ring[k]])
            let (xj, yj) = (x[ring[j]], y[ring[j]])
            if (yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi { inside.toggle() }
            j = k
        }
        return inside
    }
}
