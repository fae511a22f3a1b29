import CGEOS
import RegionSearchCore
import RegionSearchModel
import Synchronization

/// Counts the POIs inside written polygons, as a GIS "count points in polygon" on the output file
/// would: the test is GEOS `covers` on the polygon exactly as written (lon/lat, rounded to 7
/// decimals, holes included) against each point as the POI layer writes it (also rounded to 7
/// decimals), so the counts in a region's properties describe its polygon and agree with a join
/// of the two written layers even for a POI that is itself a hull vertex.
public struct PointCensus {
    let lon: Column<Double>
    let lat: Column<Double>
    /// Point indices (all, or those near the polygons) sorted by longitude, to find a polygon's
    /// candidates quickly.
    private let byLon: [UInt32]

    public init(lon: Column<Double>, lat: Column<Double>) {
        self.init(lon: lon, lat: lat, candidates: nil)
    }

    /// A census that will only be asked about `polygons` (each a list of parts, exterior ring
    /// first): only the points inside some part's bounding box are kept and sorted — a few
    /// percent of a city's POIs, instead of sorting all 10 million of them. The counts are the
    /// same: a point outside a part's box (widened by a grid step) is never inside the part.
    public init(lon: Column<Double>, lat: Column<Double>, near polygons: [[[GeoJSONWriter.Ring]]]) {
        var boxes: [GEOSEnvelope] = []
        for parts in polygons {
            for part in parts {
                guard let exterior = part.first, let x0 = exterior.lon.min(), let x1 = exterior.lon.max(),
                    let y0 = exterior.lat.min(), let y1 = exterior.lat.max()
                else { continue }
                // One grid step wider: a point is tested where it is written (rounded), and
                // rounding moves it by up to half a step.
                boxes.append(GEOSEnvelope(minX: x0 - 1e-7, minY: y0 - 1e-7, maxX: x1 + 1e-7, maxY: y1 + 1e-7))
            }
        }
        self.init(lon: lon, lat: lat, candidates: Self.points(lon: lon, lat: lat, inAny: boxes))
    }

    private init(lon: Column<Double>, lat: Column<Double>, candidates: [UInt32]?) {
        self.lon = lon
        self.lat = lat
        let count = candidates?.count ?? lon.count
        // A radix sort of order-preserving keys (finite doubles: flip every bit of negatives, the
        // sign bit of the rest): 1M points in ~20 ms instead of ~150 ms for a comparison sort. Any
        // order by longitude gives the same counts.
        var keys = [UInt64](repeating: 0, count: count)
        keys.withUnsafeMutableBufferPointer { keys in
            for k in 0..<keys.count {
                let bits = lon[candidates.map { Int($0[k]) } ?? k].bitPattern
                keys[k] = bits >> 63 == 1 ? ~bits : bits | (1 << 63)
            }
        }
        let order = RadixSort.order(byKeys: keys)
        byLon = candidates.map { c in order.map { c[Int($0)] } } ?? order
    }

