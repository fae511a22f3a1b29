import RegionSearchStages

/// What one benchmark size runs: the stage processes in order, with their command lines and
/// files, and which of them make up each end-to-end pipeline.
///
/// Every stage is its own process, run alone (one after another), exactly as a user or the runner
/// runs it. Per size: ingest, project, then for each graph method the graph and, for each keyword
/// set, propagate → regions → hulls on it. An end-to-end pipeline is ingest + project + graph +
/// propagate + regions + hulls of one method and keyword set; its wall time is the sum of those six
/// process walls from the same repeat.
public struct BenchmarkPlan {
    /// One stage process.
    public struct Step {
        /// Unique within the plan, e.g. `propagate.delaunay.16kw`.
        public var id: String
        /// The stage (`ingest`, `project`, …); its executable is `regionsearch-<stage>`.
        public var stage: String
        public var arguments: [String]
        /// Files it writes (artifacts or GeoJSON), measured and hashed after the run.
        public var outputs: [String]
        /// Artifacts it reads (for the MB/s column).
        public var inputs: [String]
        var summaryPath: String
        public var method: String?
        var keywordCount: Int?
    }

    /// One end-to-end pipeline: the step ids in order.
    public struct Pipeline {
        public var method: String
        var keywordCount: Int
        public var steps: [String]
        public var name: String { "\(method), \(keywordCount) keyword\(keywordCount == 1 ? "" : "s")" }
    }

    /// The 16 benchmark keywords: categories of ``SyntheticCity`` in both scripts, the planted
    /// ones first, so a set of N keywords is the first N (1 = 咖啡, 2 = 咖啡,bank as the reference).
    public static let keywordPool = [
        "咖啡", "bank", "cafe", "restaurant", "美食", "银行", "hotel", "酒店",
        "school", "学校", "shop", "supermarket", "超市", "便利店", "pharmacy", "gym",
    ]

    public var steps: [Step] = []
    public var pipelines: [Pipeline] = []

    /// The plan for one input CSV, writing into `directory`.
    public init(csv: String, directory: String, methods: [String], k: Int, keywordCounts: [Int], threads: Int?) {
        func path(_ name: String) -> String { directory + "/" + name }
        // As the runner starts them: no fsync (see AtomicFile.durable).
        let common = ["--quiet", "--no-sync"] + (threads.map { ["--threads", String($0)] } ?? [])
        func add(
            _ id: String, _ stage: String, _ args: [String], outputs: [String], inputs: [String], method: String? = nil,
            keywords: Int? = nil
        ) {
            let summary = path(id + ".summary.json")
            steps.append(
                Step(
                    id: id, stage: stage, arguments: args + ["--summary", summary] + common, outputs: outputs,
                    inputs: inputs, summaryPath: summary, method: method, keywordCount: keywords))
        }
        let pois = path(IngestStage.definition.output("output").fileName)
        let projected = path(ProjectStage.definition.output("output").fileName)
        add("ingest", "ingest", [csv, "--output", pois, "--rejects", path("rejects.txt")], outputs: [pois], inputs: [])
        add("project", "project", ["--input", pois, "--output", projected], outputs: [projected], inputs: [pois])
        for method in methods {
            let graph = path("graph.\(method).rsa")
            let graphArgs =
                ["--input", projected, "--output", graph, "--method", method]
                + (method == "knn" ? ["--k", String(k)] : [])
            add("graph.\(method)", "graph", graphArgs, outputs: [graph], inputs: [projected], method: method)
            for count in keywordCounts {
                let tag = "\(method).\(count)kw"
                let keywords = Array(Self.keywordPool.prefix(count)).joined(separator: ",")
                let scores = path("scores.\(tag).rsa")
                let regions = path("regions.\(tag).rsa")
                let geojson = path("regions.\(tag).geojson")
                add(
                    "propagate.\(tag)", "propagate",
                    [
                        "--pois", pois, "--projected", projected, "--graph", graph, "--output", scores, "--keywords",
                        keywords,
                    ],
                    outputs: [scores], inputs: [pois, projected, graph], method: method, keywords: count)
                add(
                    "regions.\(tag)", "regions",
                    ["--projected", projected, "--graph", graph, "--scores", scores, "--output", regions],
                    outputs: [regions], inputs: [projected, graph, scores], method: method, keywords: count)
                add(
                    "hulls.\(tag)", "hulls",
                    ["--projected", projected, "--regions", regions, "--scores", scores, "--output", geojson],
                    outputs: [geojson], inputs: [projected, regions, scores], method: method, keywords: count)
                pipelines.append(
                    Pipeline(
                        method: method, keywordCount: count,
                        steps: [
                            "ingest", "project", "graph.\(method)", "propagate.\(tag)", "regions.\(tag)",
                            "hulls.\(tag)",
                        ]))
            }
        }
    }

    public func step(_ id: String) -> Step? { steps.first { $0.id == id } }
}
