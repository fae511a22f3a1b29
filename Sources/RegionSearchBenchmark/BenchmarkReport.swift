import Foundation
import RegionSearchCore
import RegionSearchOutput
import RegionSearchProjection
import RegionSearchStages

/// Turns benchmark results into the Markdown tables of BENCHMARKS.md and a JSON record.
public struct BenchmarkReport {
    public var results: [BenchmarkResults]
    public var commandLine: String
    public var threads: Int
    public var rssFloor: Int
    public var repeats: Int

    public init(results: [BenchmarkResults], commandLine: String, threads: Int, rssFloor: Int, repeats: Int) {
        self.results = results
        self.commandLine = commandLine
        self.threads = threads
        self.rssFloor = rssFloor
        self.repeats = repeats
    }

    // MARK: Formatting

    static func f(_ v: Double, _ digits: Int) -> String {
        v.isFinite ? String(format: "%.\(digits)f", v) : "–"
    }

    /// 1234567 → "1.23 M", 45678 → "45.7 k".
    static func rate(_ v: Double) -> String {
        guard v.isFinite, v > 0 else { return "–" }
        if v >= 1e9 { return f(v / 1e9, 2) + " G" }
        if v >= 1e6 { return f(v / 1e6, 2) + " M" }
        if v >= 1e3 { return f(v / 1e3, 1) + " k" }
        return f(v, 0)
    }

    static func mb(_ bytes: Int) -> String { f(Double(bytes) / 1e6, 1) }

    static func percent(_ part: Double?, _ whole: Double) -> String {
        guard let part, whole > 0 else { return "–" }
        return f(100 * part / whole, 1) + " %"
    }

    // MARK: Derived figures

    /// Undirected edges of the graph a step works on (from the graph step's summary).
    static func edges(_ r: BenchmarkResults, method: String?) -> Double? {
        guard let method else { return nil }
        return r.step("graph.\(method)")?.summary.count(.edges).map(Double.init)
    }

    /// Bytes of the artifacts a step reads plus what it writes (for MB/s).
    static func artifactBytes(_ r: BenchmarkResults, _ s: BenchmarkResults.StepResult) -> Int {
        var total = s.outputBytes
        for input in s.step.inputs {
            if let producer = r.steps.first(where: { $0.step.outputs.contains(input) }) {
                total += producer.outputBytes / max(producer.step.outputs.count, 1)
            }
        }
        return total
    }

    /// PROJ's all-thread bulk rate at this size (points/s).
    static func projRate(_ r: BenchmarkResults) -> (single: Double, all: Double)? {
        guard let b = r.projBaseline, let s = b["single_thread_points_per_s"]?.doubleValue,
            let a = b["all_threads_points_per_s"]?.doubleValue
        else { return nil }
        return (s, a)
    }

    // MARK: Markdown

    public func markdown() -> String {
        var out = "## Machine and build\n\n"
        out += machineDescription().map { "- " + $0 + "\n" }.joined()
        out +=
            "- Threads per stage: \(threads); repeats as stated per size (medians; "
            + "peak RSS is the largest of the repeats)\n"
        out +=
            "- Peak RSS: \(MeasuredProcess.rssMethod); floor (a child started the same way that does nothing): "
            + "\(Self.mb(rssFloor)) MB\n"
        out += "\nCommand:\n\n```sh\n\(commandLine)\n```\n"
        if results.contains(where: { !$0.userPath.isEmpty }) { out += userPathSection() }
        for r in results where !r.steps.isEmpty { out += sizeSection(r) }
        if results.filter({ !$0.steps.isEmpty }).count >= 2 { out += growthSection() }
        out += targetSection()
        return out
    }

    static func loadText(_ v: (min: Double, median: Double, max: Double)?) -> String {
        guard let v else { return "–" }
        return "\(f(v.median, 2)) (\(f(v.min, 2))–\(f(v.max, 2)))"
    }

    static func spread(_ v: (min: Double, median: Double, max: Double)?, _ digits: Int) -> String {
        guard let v else { return "–" }
        return "**\(f(v.median, digits))** (\(f(v.min, digits))–\(f(v.max, digits)))"
    }

