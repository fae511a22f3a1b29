import Foundation
import RegionSearchCore
import RegionSearchModel

/// Projects WGS84 lon/lat to a metric CRS with PROJ, in bulk and in parallel (one PROJ context
/// per thread), and orders the result along a Hilbert curve.
public enum Projector {
    /// The projected points in Hilbert order, the CRS used, and the input rows that failed.
    public struct Result {
        public var points: ProjectedPoints
        public var choice: CRSChoice
        public var crsName: String
        public var extent: GeographicExtent?
        /// Input rows whose projection was not finite (dropped, reported).
        public var failedRows: [Int]
    }

    /// Resolves `crs` ("auto" or anything PROJ accepts) and projects all points.
    public static func project(lon: UnsafeBufferPointer<Double>, lat: UnsafeBufferPointer<Double>, crs: String) throws
        -> Result
    {
        let n = lon.count
        var extent: GeographicExtent?
        let choice: CRSChoice
        if crs == "auto" {
            guard n > 0 else { throw ToolFailure("no points to project", status: .inputData) }
            let e = GeographicExtent(lon: lon, lat: lat).trimmed(lon: lon, lat: lat, share: CRSChoice.outlierShare)
            extent = e
            var auto = CRSChoice.automatic(for: e)
            if auto.isLocal, let zone = auto.utmCentralMeridian {
                // Points the chosen UTM zone cannot represent well (far outliers).
                var outside = 0
                for i in 0..<n
                where abs(normalizeLongitude(lon[i] - zone)) > CRSChoice.utmHalfWidth || lat[i] < -80 || lat[i] > 84 {
                    outside += 1
                }
                if outside > 0 {
                    auto.explanation +=
                        "; \(outside) outlying point\(outside == 1 ? " lies" : "s lie") beyond the zone's reach (far "
                        + "from the rest of the data) and will be isolated in the graph"
                }
            }
            choice = auto
        } else {
            // PROJ reads a bare "+proj=…" string as an operation, not a CRS, without +type=crs.
            let definition = crs.hasPrefix("+proj=") && !crs.contains("+type=crs") ? crs + " +type=crs" : crs
            choice = CRSChoice(definition: definition, explanation: "named in the parameters", isLocal: true)
        }
        let context = PROJContext()
        let info: (name: String, isProjected: Bool, metresPerUnit: Double?)
        do {
            info = try context.describe(choice.definition)
        } catch {
            throw UsageError(
                "crs: \(error.message); name a projected CRS in metres, e.g. \"EPSG:3067\" or \"+proj=utm +zone=35 "
                    + "+datum=WGS84\", or use \"auto\""
            )
        }
        guard info.isProjected else {
            throw UsageError(
                "crs: '\(choice.definition)' (\(info.name)) is not a projected CRS; distances must be in metres — "
                    + "name a projected CRS or use \"auto\""
            )
        }
        guard let unit = info.metresPerUnit, abs(unit - 1) < 1e-12 else {
            throw UsageError(
                "crs: '\(choice.definition)' (\(info.name)) does not use metres as its unit; name a CRS in metres or "
                    + "use \"auto\""
            )
        }
        // Validate the transformation once on the main thread so a bad definition fails early;
        // the first worker then uses it.
        let first = try context.transformation(from: "EPSG:4326", to: choice.definition)

        var x = Array(lon)
        var y = Array(lat)
        let workers = max(1, min(Parallel.threadCount, n / 50_000))
        let size = (n + workers - 1) / max(workers, 1)
        var failedPerWorker = [[Int]](repeating: [], count: workers)
        var errors = [PROJError?](repeating: nil, count: workers)
        x.withUnsafeMutableBufferPointer { xb in
            y.withUnsafeMutableBufferPointer { yb in
                failedPerWorker.withUnsafeMutableBufferPointer { fb in
                    errors.withUnsafeMutableBufferPointer { eb in
                        Parallel.forEach(workers) { w in
                            let lo = w * size
                            let hi = min(n, lo + size)
                            guard lo < hi else { return }
                            do throws(PROJError) {
                                let t =
                                    w == 0
                                    ? first : try PROJContext().transformation(from: "EPSG:4326", to: choice.definition)
                                let failed = try t.transform(
                                    x: UnsafeMutableBufferPointer(rebasing: xb[lo..<hi]),
                                    y: UnsafeMutableBufferPointer(rebasing: yb[lo..<hi]))
                                fb[w] = failed.map { $0 + lo }
                            } catch {
                                eb[w] = error
                            }
                        }
                    }
                }
            }
        }
        if let e = errors.compactMap({ $0 }).first { throw e }
        let failed = failedPerWorker.flatMap { $0 }
        // Points that failed are left out (usually none: then nothing is copied).
        var keep: [UInt32] = []
        if !failed.isEmpty {
            keep.reserveCapacity(n - failed.count)
            var f = 0
            for i in 0..<n {
                if f < failed.count && failed[f] == i {
                    f += 1
                    continue
                }
                keep.append(UInt32(i))
            }
            x = keep.map { x[Int($0)] }
            y = keep.map { y[Int($0)] }
        }
        let order = x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { by in HilbertOrder.permutation(x: bx, y: by) }
        }
        let m = order.count
        // Five gathers in Hilbert order, split over threads by output range.
        var rows = [UInt32](repeating: 0, count: m)
        var px = [Double](repeating: 0, count: m)
        var py = [Double](repeating: 0, count: m)
        var plon = [Double](repeating: 0, count: m)
        var plat = [Double](repeating: 0, count: m)
        order.withUnsafeBufferPointer { order in
            keep.withUnsafeBufferPointer { keep in
                x.withUnsafeBufferPointer { x in
                    y.withUnsafeBufferPointer { y in
                        rows.withUnsafeMutableBufferPointer { rows in
                            px.withUnsafeMutableBufferPointer { px in
                                py.withUnsafeMutableBufferPointer { py in
                                    plon.withUnsafeMutableBufferPointer { plon in
                                        plat.withUnsafeMutableBufferPointer { plat in
                                            let (rows, px, py, plon, plat) = (rows, px, py, plon, plat)
                                            let kept = !keep.isEmpty
                                            Parallel.forRanges(m, minChunk: 1 << 16) { range in
                                                for t in range {
                                                    let k = Int(order[t])
                                                    let r = kept ? Int(keep[k]) : k
                                                    rows[t] = UInt32(truncatingIfNeeded: r)
                                                    px[t] = x[k]
                                                    py[t] = y[k]
                                                    plon[t] = lon[r]
                                                    plat[t] = lat[r]
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        var points = ProjectedPoints()
        points.x = Column(px)
        points.y = Column(py)
        points.row = Column(rows)
        points.lon = Column(plon)
        points.lat = Column(plat)
        return Result(points: points, choice: choice, crsName: info.name, extent: extent, failedRows: failed)
    }
}