    /// The points inside at least one of `boxes` (closed), in index order: a coarse grid over
    /// the boxes' extent marks the cells any box touches, so each point costs a cell lookup.
    static func points(lon: Column<Double>, lat: Column<Double>, inAny boxes: [GEOSEnvelope]) -> [UInt32] {
        guard let first = boxes.first else { return [] }
        var all = first
        for b in boxes.dropFirst() {
            all.minX = min(all.minX, b.minX)
            all.minY = min(all.minY, b.minY)
            all.maxX = max(all.maxX, b.maxX)
            all.maxY = max(all.maxY, b.maxY)
        }
        let side = 512
        let sx = all.maxX > all.minX ? Double(side) / (all.maxX - all.minX) : 0
        let sy = all.maxY > all.minY ? Double(side) / (all.maxY - all.minY) : 0
        func cell(_ v: Double, _ lo: Double, _ scale: Double) -> Int { min(side - 1, max(0, Int((v - lo) * scale))) }
        // Per cell, the boxes that overlap it (a cell a box merely touches counts: closed boxes).
        var cells = [[Int32]](repeating: [], count: side * side)
        for (i, b) in boxes.enumerated() {
            for cy in cell(b.minY, all.minY, sy)...cell(b.maxY, all.minY, sy) {
                for cx in cell(b.minX, all.minX, sx)...cell(b.maxX, all.minX, sx) {
                    cells[cy * side + cx].append(Int32(i))
                }
            }
        }
        var out: [UInt32] = []
        for i in 0..<lon.count {
            let x = lon[i]
            let y = lat[i]
            guard x >= all.minX, x <= all.maxX, y >= all.minY, y <= all.maxY else { continue }
            for b in cells[cell(y, all.minY, sy) * side + cell(x, all.minX, sx)] {
                let box = boxes[Int(b)]
                if x >= box.minX && x <= box.maxX && y >= box.minY && y <= box.maxY {
                    out.append(UInt32(i))
                    break
                }
            }
        }
        return out
    }

    /// All POIs, and those with `match` set, inside the polygon parts (exterior + holes each).
    ///
    /// The answer is GEOS `covers` for every candidate point, but most points are decided by the
    /// cell they fall in: the part's box is cut into a grid, every cell a ring segment passes
    /// through (and its eight neighbours, so no rounding can hide a crossing) is a *boundary*
    /// cell whose points GEOS tests one by one, and every other cell lies wholly inside or wholly
    /// outside the part — one `covers` of its centre decides all its points. A region of a
    /// hundred thousand POIs costs a few thousand GEOS calls instead of a hundred thousand.
    public func count(_ parts: [[GeoJSONWriter.Ring]], match: Column<UInt8>, geos: GEOSContext) throws(GEOSError)
        -> (all: Int, matching: Int)
    {
        var all = 0
        var matching = 0
        for part in parts {
            let polygon = try geos.polygon(rings: part.map { (x: $0.lon, y: $0.lat) })
            guard let box = polygon.envelope else { continue }
            let prepared = try polygon.prepared()
            var lo = 0
            var hi = byLon.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if lon[Int(byLon[mid])] < box.minX - 1e-7 { lo = mid + 1 } else { hi = mid }
            }
            // The candidates: written position inside the part's box.
            var xs: [Double] = []
            var ys: [Double] = []
            var rows: [Int] = []
            var k = lo
            while k < byLon.count {
                let i = Int(byLon[k])
                k += 1
                // Candidates are found by the unrounded longitude; rounding moves a point by at most
                // half a grid step, so the window is widened by one step on each side.
                if lon[i] > box.maxX + 1e-7 { break }
                let x = GeoJSONWriter.rounded(lon[i])
                let y = GeoJSONWriter.rounded(lat[i])
                guard x >= box.minX && x <= box.maxX && y >= box.minY && y <= box.maxY else { continue }
                xs.append(x)
                ys.append(y)
                rows.append(i)
            }
            guard !rows.isEmpty else { continue }
            let cells = CellGrid(box: box, points: rows.count, rings: part)
            var verdict = [Int8](repeating: 0, count: cells.count)  // 0 unknown, 1 inside, -1 outside
            for c in 0..<rows.count {
                let cell = cells.cell(xs[c], ys[c])
                let inside: Bool
                if cells.boundary[cell] {
                    inside = try prepared.covers(x: xs[c], y: ys[c])
                } else {
                    if verdict[cell] == 0 {
                        let (cx, cy) = cells.centre(cell)
                        verdict[cell] = try prepared.covers(x: cx, y: cy) ? 1 : -1
                    }
                    inside = verdict[cell] == 1
                }
                if inside {
                    all += 1
                    if match[rows[c]] != 0 { matching += 1 }
                }
            }
        }
        return (all, matching)
    }
}