    /// The user's path: `regionsearch run --force` as a whole process beside the reference.
    func userPathSection() -> String {
        var out =
            "\n## The user's path: `regionsearch run MANIFEST --force`\n\n"
            + "Whole process (driver + six stages + hashing + publishing; no maps), cold and warm (nothing to do), "
            + "the reference (`refpipe.py`, 咖啡,bank) on the same CSV right after each cold run; median "
            + "(min–max) over the repeats, ratios pair by pair; load = 1-minute load average before each run.\n\n"
        out +=
            "| POIs | graph, keywords | wall s | CPU s | peak MB | warm rerun s | reference wall s | reference CPU s "
            + "| reference peak MB | reference / ours, wall | reference / ours, CPU | load | same output |\n"
        out += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
        for r in results {
            for c in r.userPath {
                let hasRef = !c.reference.isEmpty
                out +=
                    "| \(groupedCount(r.n)) | \(c.testCase.name) | \(Self.spread(c.coldWall, 2)) | "
                    + "\(Self.spread(c.coldCPU, 2)) | \(Self.mb(c.peakRSS)) | \(Self.spread(c.warmWall, 3)) | "
                    + (hasRef
                        ? "\(Self.spread(c.referenceWall, 2)) | \(Self.spread(c.referenceCPU, 2)) | "
                            + "\(Self.mb(c.referencePeakRSS)) | \(Self.spread(c.wallRatio, 1)) × | "
                            + "\(Self.spread(c.cpuRatio, 1)) × | "
                        : "– | – | – | – | – | ")
                    + "\(Self.loadText(c.loads)) | "
                    + "\(c.deterministic ? "yes" : "**NO**") |\n"
            }
        }
        out += "\nPer stage inside the cold runs (median seconds from `run.json`, each stage's own process):\n\n"
        out += "| POIs | graph, keywords | " + Pipeline.stages.map(\.name).joined(separator: " | ") + " | hashing |\n"
        out += "|---|---|" + Pipeline.stages.map { _ in "---:|" }.joined() + "---:|\n"
        for r in results {
            for c in r.userPath {
                out +=
                    "| \(groupedCount(r.n)) | \(c.testCase.name) | "
                    + c.medianStageSeconds.map { Self.f($0.1, 3) }.joined(separator: " | ")
                    + " | \(Self.f(BenchmarkStatistics.median(c.hashingSeconds), 3)) |\n"
            }
        }
        for r in results {
            guard let b = r.bandwidth, let one = b["single_thread_bytes_per_s"]?.doubleValue,
                let all = b["all_threads_bytes_per_s"]?.doubleValue
            else { continue }
            out +=
                "\nMemory bandwidth (\(b["method"]?.stringValue ?? "STREAM triad"); measured before the "
                + "\(groupedCount(r.n))-POI runs): \(Self.f(one / 1e9, 1)) GB/s on one thread, "
                + "\(Self.f(all / 1e9, 1)) GB/s on \(b["threads"]?.intValue ?? threads).\n"
        }
        return out
    }

    /// The propagation's bandwidth bound of a propagate step: bytes per iteration × iterations ÷
    /// the all-threads bandwidth, against its measured solve time.
    static func propagationBound(_ r: BenchmarkResults, _ s: BenchmarkResults.StepResult) -> (
        bound: Double, solve: Double, bytes: Double, iterations: Int
    )? {
        guard let all = r.bandwidth?["all_threads_bytes_per_s"]?.doubleValue,
            let solve = s.summary.detail("solve_seconds")?.doubleValue,
            let width = s.summary.detail("row_width")?.intValue,
            let iterations = s.summary.count(.iterations), let method = s.step.method,
            let edges = r.step("graph.\(method)")?.summary.count(.edges)
        else { return nil }
        let bytes = BandwidthProbe.solverBytesPerIteration(nodes: r.n, entries: 2 * edges, rowWidth: width)
        return (bytes * Double(iterations) / all, solve, bytes, iterations)
    }

