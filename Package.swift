// swift-tools-version:6.0
import PackageDescription

// The layers, bottom up (docs/ARCHITECTURE.md says what each may import and where new code goes).
// A target depends only on targets above it in this list; the compiler rejects a cycle.

/// Support, diagnostics (log, exit codes, errors), command-line and parameter parsing, artifact
/// storage, the process spawner.
let core = "RegionSearchCore"
/// POIs, projected points, the adjacency graph, scores and regions, with their artifact codecs.
let model = "RegionSearchModel"
/// GDAL/OGR owners (datasets, layers, features, spatial references, the error collector) and the
/// writers of typed layers to files and PostGIS, used by ingest (any OGR input) and output.
let gdal = "RegionSearchGDAL"
/// One target per stage concern: pure domain code over the model.
let ingest = "RegionSearchIngest"
let projection = "RegionSearchProjection"
let graph = "RegionSearchGraph"
let propagation = "RegionSearchPropagation"
let regions = "RegionSearchRegions"
let output = "RegionSearchOutput"
/// Night after night: stable region ids (matching a result against the previous one), the change
/// report, the lineage file, and the labels people recognise.
let lineage = "RegionSearchLineage"
/// Scoring regions against truth, and synthetic cities with planted truth.
let evaluation = "RegionSearchEvaluation"
let synthetic = "RegionSearchSynthetic"
/// Map images (Cairo), the offline web map (Leaflet) and experiment plots.
let maps = "RegionSearchMaps"
/// The stage definitions (ports, typed options, versions) and the stage executables' wiring.
let stages = "RegionSearchStages"
/// Manifests (what a run reads and writes, checked before it starts) and the content-keyed runner
/// (stage keys, records, the work directory, publishing the outputs and maps as one set).
let runner = "RegionSearchRunner"
/// Tiled runs: the tile plan, its cost model, the tile steps and the Snakemake/Slurm workflow.
let tiles = "RegionSearchTiles"
/// Experiments: a grid of parameters over input sets, scored against truth, with plots.
let experiments = "RegionSearchExperiments"
/// The benchmark: every stage alone, and the user's path beside the reference.
let benchmark = "RegionSearchBenchmark"
/// The `regionsearch` driver and the tool commands (evaluate, generate, bench).
let cli = "RegionSearchCLI"

/// The stage executables; each is a thin `main.swift` over `RegionSearchStages`.
let stageExecutables = [
    "regionsearch-ingest",
    "regionsearch-project",
    "regionsearch-graph",
    "regionsearch-propagate",
    "regionsearch-regions",
    "regionsearch-hulls",
]

/// Tools beside the stages, thin `main.swift`s over `RegionSearchCLI`: the driver (`run`, `status`,
/// `clean`, dispatch), the evaluator, the synthetic POI generator, the benchmark command and the map
/// preview.
let toolExecutables = [
    "regionsearch",
    "regionsearch-evaluate",
    "regionsearch-generate",
    "regionsearch-bench",
    "regionsearch-preview",
]

let domain = [ingest, projection, graph, propagation, regions, output]
let libraries =
    [core, model, gdal] + domain
    + [lineage, evaluation, synthetic, maps, stages, runner, tiles, experiments, benchmark, cli]

func deps(_ names: [String]) -> [Target.Dependency] { names.map { .target(name: $0) } }

let testSupport = "RegionSearchTestSupport"
/// Unit tests, one target per library that has them (Tiles, Benchmark and the CLI are tested end to
/// end): each test file imports what it tests and what it builds its
/// inputs with (a C module where a test checks against the library itself: GEOS, zlib).
let unitTests: [(name: String, dependencies: [String])] = [
    ("RegionSearchCoreTests", [core, model, testSupport]),
    ("RegionSearchModelTests", [model, testSupport]),
    ("RegionSearchGDALTests", [gdal, testSupport, "CGDAL"]),
    ("RegionSearchIngestTests", [core, ingest, model, stages, testSupport, "CGEOS", "CZlib"]),
    ("RegionSearchProjectionTests", [core, projection]),
    ("RegionSearchGraphTests", [core, graph, model, stages, testSupport, "CGEOS"]),
    ("RegionSearchPropagationTests", [core, model, propagation, stages, testSupport]),
    (
        "RegionSearchRegionsTests",
        [core, graph, model, output, projection, propagation, regions, stages, synthetic, testSupport, "CGEOS"]
    ),
    ("RegionSearchOutputTests", [core, gdal, graph, model, output, projection, testSupport, "CGEOS"]),
    ("RegionSearchLineageTests", [core, lineage, output, testSupport]),
    (
        "RegionSearchEvaluationTests",
        [cli, core, evaluation, model, output, projection, synthetic, testSupport, "CGEOS"]
    ),
    ("RegionSearchSyntheticTests", [cli, core, evaluation, model, output, projection, synthetic, testSupport]),
    ("RegionSearchMapsTests", [core, evaluation, ingest, maps, model, output, projection, testSupport]),
    (
        "RegionSearchStagesTests",
        [cli, core, graph, ingest, model, output, projection, propagation, regions, stages, synthetic, testSupport]
    ),
    ("RegionSearchRunnerTests", [core, ingest, output, projection, propagation, regions, runner, stages, testSupport]),
    ("RegionSearchExperimentsTests", [core, experiments, runner, testSupport]),
]