extension PointCensus {
    /// ``count(_:match:geos:)`` for every polygon (a list of parts each), on all threads (one GEOS
    /// context per worker), the counts in polygon order: the same for any thread count.
    public static func countAll(
        _ census: PointCensus, _ polygons: [[[GeoJSONWriter.Ring]]], match: (Int) -> Column<UInt8>
    ) throws -> [(all: Int, matching: Int)] {
        var out = [Result<(all: Int, matching: Int), Error>](repeating: .success((0, 0)), count: polygons.count)
        let next = Atomic<Int>(0)
        out.withUnsafeMutableBufferPointer { out in
            let out = out
            Parallel.forEach(max(1, min(Parallel.threadCount, polygons.count))) { _ in
                let geos = GEOSContext()
                while true {
                    let k = next.add(1, ordering: .relaxed).oldValue
                    if k >= polygons.count { break }
                    out[k] = Result { try census.count(polygons[k], match: match(k), geos: geos) }
                }
            }
        }
        return try out.map { try $0.get() }
    }
}

/// A grid over a polygon part's box whose cells a ring segment passes through are marked, with
/// their eight neighbours (``PointCensus/count(_:match:geos:)``).
struct CellGrid {
    let minX: Double
    let minY: Double
    let nx: Int
    let ny: Int
    let sx: Double
    let sy: Double
    var boundary: [Bool]

    var count: Int { nx * ny }

    /// About one cell per four candidate points, at most 512 × 512.
    init(box: GEOSEnvelope, points: Int, rings: [GeoJSONWriter.Ring]) {
        let width = max(box.maxX - box.minX, 1e-12)
        let height = max(box.maxY - box.minY, 1e-12)
        let cells = Double(min(max(points / 4, 1), 512 * 512))
        let side = (width * height / cells).squareRoot()
        nx = min(512, max(1, Int((width / side).rounded(.up))))
        ny = min(512, max(1, Int((height / side).rounded(.up))))
        minX = box.minX
        minY = box.minY
        sx = Double(nx) / width
        sy = Double(ny) / height
        boundary = [Bool](repeating: false, count: nx * ny)
        for ring in rings {
            for v in 0..<max(0, ring.lon.count - 1) {
                mark(ring.lon[v], ring.lat[v], ring.lon[v + 1], ring.lat[v + 1])
            }
        }
    }

    func cell(_ x: Double, _ y: Double) -> Int {
        let cx = min(nx - 1, max(0, Int((x - minX) * sx)))
        let cy = min(ny - 1, max(0, Int((y - minY) * sy)))
        return cy * nx + cx
    }

    func centre(_ cell: Int) -> (Double, Double) {
        (minX + (Double(cell % nx) + 0.5) / sx, minY + (Double(cell / nx) + 0.5) / sy)
    }

    /// Marks every cell the segment's box meets along it: the segment is cut into steps shorter
    /// than a cell, and each step's box (grown by a cell on every side) is marked.
    private mutating func mark(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let steps = max(1, Int((max(abs(x1 - x0) * sx, abs(y1 - y0) * sy)).rounded(.up)))
        for s in 0..<steps {
            let t0 = Double(s) / Double(steps)
            let t1 = Double(s + 1) / Double(steps)
            let ax = x0 + (x1 - x0) * t0
            let ay = y0 + (y1 - y0) * t0
            let bx = x0 + (x1 - x0) * t1
            let by = y0 + (y1 - y0) * t1
            let c0 = Int(((min(ax, bx) - minX) * sx).rounded(.down)) - 1
            let c1 = Int(((max(ax, bx) - minX) * sx).rounded(.down)) + 1
            let r0 = Int(((min(ay, by) - minY) * sy).rounded(.down)) - 1
            let r1 = Int(((max(ay, by) - minY) * sy).rounded(.down)) + 1
            for r in max(0, r0)...min(ny - 1, max(0, r1)) where r <= ny - 1 {
                for c in max(0, c0)...min(nx - 1, max(0, c1)) where c <= nx - 1 {
                    boundary[r * nx + c] = true
                }
            }
        }
    }
}