    func machineDescription() -> [String] {
        var lines: [String] = []
        if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let model = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") })?.split(separator: ":")
                .last
        {
            lines.append(
                "CPU: \(model.trimmingCharacters(in: .whitespaces)), \(ProcessInfo.processInfo.activeProcessorCount) "
                    + "cores"
            )
        }
        lines.append("Memory: \(Self.f(Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30), 1)) GiB")
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #if os(Linux)
            let kernel = "Linux"
        #else
            // Darwin on macOS (whose /proc/cpuinfo is missing too: no CPU line there).
            let kernel = withUnsafeBytes(of: &u.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #endif
        lines.append("Kernel: \(kernel) \(release); \(ProcessInfo.processInfo.operatingSystemVersionString)")
        lines.append("PROJ \(PROJContext.release), GEOS \(GEOSContext.version)")
        return lines
    }

    func sizeSection(_ r: BenchmarkResults) -> String {
        var out = "\n## \(groupedCount(r.n)) POIs\n\n"
        out +=
            "Input: `\(r.inputPath)` (\(Self.mb(r.inputBytes)) MB CSV). Median of \(r.steps.first?.runs.count ?? 0) "
            + "run(s) per stage. "
            + "Load average (1 min) \(Self.f(r.loadBefore, 2)) before, \(Self.f(r.loadAfter, 2)) after.\n\n"
        out +=
            "| stage | wall s | CPU s | POIs/s | edges/s | MB/s | peak RSS MB | output MB | input load | output "
            + "write | same bytes |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
        for s in r.steps {
            let wall = s.wall
            let edges =
                ["graph", "propagate", "regions"].contains(s.step.stage) ? Self.edges(r, method: s.step.method) : nil
            let mbps =
                s.step.stage == "ingest"
                ? Double(r.inputBytes) / wall / 1e6 : Double(Self.artifactBytes(r, s)) / wall / 1e6
            let load: String = s.step.stage == "ingest" ? "(text)" : Self.percent(s.loadSeconds, wall)
            var same = s.deterministic ? "yes" : "**NO**"
            if let mismatches = r.threadMismatches {
                same += mismatches.contains(s.step.id) ? ", **threads 1 differs**" : ", = threads 1"
            }
            out +=
                "| \(s.step.id) | \(Self.f(wall, 3)) | \(Self.f(s.cpu, 2)) | \(Self.rate(Double(r.n) / wall)) | "
                + "\(edges.map { Self.rate($0 / wall) } ?? "–") | \(Self.f(mbps, 0)) | \(Self.mb(s.peakRSS)) | "
                + "\(Self.mb(s.outputBytes)) | \(load) | \(Self.percent(s.writeSeconds, wall)) | \(same) |\n"
        }
        out +=
            "\nEnd to end (sum of the six process walls of one repeat, "
            + "median over repeats; peak RSS of the largest stage):\n\n"
        out +=
            "| pipeline | wall s | CPU s | POIs/s | peak RSS MB | reference wall s | reference peak MB | reference / "
            + "ours |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for p in r.pipelines {
            guard let e = r.endToEnd(p) else { continue }
            var ref = "| – | – | –"
            if p.keywordCount == 2, let rs = r.referenceSummary(p.method) {
                ref = "| \(Self.f(rs.wall, 2)) | \(Self.mb(rs.peakRSS)) | **\(Self.f(rs.wall / e.wall, 1)) ×**"
            }
            out +=
                "| \(p.name) | \(Self.f(e.wall, 3)) | \(Self.f(e.cpu, 2)) | \(Self.rate(Double(r.n) / e.wall)) | "
                + "\(Self.mb(e.peakRSS)) \(ref) |\n"
        }
        if !r.reference.isEmpty {
            out +=
                "\nReference (`refpipe.py`, same CSV, keywords 咖啡,bank; kNN with k = the benchmark's k), stage "
                + "seconds measured inside its process:\n\n"
            for method in ["delaunay", "knn"] {
                guard let rs = r.referenceSummary(method) else { continue }
                out +=
                    "- \(method): process wall \(Self.f(rs.wall, 2)) s, peak RSS \(Self.mb(rs.peakRSS)) MB; "
                    + rs.stages.map { "\($0.0) \(Self.f($0.1, 3))" }.joined(separator: ", ") + "\n"
            }
        }
        if let (single, all) = Self.projRate(r), let p = r.step("project") {
            let phase = p.summary.seconds(.project)
            out +=
                "\nPROJ bulk baseline (`proj_trans_generic`, same points, same CRS "
                + "\(r.projBaseline?["crs"]?.stringValue ?? "?"), "
                + "in process, nothing else timed): \(Self.rate(single)) points/s on one thread, \(Self.rate(all)) "
                + "points/s on all threads "
                + "(\(Self.f(all / single, 2))× — about \(threads)× when every core is free, about 1× when other "
                + "work holds the rest). "
                + "The project stage: \(Self.rate(Double(r.n) / p.wall)) POIs/s over its whole process "
                + "(\(Self.f(100 * Double(r.n) / p.wall / all, 0)) % of PROJ)"
            if let phase, phase > 0 {
                out +=
                    ", \(Self.rate(Double(r.n) / phase)) POIs/s in its transform-and-order phase "
                    + "(\(Self.f(100 * Double(r.n) / phase / all, 0)) % of PROJ)"
            }
            out += ".\n"
        }
        return out
    }

