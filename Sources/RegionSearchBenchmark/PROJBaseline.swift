import RegionSearchCore
import RegionSearchProjection

/// PROJ's own bulk throughput on this machine: `proj_trans_generic` over the same lon/lat and the
/// same CRS pair as the `project` stage, with nothing else timed.
///
/// Transformations and contexts are created before the clock starts and the coordinates are
/// copied fresh before each timed call, so the figure is PROJ's transform rate alone — the
/// yardstick for "project ≥ 80 % of PROJ's own throughput". It runs in a child process of the
/// benchmark (`regionsearch-bench --proj-baseline POIS.rsa --crs CRS`) so the benchmark's own
/// memory stays small (see ``MeasuredProcess``).
public enum PROJBaseline {
    public struct Result {
        public var points: Int
        public var crs: String
        /// Median seconds of one bulk call over all points, on one thread.
        var singleThreadSeconds: Double
        /// Median seconds with the points split into one contiguous part per thread, one PROJ
        /// context per thread.
        var allThreadsSeconds: Double
        public var threads: Int

        public var json: JSONValue {
            .object([
                ("points", .number(Double(points))),
                ("crs", .string(crs)),
                ("threads", .number(Double(threads))),
                ("single_thread_seconds", .number(singleThreadSeconds)),
                ("all_threads_seconds", .number(allThreadsSeconds)),
                ("single_thread_points_per_s", .number(Double(points) / singleThreadSeconds)),
                ("all_threads_points_per_s", .number(Double(points) / allThreadsSeconds)),
            ])
        }
    }

    /// Measures `repeats` timed calls per mode over the lon/lat of a `pois` artifact.
    public static func measure(poisPath: String, crs: String, repeats: Int) throws -> Result {
        let file = try ArtifactFile(path: poisPath, expected: .pois)
        let lon = Array(try file.column("lon", as: Double.self))
        let lat = Array(try file.column("lat", as: Double.self))
        let n = lon.count
        let threads = max(1, Parallel.threadCount)
        let parts = max(1, min(threads, n))
        let partSize = (n + parts - 1) / parts
        var contexts: [PROJContext] = []
        var transforms: [PROJTransform] = []
        for _ in 0..<parts {
            let context = PROJContext()
            contexts.append(context)
            transforms.append(try context.transformation(from: "EPSG:4326", to: crs))
        }
        var x = lon
        var y = lat
        func bulk(
            _ t: PROJTransform, _ xb: UnsafeMutableBufferPointer<Double>, _ yb: UnsafeMutableBufferPointer<Double>
        ) { t.transformUnchecked(x: xb, y: yb) }
        var single: [Double] = []
        var all: [Double] = []
        for _ in 0..<max(1, repeats) {
            x = lon
            y = lat
            let t0 = monotonicSeconds()
            x.withUnsafeMutableBufferPointer { xb in
                y.withUnsafeMutableBufferPointer { yb in bulk(transforms[0], xb, yb) }
            }
            single.append(monotonicSeconds() - t0)
            x = lon
            y = lat
            let t1 = monotonicSeconds()
            x.withUnsafeMutableBufferPointer { xb in
                y.withUnsafeMutableBufferPointer { yb in
                    let xb = xb
                    let yb = yb
                    let list = transforms
                    Parallel.forEach(parts) { p in
                        let lo = p * partSize
                        let hi = min(n, lo + partSize)
                        if lo < hi {
                            bulk(
                                list[p], UnsafeMutableBufferPointer(rebasing: xb[lo..<hi]),
                                UnsafeMutableBufferPointer(rebasing: yb[lo..<hi]))
                        }
                    }
                }
            }
            all.append(monotonicSeconds() - t1)
        }
        withExtendedLifetime(contexts) {}
        return Result(
            points: n, crs: crs, singleThreadSeconds: BenchmarkStatistics.median(single),
            allThreadsSeconds: BenchmarkStatistics.median(all), threads: parts)
    }
}
