import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchIngest
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// Defaults are declared once: a stage's options type states them (its `init`'s default
/// arguments), its parameter specs read theirs from it, and a manifest or command line that
/// gives nothing builds the same options. Command-line options declare theirs with their domain.
final class StageDefaultsTests: XCTestCase {
    /// The parameters a stage resolves from an empty manifest section (`keywords` given where a
    /// stage requires them).
    private func resolved(_ specs: [ParameterSpec], _ given: JSONValue? = nil) throws -> Parameters {
        try Parameters.resolve(given, specs: specs, context: "test")
    }

    func testEveryStagesOptionDefaultsEqualItsSpecsDefaults() throws {
        let keywords = JSONValue.object([("keywords", .array([.string("bank")]))])
        let checks: [String: () throws -> Void] = [
            "ingest": { XCTAssertEqual(try IngestSettings(self.resolved(IngestSettings.specs)), IngestSettings()) },
            "project": {
                XCTAssertEqual(try ProjectionOptions(self.resolved(ProjectionOptions.specs)), ProjectionOptions())
            },
            "graph": { XCTAssertEqual(try GraphOptions(self.resolved(GraphOptions.specs)), GraphOptions()) },
            "propagate": {
                XCTAssertEqual(
                    try PropagationOptions(self.resolved(PropagationOptions.specs, keywords)),
                    PropagationOptions(keywords: ["bank"]))
            },
            "regions": { XCTAssertEqual(try RegionOptions(self.resolved(RegionOptions.specs)), RegionOptions()) },
            "hulls": {
                XCTAssertEqual(
                    try RegionPolygonBuilder.Options(self.resolved(RegionPolygonBuilder.Options.specs)),
                    RegionPolygonBuilder.Options())
            },
        ]
        XCTAssertEqual(Set(checks.keys), Set(Pipeline.stages.map(\.name)), "every stage is checked")
        for stage in Pipeline.stages {
            try checks[stage.name]?()
        }
        // And the definitions use those specs.
        let specs: [String: [ParameterSpec]] = [
            "ingest": IngestSettings.specs, "project": ProjectionOptions.specs, "graph": GraphOptions.specs,
            "propagate": PropagationOptions.specs, "regions": RegionOptions.specs,
            "hulls": RegionPolygonBuilder.Options.specs,
        ]
        for stage in Pipeline.stages {
            XCTAssertEqual(stage.parameters.map(\.key), specs[stage.name]?.map(\.key), stage.name)
        }
    }

    /// Every command line of every executable: each option's default value is in its domain, and
    /// its usage line names every option and parameter (a command of several forms says
    /// `[options]` and lists them in its help).
    func testEveryCommandsOptionDefaultsAreInTheirDomains() throws {
        var specs = Driver.commands.map(\.1)
        specs += [GraphStage.commandSpec(), PropagateStage.commandSpec(), IngestStage.commandSpec()]
        specs += [ProjectStage.definition, RegionsStage.definition, HullsStage.definition].map { $0.commandSpec() }
        specs += [GenerateCommand.spec, EvaluateCommand.spec, BenchmarkCommand.spec, PreviewCommand.spec]
        XCTAssertGreaterThanOrEqual(specs.count, 15)
        for spec in specs {
            let usage = spec.positionals.count > 1 ? spec.helpText : spec.usage
            for option in spec.options {
                if case .value(let v) = option.default {
                    let text = CommandSpec.Option.text(of: v)
                    switch option.read(text) {
                    case .success(let read): XCTAssertEqual(read, v, "\(spec.name) --\(option.name)")
                    case .failure(let reason): XCTFail("\(spec.name) --\(option.name): default \(text): \(reason)")
                    }
                }
                XCTAssertFalse(option.isFlag && option.default != .none, "\(spec.name) --\(option.name)")
                if !CommandSpec.Option.common.contains(option) {
                    let item = "--\(option.name)" + (option.isFlag ? "]" : " \(option.placeholder)")
                    XCTAssertTrue(usage.contains(item), "\(spec.name): usage lacks \(item)")
                }
            }
            for p in spec.parameters {
                XCTAssertTrue(usage.contains(p.optionName + " "), "\(spec.name): usage lacks \(p.optionName)")
            }
        }
    }
}