    func growthSection() -> String {
        let sorted = results.sorted { $0.n < $1.n }
        var out =
            "\n## Growth with n\n\nExponent b of wall ∝ nᵇ between consecutive sizes (an exact n log n cost shows b "
            + "slightly above 1, given in brackets); peak RSS the same way.\n\n"
        var header = "| stage |"
        var rule = "|---|"
        for i in 1..<sorted.count {
            let b = BenchmarkStatistics.nLogNExponent(n1: Double(sorted[i - 1].n), n2: Double(sorted[i].n))
            header += " \(sorted[i - 1].label)→\(sorted[i].label) time (n log n: \(Self.f(b, 2))) |"
            rule += "---:|"
        }
        header += " fitted time | fitted RSS |\n"
        rule += "---:|---:|\n"
        out += header + rule
        var ids = sorted.last!.steps.map { $0.step.id }
        ids += sorted.last!.pipelines.map { "e2e: " + $0.name }
        for id in ids {
            var row = "| \(id) |"
            var points: [(n: Double, t: Double)] = []
            var rss: [(n: Double, t: Double)] = []
            var previous: (Double, Double)?
            for (i, r) in sorted.enumerated() {
                var t: Double?
                var m: Int?
                if id.hasPrefix("e2e: ") {
                    if let p = r.pipelines.first(where: { "e2e: " + $0.name == id }), let e = r.endToEnd(p) {
                        (t, m) = (e.wall, e.peakRSS)
                    }
                } else if let s = r.step(id) {
                    (t, m) = (s.wall, s.peakRSS)
                }
                if let t { points.append((Double(r.n), t)) }
                if let m { rss.append((Double(r.n), Double(m))) }
                if i > 0 {
                    if let t, let (n0, t0) = previous {
                        row += " \(Self.f(BenchmarkStatistics.exponent(n1: n0, t1: t0, n2: Double(r.n), t2: t), 2)) |"
                    } else {
                        row += " – |"
                    }
                }
                previous = t.map { (Double(r.n), $0) }
            }
            row +=
                " \(Self.f(BenchmarkStatistics.fittedExponent(points), 2)) | "
                + "\(Self.f(BenchmarkStatistics.fittedExponent(rss), 2)) |\n"
            out += row
        }
        return out
    }

