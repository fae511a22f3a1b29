// swift-tools-version:6.0
import PackageDescription

/// The stage executables; each is a thin `main.swift` over the `RegionSearch` library.
let stageExecutables = [
    "regionsearch-ingest",
    "regionsearch-project",
    "regionsearch-graph",
    "regionsearch-propagate",
    "regionsearch-regions",
    "regionsearch-hulls",
]

/// Tools beside the stages: the driver (`run`, `status`, `clean`, dispatch), the evaluator,
/// the synthetic POI generator and the benchmark command.
let toolExecutables = [
    "regionsearch",
    "regionsearch-evaluate",
    "regionsearch-generate",
    "regionsearch-bench",
]

var targets: [Target] = [
    .systemLibrary(
        name: "CGEOS",
        pkgConfig: "geos",
        providers: [.apt(["libgeos-dev"])]
    ),
    .systemLibrary(
        name: "CPROJ",
        pkgConfig: "proj",
        providers: [.apt(["libproj-dev", "proj-data"])]
    ),
    .systemLibrary(
        name: "CZlib",
        pkgConfig: "zlib",
        providers: [.apt(["zlib1g-dev"])]
    ),
    .target(
        name: "RegionSearch",
        dependencies: ["CGEOS", "CPROJ", "CZlib"]
    ),
    .testTarget(
        name: "RegionSearchTests",
        dependencies: ["RegionSearch", "CGEOS", "CPROJ"]
    ),
    .testTarget(
        name: "EndToEndTests",
        dependencies: ["RegionSearch"] + (stageExecutables + toolExecutables).map { .target(name: $0) }
    ),
]
for name in stageExecutables + toolExecutables {
    targets.append(.executableTarget(name: name, dependencies: ["RegionSearch"]))
}

let package = Package(
    name: "RegionSearch",
    products: [.library(name: "RegionSearch", targets: ["RegionSearch"])]
        + (stageExecutables + toolExecutables).map { .executable(name: $0, targets: [$0]) },
    targets: targets,
    swiftLanguageModes: [.v5]
)