var targets: [Target] = [
    // zlib through pkg-config (Debian's and Homebrew's layouts alike), with the package that
    // installs it: every stage that reads or writes an artifact uses it.
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
    // PROJ, GEOS, Cairo and GDAL, loaded on first use rather than linked (a process that links
    // them spends ~25 ms at every start looking up the symbols of them and the ~70 libraries they
    // need, where most stages call none of them): portable C forwarders resolved by dlopen/dlsym
    // (CLibraryLoader). No pkg-config names, because SwiftPM would link their libraries into
    // every executable; each header finds its library's in Debian's and Homebrew's layouts.
    .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    .target(name: "CPROJ", dependencies: ["CLibraryLoader"]),
    .target(name: "CGEOS", dependencies: ["CLibraryLoader"]),
    .target(name: "CCairo", dependencies: ["CLibraryLoader"]),
    .target(name: "CGDAL", dependencies: ["CLibraryLoader"]),

    .target(name: core),
    .target(name: model, dependencies: deps([core])),
    .target(name: gdal, dependencies: deps([core, "CGDAL"])),

    .target(name: ingest, dependencies: deps([core, model, gdal, "CZlib"])),
    .target(name: projection, dependencies: deps([core, model, "CPROJ"])),
    .target(name: graph, dependencies: deps([core, model])),
    .target(name: propagation, dependencies: deps([core, model])),
    .target(name: regions, dependencies: deps([core, model, graph])),
    .target(name: output, dependencies: deps([core, model, gdal, projection, "CGEOS"])),

    .target(name: lineage, dependencies: deps([core, model, gdal, output])),
    .target(name: evaluation, dependencies: deps([core, model, ingest, projection, output])),
    .target(name: synthetic, dependencies: deps([core, projection, output])),
    .target(name: maps, dependencies: deps([core, model, ingest, projection, output, evaluation, "CCairo"])),

    .target(name: stages, dependencies: deps([core, model] + domain)),
    .target(
        name: runner,
        dependencies: deps([core, model, gdal, ingest, propagation, output, lineage, maps, stages])),
    .target(name: tiles, dependencies: deps([core, ingest, graph, propagation, stages, runner])),
    .target(name: experiments, dependencies: deps([core, evaluation, maps, stages, runner])),
    .target(name: benchmark, dependencies: deps([core, projection, output, stages, runner])),
    .target(
        name: cli,
        dependencies: deps([
            core, model, ingest, graph, lineage, evaluation, synthetic, maps, stages, runner, tiles, experiments,
            benchmark,
        ])),

    // Shared by the test targets (not a product): temporary directories, the shared data, GDAL
    // read-backs, point sets, manifest parsing.
    .target(
        name: testSupport,
        dependencies: deps([core, model, gdal, ingest, projection, output, evaluation, stages, runner]),
        path: "Tests/\(testSupport)"
    ),
    // The package's own rules: imports against Package.swift and docs/ARCHITECTURE.md, portability.
    .testTarget(name: "ArchitectureTests", dependencies: deps([core])),
    // The built executables and the services (PostgreSQL, Chromium, Slurm, Snakemake) end to end.
    .testTarget(
        name: "EndToEndTests",
        dependencies: deps(
            [
                core, model, gdal, output, lineage, evaluation, synthetic, maps, stages, runner, tiles, experiments,
                benchmark, testSupport,
            ] + stageExecutables + toolExecutables)
    ),
]
for test in unitTests {
    targets.append(.testTarget(name: test.name, dependencies: deps(test.dependencies)))
}
for name in stageExecutables {
    targets.append(.executableTarget(name: name, dependencies: deps([stages])))
}
for name in toolExecutables {
    targets.append(.executableTarget(name: name, dependencies: deps([cli])))
}

// Debug builds (what `swift test` builds) optimise the package's own code: the end-to-end tests
// run the stage executables on real data and whole synthetic cities, and the region tests run the
// method in process, several times faster so (the suite took 27 min unoptimised). Set
// REGIONSEARCH_ONONE=1 to build them unoptimised, for a debugger. CI (REGIONSEARCH_CI=1) also
// turns every warning into an error, in the one build its tests then run on.
let environment = Context.environment
for target in targets where target.type == .regular || target.type == .executable {
    guard target.name.hasPrefix("RegionSearch") || target.type == .executable else { continue }
    var flags: [String] = []
    if environment["REGIONSEARCH_ONONE"] == nil { flags.append("-O") }
    if environment["REGIONSEARCH_CI"] != nil { flags.append("-warnings-as-errors") }
    if !flags.isEmpty {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(flags, .when(configuration: .debug))]
    }
}
for target in targets where target.type == .test && environment["REGIONSEARCH_CI"] != nil {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
}

let package = Package(
    name: "RegionSearch",
    products: libraries.map { .library(name: $0, targets: [$0]) }
        + (stageExecutables + toolExecutables).map { .executable(name: $0, targets: [$0]) },
    targets: targets,
    swiftLanguageModes: [.v6]
)