    /// Issue 25's targets for the user's path (and issue 16's for the stages), checked against the
    /// 1M and 10M results when present.
    func targetSection() -> String {
        var rows: [(String, String, String)] = []
        func verdict(_ ok: Bool) -> String { ok ? "met" : "**missed**" }
        for r in results where r.n == 1_000_000 {
            for c in r.userPath where c.testCase.keywordCount == 2 {
                if let w = c.wallRatio, let u = c.cpuRatio {
                    // Delaunay: 6× in wall and 5× in CPU; kNN: 5× in both.
                    let wallTarget = c.testCase.method == "delaunay" ? 6.0 : 5.0
                    rows.append(
                        (
                            "≥ \(Self.f(wallTarget, 0))× the reference in wall and ≥ 5× in CPU (\(c.testCase.method), "
                                + "咖啡,bank)",
                            "wall \(Self.f(w.median, 1))×, CPU \(Self.f(u.median, 1))×",
                            verdict(w.median >= wallTarget && u.median >= 5)
                        ))
                }
                if let w = c.coldWall, c.testCase.method == "delaunay" {
                    rows.append(
                        (
                            "user path ≤ 1.5 s wall (\(c.testCase.method), 2 keywords)",
                            "\(Self.f(w.median, 2)) s (min \(Self.f(w.min, 2)))", verdict(w.median <= 1.5)
                        ))
                }
                if let w = c.warmWall {
                    rows.append(
                        (
                            "warm rerun ≤ 0.1 s (\(c.testCase.method))", "\(Self.f(w.median, 3)) s",
                            verdict(w.median <= 0.1)
                        ))
                }
            }
            for c in r.userPath where c.testCase.keywordCount == 16 {
                if let w = c.coldWall {
                    rows.append(
                        (
                            "16 keywords ≤ 2.5 s (\(c.testCase.method))", "\(Self.f(w.median, 2)) s",
                            verdict(w.median <= 2.5)
                        ))
                }
            }
            if let s = r.step("graph.delaunay"), let t = s.summary.seconds(.triangulate) {
                rows.append(
                    (
                        "Delaunay at 1M ≤ 0.35 s CPU (the triangulation, one thread)", "\(Self.f(t, 3)) s",
                        verdict(t <= 0.35)
                    ))
            }
            if let s = r.step("project"), let (single, _) = Self.projRate(r) {
                let stage = Double(r.n) / s.wall
                rows.append(
                    (
                        "projection ≥ 80 % of PROJ's single-thread bulk rate",
                        "\(Self.f(100 * stage / single, 0)) % (\(Self.rate(stage)) POIs/s, whole process, vs "
                            + "\(Self.rate(single)) points/s)",
                        verdict(stage >= 0.8 * single)
                    ))
            }
            for s in r.steps where s.step.stage == "propagate" && s.step.keywordCount == 2 {
                if let b = Self.propagationBound(r, s) {
                    rows.append(
                        (
                            "propagation within 1.5× of its bandwidth bound (\(s.step.id))",
                            "iterating \(Self.f(b.solve, 3)) s vs bound \(Self.f(b.bound, 3)) s "
                                + "(\(Self.f(b.bytes / 1e6, 0)) MB × \(b.iterations) iterations): "
                                + "\(Self.f(b.solve / b.bound, 2))×",
                            verdict(b.solve <= 1.5 * b.bound)
                        ))
                }
            }
            if let s = r.step("ingest") {
                let mbps = Double(r.inputBytes) / s.wall / 1e6
                rows.append(
                    (
                        "ingest ≥ 400 MB/s for CSV", "\(Self.f(mbps, 0)) MB/s over the whole process",
                        verdict(mbps >= 400)
                    ))
            }
        }
        for r in results where r.n == 10_000_000 {
            for c in r.userPath where c.testCase.keywordCount == 2 {
                if let w = c.coldWall {
                    // Delaunay: 12 s and 2.5 GB; kNN: 14 s.
                    let delaunay = c.testCase.method == "delaunay"
                    let limit = delaunay ? 12.0 : 14.0
                    rows.append(
                        (
                            "10M ≤ \(Self.f(limit, 0)) s wall" + (delaunay ? " and ≤ 2.5 GB peak" : "")
                                + " (\(c.testCase.method))",
                            "\(Self.f(w.median, 1)) s, \(Self.mb(c.peakRSS)) MB",
                            verdict(w.median <= limit && (!delaunay || c.peakRSS <= 2_500_000_000))
                        ))
                }
            }
        }
        guard !rows.isEmpty else { return "" }
        var out = "\n## Targets\n\n| target | measured | |\n|---|---|---|\n"
        for (t, m, v) in rows { out += "| \(t) | \(m) | \(v) |\n" }
        return out
    }

    // MARK: JSON

