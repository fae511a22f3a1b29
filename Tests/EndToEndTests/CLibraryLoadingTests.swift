import Foundation
import XCTest

@testable import RegionSearchTestSupport

/// PROJ, GEOS and Cairo are loaded on first use, as GDAL is (the forwarders of CPROJ, CGEOS and
/// CCairo, `CLibraryLoader`): a process initialises only the libraries it calls, as the dynamic
/// loader's own log shows (`LD_DEBUG=libs`, each line prefixed with the process's pid).
final class CLibraryLoadingTests: XCTestCase {
    static let libraries = ["libproj.so", "libgeos_c.so", "libcairo.so"]

    /// Per program of the log (its file name): which of `libraries` its process initialised.
    static func initialised(_ output: String) -> [String: Set<String>] {
        var program: [Substring: String] = [:]
        var loaded: [Substring: Set<String>] = [:]
        for line in output.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard let colon = trimmed.firstIndex(of: ":") else { continue }
            let pid = trimmed[..<colon]
            let rest = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if rest.hasPrefix("initialize program: ") {
                program[pid] = URL(fileURLWithPath: String(rest.dropFirst(20))).lastPathComponent
            } else if rest.hasPrefix("calling init: ") {
                for library in libraries where rest.contains(library) { loaded[pid, default: []].insert(library) }
            }
        }
        return Dictionary(program.map { ($0.value, loaded[$0.key] ?? []) }, uniquingKeysWith: { $0.union($1) })
    }

    func testAProcessInitialisesOnlyTheCLibrariesItCalls() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        for name in [
            "regionsearch", "regionsearch-ingest", "regionsearch-project", "regionsearch-graph",
            "regionsearch-propagate", "regionsearch-regions", "regionsearch-hulls", "regionsearch-evaluate",
            "regionsearch-generate", "regionsearch-preview",
        ] {
            let r = try f.tool(
                ["--version"], executable: PipelineFixture.toolDirectory + "/" + name,
                environment: ["LD_DEBUG": "libs"])
            XCTAssertEqual(r.status, 0, name)
            XCTAssertEqual(Self.initialised(r.output), [name: []], "\(name) --version")
        }
        // The whole pipeline with its maps: each stage initialises what it calls, and no more.
        let run = try f.run(["--quiet"], environment: ["LD_DEBUG": "libs"])
        XCTAssertEqual(run.status, 0, run.output)
        let byProgram = Self.initialised(run.output)
        for stage in ["ingest", "graph", "propagate", "regions"] {
            XCTAssertEqual(byProgram["regionsearch-\(stage)"], [], stage)
        }
        XCTAssertEqual(byProgram["regionsearch-project"], ["libproj.so"])
        XCTAssertEqual(byProgram["regionsearch-hulls"], ["libgeos_c.so", "libproj.so"])
        XCTAssertEqual(byProgram["regionsearch"]?.contains("libcairo.so"), true, "the driver draws the maps")
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.root + "/out/test.png"))
    }

    /// Without PROJ (REGIONSEARCH_PROJ names a library that is not there) the stage that projects
    /// stops with the loader's reason and what to do, the run resumes there once it is back, and
    /// nothing is published meanwhile; the same for GEOS and the hulls stage.
    func testAMissingLibraryStopsTheStageThatCallsItWithWhatToDo() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let missingPROJ = try f.run([], environment: ["REGIONSEARCH_PROJ": f.root + "/no-such-libproj.so"])
        XCTAssertEqual(missingPROJ.status, 7, missingPROJ.output)
        XCTAssertTrue(missingPROJ.output.contains("cannot load PROJ"), missingPROJ.output)
        XCTAssertTrue(missingPROJ.output.contains("no-such-libproj.so"), missingPROJ.output)
        XCTAssertTrue(missingPROJ.output.contains("scripts/setup installs libproj-dev"), missingPROJ.output)
        XCTAssertTrue(missingPROJ.output.contains("stage project failed (exit status 70)"), missingPROJ.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.outputPath))

        let missingGEOS = try f.run([], environment: ["REGIONSEARCH_GEOS": f.root + "/no-such-libgeos_c.so"])
        XCTAssertEqual(missingGEOS.status, 7, missingGEOS.output)
        XCTAssertTrue(missingGEOS.output.contains("cannot load GEOS"), missingGEOS.output)
        XCTAssertTrue(missingGEOS.output.contains("stage hulls failed (exit status 70)"), missingGEOS.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.outputPath))

        let resumed = try f.run(["--quiet"])
        XCTAssertEqual(resumed.status, 0, resumed.output)
        XCTAssertEqual(try f.ranStages(), ["hulls"], "the stages before hulls were kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.outputPath))
    }
}
