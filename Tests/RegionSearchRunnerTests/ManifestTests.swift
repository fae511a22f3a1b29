import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchRunner
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

final class ManifestTests: XCTestCase, ManifestParsing {
    private let minimal = """
        {
          "inputs": [ { "path": "../data/pois.csv", "format": "csv" } ],
          "work_dir": "../work/x",
          "output": "/abs/out.geojson",
          "keywords": ["cafe", "bank"]
        }
        """

    func testMinimalManifestResolvesPathsAndDefaults() throws {
        let m = try parse(minimal)
        XCTAssertEqual(m.name, "x", "name defaults to the file name without extension")
        XCTAssertEqual(m.workDirectory, "/base/work/x")
        XCTAssertEqual(m.output, "/abs/out.geojson")
        XCTAssertEqual(m.inputs.count, 1)
        XCTAssertEqual(m.inputs[0].path, "/base/data/pois.csv")
        // The input object is passed through with only the path made absolute, order kept.
        XCTAssertEqual(m.inputs[0].spec.serialized(), #"{"path":"/base/data/pois.csv","format":"csv"}"#)
        XCTAssertEqual(m.keywords, ["cafe", "bank"])
        // Every stage has resolved parameters equal to its defaults (keywords aside), but for
        // propagate.scores, which the manifest derives: nothing of the default pipeline reads them.
        for stage in Pipeline.stages {
            let p = m.parameters(for: stage.name)
            for spec in stage.parameters where spec.key != "keywords" && spec.key != "scores" {
                XCTAssertEqual(p[spec.key], spec.defaultValue, "\(stage.name).\(spec.key)")
            }
        }
        XCTAssertEqual(m.parameters(for: "propagate")[PropagationOptions.scoresSpec.key], .bool(false))
    }

    func testRelativePathsDoNotDependOnTheCurrentDirectory() throws {
        let dir = TestSupport.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/pipelines", withIntermediateDirectories: true)
        try minimal.write(toFile: dir + "/pipelines/p.json", atomically: true, encoding: .utf8)
        let saved = FileManager.default.currentDirectoryPath
        defer { _ = FileManager.default.changeCurrentDirectoryPath(saved) }
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(dir + "/pipelines"))
        let fromInside = try Manifest.load(path: "p.json")
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath("/"))
        let fromRoot = try Manifest.load(path: dir + "/pipelines/p.json")
        let real = PathResolver.directory(ofFile: dir + "/pipelines/p.json")
        XCTAssertEqual(fromInside.workDirectory, fromRoot.workDirectory)
        XCTAssertEqual(fromInside.inputs[0].path, fromRoot.inputs[0].path)
        XCTAssertEqual(fromRoot.inputs[0].path, PathResolver.normalize(real + "/../data/pois.csv"))
        XCTAssertEqual(fromRoot.name, "p")
    }

    func testStageSectionsOverrideDefaults() throws {
        let m = try parse(
            """
            {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o.geojson",
             "propagate": {"keywords": ["咖啡"], "alpha": 0.9}, "regions": {"method": "dbscan", "min_keyword_pois": 7},
             "hulls": {"margin_m": 12.5}, "project": {"crs": "EPSG:3067"}}
            """)
        XCTAssertEqual(m.parameters(for: "propagate")["alpha"], .number(0.9))
        XCTAssertEqual(m.keywords, ["咖啡"])
        XCTAssertEqual(m.parameters(for: "regions")["method"], .string("dbscan"))
        XCTAssertEqual(m.parameters(for: "regions").int(RegionOptions.minKeywordPOIsSpec), 7)
        XCTAssertEqual(m.parameters(for: "hulls").double(RegionPolygonBuilder.Options.marginSpec), 12.5)
        XCTAssertEqual(m.parameters(for: "project").string(ProjectionOptions.crsSpec), "EPSG:3067")
        XCTAssertEqual(m.name, "x")
    }

    func testUnknownTopLevelKey() {
        let known = (Manifest.topLevelKeys + Pipeline.stages.map { $0.name }).joined(separator: ", ")
        XCTAssertEqual(
            message(
                """
                {
                  "inputs": [{"path": "a.csv"}], "work_dir": "w", "keywords": ["a"],
                  "outptu": "o.geojson"
                }
                """),
            "pipelines/x.json:3:3: outptu: unknown key (did you mean 'output'?); known keys: \(known)")
    }

    func testUnknownKeyInAStageSection() {
        let known = RegionsStage.definition.parameters.map { $0.key }.joined(separator: ", ")
        XCTAssertEqual(
            message(
                """
                {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o", "keywords": ["a"],
                 "regions": {
                    "z_core": 3,
                    "z_cor": 2
                 }}
                """),
            "pipelines/x.json:4:5: regions.z_cor: unknown key (did you mean 'z_core'?); known keys: \(known)")
    }

    func testUnknownKeyInEveryStageSection() {
        for stage in Pipeline.stages {
            let text = """
                {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o", "keywords": ["a"],
                 "\(stage.name)": {"no_such_parameter_here": 1}}
                """
            let m = message(text)
            XCTAssertTrue(
                m.hasPrefix(
                    "pipelines/x.json:2:\(stage.name.count + 7): \(stage.name).no_such_parameter_here: unknown key"),
                m)
        }
    }

    func testBadValues() {
        func manifest(_ section: String) -> String {
            """
            {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o", "keywords": ["a"],
             \(section)}
            """
        }
        XCTAssertEqual(
            message(manifest(#""propagate": {"alpha": 1.5}"#)),
            "pipelines/x.json:2:16: propagate.alpha: expected a number in (0, 1], got 1.5")
        XCTAssertEqual(
            message(manifest(#""propagate": {"alpha": 0}"#)),
            "pipelines/x.json:2:16: propagate.alpha: expected a number in (0, 1], got 0")
        XCTAssertEqual(
            message(manifest(#""propagate": {"max_iterations": 2.5}"#)),
            "pipelines/x.json:2:16: propagate.max_iterations: expected an integer in [1, 100000], got 2.5")
        XCTAssertEqual(
            message(manifest(#""hulls": {"hull": 3}"#)),
            #"pipelines/x.json:2:12: hulls.hull: expected one of "convex", "concave", got number"#)
        XCTAssertEqual(
            message(manifest(#""hulls": {"hull": "round"}"#)),
            #"pipelines/x.json:2:12: hulls.hull: expected one of "convex", "concave", got "round""#)
        XCTAssertEqual(
            message(manifest(#""regions": ["z_core"]"#)),
            "pipelines/x.json:2:2: regions: expected an object of regions parameters, got array")
        XCTAssertEqual(
            message(manifest(#""project": {"crs": true}"#)),
            "pipelines/x.json:2:14: project.crs: expected a string, got boolean")
    }

    func testMissingAndMalformedFields() {
        XCTAssertEqual(
            message(#"{"inputs": [{"path": "a.csv"}], "output": "o", "keywords": ["a"]}"#),
            "pipelines/x.json:1:1: work_dir: required (the directory for intermediate artifacts and run records, "
                + "relative to the manifest)"
        )
        XCTAssertEqual(
            message(#"{"inputs": [{"path": "a.csv"}], "work_dir": "w", "keywords": ["a"]}"#),
            "pipelines/x.json:1:1: output: required (where to write the regions: a file relative to the manifest "
                + #"(its extension picks the format), "-" for standard output, or a PG: connection string)"#)
        XCTAssertEqual(
            message(#"{"work_dir": "w", "output": "o", "keywords": ["a"]}"#),
            #"pipelines/x.json:1:1: inputs: required (a list of input objects, each with at least "path")"#)
        XCTAssertEqual(
            message(#"{"inputs": [], "work_dir": "w", "output": "o", "keywords": ["a"]}"#),
            "pipelines/x.json:1:2: inputs: give at least one input file")
        XCTAssertEqual(
            message(#"{"inputs": "a.csv", "work_dir": "w", "output": "o", "keywords": ["a"]}"#),
            "pipelines/x.json:1:2: inputs: expected an array of input objects, got string")
        XCTAssertEqual(
            message(#"{"inputs": [{"path": "a.csv"}, "b.csv"], "work_dir": "w", "output": "o", "keywords": ["a"]}"#),
            #"pipelines/x.json:1:32: inputs[1]: expected an object with at least "path", got string"#)
        XCTAssertEqual(
            message(#"{"inputs": [{"format": "csv"}], "work_dir": "w", "output": "o", "keywords": ["a"]}"#),
            #"pipelines/x.json:1:13: inputs[0]: "path" is required (the input file, relative to the manifest)"#)
        XCTAssertEqual(
            message(#"{"inputs": [{"path": 7}], "work_dir": "w", "output": "o", "keywords": ["a"]}"#),
            "pipelines/x.json:1:14: inputs[0].path: expected a non-empty string, got number")
        XCTAssertEqual(
            message(#"{"inputs": [{"path": "a"}], "work_dir": 5, "output": "o", "keywords": ["a"]}"#),
            "pipelines/x.json:1:29: work_dir: expected a string, got number")
        XCTAssertEqual(
            message(#"{"inputs": [{"path": "a"}], "work_dir": "w", "output": "o", "name": ["n"], "keywords": ["a"]}"#),
            "pipelines/x.json:1:61: name: expected a string, got array")
    }

    /// Input objects are validated by ingest's rules when the manifest is loaded.
    func testInputObjectsAreValidatedWithTheirPosition() {
        let known = InputSpec.keys.joined(separator: ", ")
        XCTAssertEqual(
            message(
                """
                {"keywords": ["a"], "work_dir": "w", "output": "o",
                 "inputs": [
                   {"path": "a.csv"},
                   {"path": "b.csv", "delimter": ";"}
                 ]}
                """),
            "pipelines/x.json:4:22: inputs[1].delimter: unknown key (did you mean 'delimiter'?); known keys: \(known)")
        XCTAssertEqual(
            message(
                #"{"keywords": ["a"], "work_dir": "w", "output": "o", "inputs": [{"path": "a.csv", "header": 3}]}"#),
            #"pipelines/x.json:1:82: inputs[0].header: expected true, false or "auto", got 3"#)
    }

    func testKeywords() {
        let head = #"{"inputs": [{"path": "a"}], "work_dir": "w", "output": "o""#
        XCTAssertTrue(
            message(head + "}").hasPrefix("pipelines/x.json:1:1: propagate.keywords: required ("),
            message(head + "}"))
        XCTAssertEqual(
            message(head + #", "keywords": ["a"], "propagate": {"keywords": ["b"]}}"#),
            #"pipelines/x.json:1:61: keywords: given both as "keywords" and "propagate.keywords"; keep one"#)
        XCTAssertEqual(
            message(head + #", "keywords": ["cafe", "bar,pub"]}"#),
            #"pipelines/x.json:1:82: keywords[1]: "bar,pub" contains a comma, which separates keywords on the stage command line; give each keyword separately"#
        )
        XCTAssertEqual(
            message(head + #", "keywords": []}"#), "pipelines/x.json:1:61: keywords: give at least one keyword")
        XCTAssertEqual(
            message(head + #", "keywords": [3]}"#),
            "pipelines/x.json:1:61: keywords: expected a list of strings, found a number in it")
        XCTAssertEqual(
            message(head + #", "propagate": {"keywords": ["  "]}}"#),
            #"pipelines/x.json:1:88: propagate.keywords[0]: "  " is empty after normalisation"#)
    }

    func testBadJSONNamesLineAndColumn() {
        XCTAssertEqual(
            message("{\n  \"work_dir\": \"w\",\n}\n"),
            "pipelines/x.json:3:1: invalid JSON: expected a quoted member name")
        XCTAssertEqual(
            message("{\n  \"work_dir\": \"w\"\n  \"output\": \"o\"\n}"),
            "pipelines/x.json:3:3: invalid JSON: expected ',' or '}' in object")
        XCTAssertEqual(message(""), "pipelines/x.json:1:1: invalid JSON: unexpected end of input, expected a value")
        XCTAssertEqual(
            message(#"{"a": 1, "a": 2}"#),
            #"pipelines/x.json:1:10: invalid JSON: duplicate member name "a""#)
        XCTAssertEqual(message("[1, 2]"), "pipelines/x.json:1:1: expected a JSON object at the top level, got array")
    }

    /// Every manifest shipped in pipelines/ is valid and names inputs that exist. An input in
    /// `../shared/data` beside the checkout is looked for where the real-data tests find that data
    /// (``SharedData``: `REGIONSEARCH_SHARED_DATA` when set), so a clone elsewhere is checked too.
    func testShippedManifestsLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let shared = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared/data").path
        let names = FileSystem.list(root + "/pipelines").filter { $0.hasSuffix(".json") }
        XCTAssertTrue(names.contains("default.json"))
        for name in names {
            let m = try Manifest.load(path: root + "/pipelines/" + name)
            for input in m.inputs {
                let path =
                    input.path.hasPrefix(shared + "/")
                    ? SharedData.path(String(input.path.dropFirst(shared.count + 1))) : input.path
                XCTAssertTrue(FileSystem.exists(path), "\(name): \(path)")
            }
            XCTAssertTrue(m.workDirectory.hasPrefix(root + "/"), "\(name) keeps its work directory inside the checkout")
        }
    }

    func testUnreadableFile() {
        XCTAssertThrowsError(try Manifest.load(path: "/nonexistent-dir/m.json")) { error in
            XCTAssertEqual(
                "\(error)",
                "/nonexistent-dir/m.json: cannot read manifest: No such file or directory; check the path (the shipped "
                    + "manifests are in pipelines/)")
        }
    }

    /// A device, a FIFO or a folder named as the manifest is refused by what it is, before a byte
    /// is read: /dev/zero never ends (it filled memory until the process trapped), and a FIFO
    /// would wait for a writer. A regular file over ``Manifest/maximumBytes`` is refused by its
    /// size, however it was made.
    func testWhatIsNoManifestIsRefusedBeforeItIsRead() throws {
        XCTAssertThrowsError(try Manifest.load(path: "/dev/zero")) { error in
            XCTAssertEqual(
                "\(error)",
                "/dev/zero: cannot read manifest: is not a regular file (a device, FIFO or socket); give the path of a file"
            )
        }
        let dir = TestSupport.temporaryDirectory()
        let fifo = dir + "/m.json"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // Read on a thread: a blocking open would hang the test instead of failing it.
        final class Outcome: @unchecked Sendable { var text = "" }
        let outcome = Outcome()
        let done = expectation(description: "the FIFO is refused")
        DispatchQueue.global().async {
            do {
                _ = try Manifest.load(path: fifo)
                outcome.text = "read"
            } catch {
                outcome.text = "\(error)"
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertTrue(
            outcome.text.hasSuffix("is not a regular file (a device, FIFO or socket); give the path of a file"),
            outcome.text)
        XCTAssertThrowsError(try Manifest.load(path: dir)) { error in
            XCTAssertEqual("\(error)", "\(dir): cannot read manifest: is a folder, not a file; give the path of a file")
        }
        let big = dir + "/big.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        XCTAssertEqual(truncate(big, off_t(Manifest.maximumBytes + 1)), 0)
        XCTAssertThrowsError(try Manifest.load(path: big)) { error in
            XCTAssertTrue("\(error)".contains("is larger than \(Manifest.maximumBytes) bytes"), "\(error)")
        }
        // At the limit the file is read (and then parsed: a sparse file is zero bytes, no JSON).
        XCTAssertEqual(truncate(big, off_t(Manifest.maximumBytes)), 0)
        XCTAssertThrowsError(try Manifest.load(path: big)) { error in
            XCTAssertTrue("\(error)".contains("invalid JSON"), "\(error)")
        }
    }

    func testLocatorCountsCharactersAndFindsNestedPaths() {
        let text = "{\n  \"ä\": {\"café\": [1, {\"k\": 2}]},\n\t\"b\": null\n}"
        let locator = JSONKeyLocator(bytes: Array(text.utf8))
        XCTAssertEqual(locator.position(of: "ä"), .init(line: 2, column: 3))
        XCTAssertEqual(locator.position(of: "ä.café"), .init(line: 2, column: 9))
        XCTAssertEqual(locator.position(of: "ä.café[0]"), .init(line: 2, column: 18))
        XCTAssertEqual(locator.position(of: "ä.café[1].k"), .init(line: 2, column: 22))
        XCTAssertEqual(locator.position(of: "b"), .init(line: 3, column: 2))
        XCTAssertNil(locator.position(of: "c"))
        XCTAssertEqual(locator.nearestPosition(of: "ä.café[1].missing"), .init(line: 2, column: 21))
    }
}