    public func json() -> JSONValue {
        var sizes: [JSONValue] = []
        for r in results {
            var steps: [JSONValue] = []
            for s in r.steps {
                steps.append(
                    .object([
                        ("id", .string(s.step.id)),
                        ("stage", .string(s.step.stage)),
                        ("arguments", .array(s.step.arguments.map { .string($0) })),
                        ("wall_seconds", .array(s.runs.map { .number($0.wall) })),
                        ("cpu_seconds", .array(s.runs.map { .number($0.cpu) })),
                        ("peak_rss_bytes", .array(s.runs.map { .number(Double($0.peakRSS)) })),
                        ("load_seconds", .array(s.runs.map { $0.loadSeconds.map { .number($0) } ?? .null })),
                        ("write_seconds", .array(s.runs.map { $0.writeSeconds.map { .number($0) } ?? .null })),
                        ("output_bytes", .number(Double(s.outputBytes))),
                        ("output_xxh64", .array((s.runs.last?.outputHashes ?? []).map { .string(hex64($0)) })),
                        ("deterministic", .bool(s.deterministic)),
                        ("median_wall_seconds", .number(s.wall)),
                        ("summary", s.summary.json),
                    ]))
            }
            var pipelines: [JSONValue] = []
            for p in r.pipelines {
                guard let e = r.endToEnd(p) else { continue }
                pipelines.append(
                    .object([
                        ("method", .string(p.method)), ("keywords", .number(Double(p.keywordCount))),
                        ("steps", .array(p.steps.map { .string($0) })),
                        ("wall_seconds", .number(e.wall)), ("cpu_seconds", .number(e.cpu)),
                        ("peak_rss_bytes", .number(Double(e.peakRSS))),
                    ]))
            }
            let reference: [JSONValue] = r.reference.map { run in
                .object([
                    ("method", .string(run.method)), ("wall_seconds", .number(run.wall)),
                    ("peak_rss_bytes", .number(Double(run.peakRSS))), ("regions", .number(Double(run.regions))),
                    ("stages", .object(run.stageSeconds.map { ($0.0, .number($0.1)) })),
                ])
            }
            sizes.append(
                .object([
                    ("label", .string(r.label)), ("n", .number(Double(r.n))), ("input", .string(r.inputPath)),
                    ("input_bytes", .number(Double(r.inputBytes))),
                    ("load_average_before", .number(r.loadBefore)), ("load_average_after", .number(r.loadAfter)),
                    ("steps", .array(steps)), ("pipelines", .array(pipelines)),
                    ("proj_baseline", r.projBaseline ?? .null), ("reference", .array(reference)),
                    ("bandwidth", r.bandwidth ?? .null), ("user_path", .array(r.userPath.map(Self.userPathJSON))),
                    ("threads_1_mismatches", r.threadMismatches.map { .array($0.map { .string($0) }) } ?? .null),
                ]))
        }
        return .object([
            ("command", .string(commandLine)), ("machine", .array(machineDescription().map { .string($0) })),
            ("threads", .number(Double(threads))), ("repeats", .number(Double(repeats))),
            ("rss_floor_bytes", .number(Double(rssFloor))), ("sizes", .array(sizes)),
        ])
    }

    static func userPathJSON(_ c: UserPathBenchmark.CaseResult) -> JSONValue {
        func runs(_ list: [UserPathBenchmark.Run]) -> JSONValue {
            .array(
                list.map { r in
                    .object([
                        ("wall_seconds", .number(r.usage.wall)), ("cpu_seconds", .number(r.usage.cpu)),
                        ("peak_rss_bytes", .number(Double(r.usage.peakRSS))), ("load_before", .number(r.loadBefore)),
                    ])
                })
        }
        return .object([
            ("method", .string(c.testCase.method)), ("keywords", .number(Double(c.testCase.keywordCount))),
            ("manifest", .string(c.testCase.manifest)), ("cold", runs(c.cold)), ("warm", runs(c.warm)),
            ("reference", runs(c.reference)),
            (
                "stage_seconds",
                .array(
                    c.stageSeconds.map { .object($0.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) }) })
            ),
            ("hashing_seconds", .array(c.hashingSeconds.map { .number($0) })),
            ("output_xxh64", .array(c.outputHashes.map { .string(hex64($0)) })),
        ])
    }
}
