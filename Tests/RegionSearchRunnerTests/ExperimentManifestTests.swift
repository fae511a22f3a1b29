import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchRunner
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// Parsing and validation of the manifest's `experiment` section.
final class ExperimentManifestTests: XCTestCase, ManifestParsing {

    /// A manifest whose grid holds `entry` on line 3, starting at column 5.
    private func grid(_ entry: String, sections: String = "") -> String {
        """
        {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o", "keywords": ["a"],\(sections)
         "experiment": {"grid": {
            \(entry)
         }}}
        """
    }

    /// `propagate.densities` follows `regions.nested` in every combination and after every
    /// override, whatever the order the values are applied in: a manifest that turned them off gets
    /// them in a combination with nested levels, and a combination without nested levels does not
    /// keep them because another combination had them.
    func testDensitiesFollowTheNestedLevelsInEveryCombinationAndOverride() throws {
        let m = try parse(
            grid(
                #""propagate.alpha": [0.8, 0.9], "regions.method": ["propagation", "dbscan"]"#,
                sections: #" "propagate": {"densities": false}, "regions": {"nested": true},"#))
        let e = try XCTUnwrap(m.experiment)
        func densities(_ manifest: Manifest) -> Bool {
            manifest.parameters(for: "propagate").bool(PropagationOptions.densitiesSpec)
        }
        XCTAssertTrue(densities(m))
        XCTAssertEqual(e.combinations.count, 4)
        for c in e.combinations {
            let v = m.variant(for: c)
            let nested = v.parameters(for: "regions").string(RegionOptions.methodSpec) == "propagation"
            XCTAssertEqual(densities(v), nested, c.name)
        }
        var o = m
        try o.override("propagate.tolerance=1e-5")
        try o.override("regions.nested=false")
        XCTAssertFalse(densities(o), "a propagate override before nested=false keeps nothing derived")
        try o.override("regions.nested=true")
        XCTAssertTrue(densities(o))
    }

    func testFullSectionGivesTheCartesianProductInDocumentedOrder() throws {
        let m = try parse(
            """
            {"name": "q", "work_dir": "../work/q", "output": "../out/q", "keywords": ["咖啡", "bank"],
             "regions": {"fdr": 0.1},
             "experiment": {
               "inputs": {"seed7": [{"path": "../data/a.csv"}], "seed42": [{"path": "/abs/b.csv", "format": "csv"}]},
               "truth": {"seed42": {"regions": "b.truth.geojson", "members": "b.members.csv"}},
               "grid": {
                 "graph.method": ["delaunay", "knn"],
                 "m": [{"regions.method": "propagation"}, {"regions.method": "dbscan", "regions.dbscan_eps_m": 100}],
                 "project.crs": ["EPSG:32650"]
               }
             }}
            """)
        let e = try XCTUnwrap(m.experiment)
        XCTAssertEqual(e.inputSets.map(\.name), ["seed7", "seed42"])
        XCTAssertEqual(e.inputSets[0].inputs.map(\.path), ["/base/data/a.csv"])
        XCTAssertEqual(e.inputSets[1].inputs[0].spec.serialized(), #"{"path":"/abs/b.csv","format":"csv"}"#)
        XCTAssertEqual(e.inputSets[1].inputs[0].key, "experiment.inputs.seed42[0]")
        XCTAssertNil(e.truth(for: "seed7"))
        XCTAssertEqual(
            e.truth(for: "seed42"),
            Experiment.Truth(regions: "/base/pipelines/b.truth.geojson", members: "/base/pipelines/b.members.csv"))
        XCTAssertEqual(e.parameterKeys, ["graph.method", "regions.method", "regions.dbscan_eps_m", "project.crs"])
        // Input sets outermost, then the axes in manifest order, the last axis fastest.
        XCTAssertEqual(
            e.combinations.map(\.name),
            [
                "seed7__graph.method=delaunay__regions.method=propagation__project.crs=EPSG_32650",
                "seed7__graph.method=delaunay__regions.method=dbscan__regions.dbscan_eps_m=100__project.crs=EPSG_32650",
                "seed7__graph.method=knn__regions.method=propagation__project.crs=EPSG_32650",
                "seed7__graph.method=knn__regions.method=dbscan__regions.dbscan_eps_m=100__project.crs=EPSG_32650",
                "seed42__graph.method=delaunay__regions.method=propagation__project.crs=EPSG_32650",
                "seed42__graph.method=delaunay__regions.method=dbscan__regions.dbscan_eps_m=100__project.crs=EPSG_32650",
                "seed42__graph.method=knn__regions.method=propagation__project.crs=EPSG_32650",
                "seed42__graph.method=knn__regions.method=dbscan__regions.dbscan_eps_m=100__project.crs=EPSG_32650",
            ])
        XCTAssertEqual(e.combinations.map(\.index), Array(0..<8))

        // A variant is the manifest with the combination's inputs, values and output file.
        let c = e.combinations[7]
        XCTAssertNil(c.value(of: "nothing.here"))
        XCTAssertEqual(c.value(of: "regions.dbscan_eps_m"), .number(100))
        XCTAssertNil(e.combinations[6].value(of: "regions.dbscan_eps_m"), "a group point that does not mention it")
        let v = m.variant(for: c)
        XCTAssertNil(v.experiment)
        XCTAssertEqual(v.name, "q/" + c.name)
        XCTAssertEqual(v.output, "/base/out/q/" + c.name + ".geojson")
        XCTAssertEqual(v.workDirectory, m.workDirectory)
        XCTAssertEqual(v.inputs.map(\.path), ["/abs/b.csv"])
        XCTAssertEqual(v.parameters(for: "graph")["method"], .string("knn"))
        XCTAssertEqual(v.parameters(for: "regions")["method"], .string("dbscan"))
        XCTAssertEqual(v.parameters(for: "regions")["dbscan_eps_m"], .number(100))
        XCTAssertEqual(v.parameters(for: "regions")["fdr"], .number(0.1), "the manifest's own values stay")
        XCTAssertEqual(v.parameters(for: "project")["crs"], .string("EPSG:32650"))
        // Every other parameter is the manifest's, and the variant's canonical parameters are
        // what resolving the same values from a manifest gives (same stage keys as a plain run).
        let plain = try parse(
            """
            {"work_dir": "../work/q", "output": "o", "keywords": ["咖啡", "bank"], "inputs": [{"path": "/abs/b.csv", "format": "csv"}],
             "graph": {"method": "knn"}, "project": {"crs": "EPSG:32650"},
             "regions": {"fdr": 0.1, "method": "dbscan", "dbscan_eps_m": 100}}
            """)
        for stage in Pipeline.stages {
            XCTAssertEqual(
                v.parameters(for: stage.name).canonical, plain.parameters(for: stage.name).canonical, stage.name)
        }
        XCTAssertEqual(v.inputs.map(\.spec), plain.inputs.map(\.spec))
    }

    /// The default of propagate.alpha, as the manifest spells it.
    private var defaultAlpha: String {
        JSONValue.formatNumber(
            PropagateStage.definition.parameters.first { $0.key == "alpha" }!.defaultValue!.doubleValue!)
    }

    func testTopLevelInputsFormOneInputSet() throws {
        XCTAssertNotEqual(defaultAlpha, "0.7")
        let m = try parse(grid(#""propagate.alpha": [0.7, null], "graph.max_edge_m": [null, 500]"#))
        let e = try XCTUnwrap(m.experiment)
        XCTAssertEqual(e.inputSets.map(\.name), ["input"])
        XCTAssertEqual(e.inputSets[0].inputs.map(\.path), ["/base/pipelines/a.csv"])
        // null is the parameter's default, spelled out; a null default is "default" in names.
        XCTAssertEqual(
            e.combinations.map(\.name),
            [
                "input__propagate.alpha=0.7__graph.max_edge_m=default",
                "input__propagate.alpha=0.7__graph.max_edge_m=500",
                "input__propagate.alpha=\(defaultAlpha)__graph.max_edge_m=default",
                "input__propagate.alpha=\(defaultAlpha)__graph.max_edge_m=500",
            ])
        XCTAssertEqual(e.combinations[2].value(of: "propagate.alpha"), .number(Double(defaultAlpha)!))
        XCTAssertEqual(e.combinations[2].value(of: "graph.max_edge_m"), .null)
        XCTAssertEqual(
            m.variant(for: e.combinations[2]).parameters(for: "graph").canonical, m.parameters(for: "graph").canonical)
        XCTAssertEqual(
            m.variant(for: e.combinations[2]).parameters(for: "propagate").canonical,
            m.parameters(for: "propagate").canonical)
    }

    func testNullIsTheDefaultAndCountsAsADuplicate() {
        // `[` is at column 24, so null comes at 32 + the length of the default's spelling.
        let column = 32 + defaultAlpha.count
        XCTAssertEqual(
            message(grid(#""propagate.alpha": [0.7, \#(defaultAlpha), null]"#)),
            "pipelines/x.json:3:\(column): experiment.grid.propagate.alpha[2]: \(defaultAlpha) is "
                + "listed twice (also experiment.grid.propagate.alpha[1])"
        )
    }

    func testNoGridIsOneCombinationPerInputSet() throws {
        let m = try parse(
            """
            {"work_dir": "w", "output": "o", "keywords": ["a"],
             "experiment": {"inputs": {"a": [{"path": "a.csv"}], "b-2.x": [{"path": "b.csv"}, {"path": "c.csv"}]}}}
            """)
        XCTAssertEqual(m.experiment?.combinations.map(\.name), ["a", "b-2.x"])
        XCTAssertEqual(
            m.experiment?.combinations[1].inputs.map(\.path), ["/base/pipelines/b.csv", "/base/pipelines/c.csv"])
        XCTAssertEqual(m.inputs.map(\.path), ["/base/pipelines/a.csv"], "the manifest's inputs are the first set's")
        XCTAssertEqual(m.experiment?.parameterKeys, [])
    }

    func testGridKeysAreValidatedAgainstTheStagesParameterSpecs() {
        XCTAssertEqual(
            message(grid(#""grph.method": ["knn"]"#)),
            "pipelines/x.json:3:5: experiment.grid.grph.method: unknown stage 'grph' (did you mean 'graph'?); "
                + "stages: ingest, project, graph, propagate, regions, hulls"
        )
        XCTAssertEqual(
            message(grid(#""graph.methd": ["knn"]"#)),
            "pipelines/x.json:3:5: experiment.grid.graph.methd: unknown graph parameter 'methd' (did you mean "
                + "'method'?); known: \(GraphStage.definition.parameters.map(\.key).joined(separator: ", "))"
        )
        XCTAssertEqual(
            message(grid(#""graph.method": ["delaunay", "tri"]"#)),
            #"pipelines/x.json:3:34: experiment.grid.graph.method[1]: expected one of "delaunay", "knn", got "tri""#)
        XCTAssertEqual(
            message(grid(#""propagate.alpha": [0.5, "0.7"]"#)),
            "pipelines/x.json:3:30: experiment.grid.propagate.alpha[1]: expected a number in (0, 1], got string")
        XCTAssertEqual(
            message(grid(#""graph.k": [8, 2.5]"#)),
            "pipelines/x.json:3:20: experiment.grid.graph.k[1]: expected an integer in [1, 64], got 2.5")
        XCTAssertEqual(
            message(grid(#""graph.method": []"#)),
            "pipelines/x.json:3:5: experiment.grid.graph.method: give at least one value")
        XCTAssertEqual(
            message(grid(#""graph.k": 8"#)),
            "pipelines/x.json:3:5: experiment.grid.graph.k: expected a list of values, got number")
        XCTAssertEqual(
            message(grid(#""graph.k": [8, 10, 8]"#)),
            "pipelines/x.json:3:24: experiment.grid.graph.k[2]: 8 is listed twice (also experiment.grid.graph.k[0])")
        XCTAssertEqual(
            message(grid(#""propagate.keywords": [["a"], ["b"]]"#)),
            #"pipelines/x.json:3:5: experiment.grid.propagate.keywords: the keywords cannot vary within an experiment (the results have columns per keyword); give them in "keywords" and run one experiment per keyword set"#
        )
        XCTAssertEqual(
            message(grid(#""graph.k": [8, 10]"#, sections: #" "graph": {"k": 6},"#)),
            "pipelines/x.json:3:5: experiment.grid.graph.k: also set in the graph section; give it in one place")
        XCTAssertEqual(
            message(grid(#""graph.": [1]"#)),
            "pipelines/x.json:3:5: experiment.grid.graph.: expected STAGE.PARAMETER, e.g. graph.method")
        XCTAssertEqual(
            message(grid(#"".k": [1]"#)),
            "pipelines/x.json:3:5: experiment.grid..k: expected STAGE.PARAMETER, e.g. graph.method")
    }

    func testGroupAxesAssignSeveralParametersAtOnce() {
        XCTAssertEqual(
            message(grid(#""m": [{"regions.method": "dbscan"}, "knn"]"#)),
            #"pipelines/x.json:3:41: experiment.grid.m[1]: expected an object of "STAGE.PARAMETER": value (the grid key "m" has no dot, so it names parameters that vary together), got string"#
        )
        XCTAssertEqual(
            message(grid(#""m": [{"regions.method": "dbscan", "regions.dbscan_eps": 100}]"#)),
            "pipelines/x.json:3:40: experiment.grid.m[0].regions.dbscan_eps: unknown regions parameter 'dbscan_eps' "
                + "(did you mean 'dbscan_eps_m'?); known: "
                + RegionsStage.definition.parameters.map(\.key).joined(separator: ", ")
        )
        XCTAssertEqual(
            message(grid(#""m": [{"regions.dbscan_eps_m": -1}]"#)),
            "pipelines/x.json:3:12: experiment.grid.m[0].regions.dbscan_eps_m: expected a number > 0, got -1")
        XCTAssertEqual(
            message(grid(#""m": [{"graph.k": 6, "regions.fdr": 0.1}, {"regions.fdr": 0.1, "graph.k": 6}]"#)),
            "pipelines/x.json:3:47: experiment.grid.m[1]: the same parameters as experiment.grid.m[0]")
        XCTAssertEqual(
            message(
                grid(
                    """
                    "graph.k": [6, 8],
                        "m": [{"graph.k": 10}]
                    """)),
            "pipelines/x.json:4:12: experiment.grid.m[0].graph.k: already varied by experiment.grid.graph.k; a "
                + "parameter belongs to one grid key"
        )
        XCTAssertEqual(
            message(grid(#""m x": [{"graph.k": 10}]"#)),
            "pipelines/x.json:3:5: experiment.grid.m x: expected STAGE.PARAMETER (e.g. graph.method), or a group "
                + "name of letters, digits, '.', '-' and '_' whose values are objects of STAGE.PARAMETER: value"
        )
    }

    func testValuesThatReduceToTheSameFileNameAreRefused() {
        XCTAssertEqual(
            message(grid(#""project.crs": ["EPSG:3067", "EPSG/3067"]"#)),
            "pipelines/x.json:2:17: experiment.grid: combinations 1 and 2 get the same file name "
                + "input__project.crs=EPSG_3067.geojson (values are reduced to letters, digits, '.', '-' and '+'); "
                + "make them differ there"
        )
    }

    func testInputSetsAndTruthAreValidated() {
        XCTAssertEqual(
            message(
                """
                {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o", "keywords": ["a"],
                 "experiment": {"inputs": {"s": [{"path": "b.csv"}]}}}
                """),
            #"pipelines/x.json:2:17: experiment.inputs: given both as "inputs" and "experiment.inputs"; keep one"#)
        XCTAssertEqual(
            message(#"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"grid": {}}}"#),
            #"pipelines/x.json:1:1: inputs: required (a list of input objects, each with at least "path"; or name input sets in "experiment.inputs")"#
        )
        XCTAssertEqual(
            message(
                #"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"a/b": [{"path": "a"}]}}}"#
            ),
            "pipelines/x.json:1:79: experiment.inputs.a/b: an input set name must start with a letter or digit and "
                + "hold only letters, digits, '.', '-' and '_' (at most 64; it becomes part of file names)"
        )
        XCTAssertEqual(
            message(
                #"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"s": [{"path": "a", "delimter": ";"}]}}}"#
            ),
            "pipelines/x.json:1:99: experiment.inputs.s[0].delimter: unknown key (did you mean 'delimiter'?); known "
                + "keys: \(InputSpec.keys.joined(separator: ", "))"
        )
        XCTAssertEqual(
            message(#"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"s": []}}}"#),
            "pipelines/x.json:1:79: experiment.inputs.s: give at least one input file")
        XCTAssertEqual(
            message(
                #"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"s": [{"path": "a"}]}, "truth": {"t": {"regions": "t.geojson"}}}}"#
            ),
            "pipelines/x.json:1:112: experiment.truth.t: unknown input set 't' (did you mean 's'?); input sets: s")
        XCTAssertEqual(
            message(
                #"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"s": [{"path": "a"}]}, "truth": {"s": {"members": "m.csv"}}}}"#
            ),
            #"pipelines/x.json:1:112: experiment.truth.s: "regions" is required (the truth polygons, GeoJSON, relative to the manifest)"#
        )
        XCTAssertEqual(
            message(
                #"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"s": [{"path": "a"}]}, "truth": {"s": {"regions": "t", "member": "m"}}}}"#
            ),
            "pipelines/x.json:1:134: experiment.truth.s.member: unknown key (did you mean 'members'?); known keys: "
                + "regions, members, must_not, checks"
        )
        XCTAssertEqual(
            message(
                #"{"inputs": [{"path": "a"}], "work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"gird": {}}}"#
            ),
            "pipelines/x.json:1:95: experiment.gird: unknown key (did you mean "
                + "'grid'?); known keys: inputs, truth, grid"
        )
        XCTAssertEqual(
            message(
                #"{"inputs": [{"path": "a"}], "work_dir": "w", "output": "o", "keywords": ["a"], "experiment": [1]}"#),
            #"pipelines/x.json:1:80: experiment: expected an object with "grid", "inputs" and/or "truth", got array"#)
    }

    /// Several truth and members files, a must-not file and the checks flag; their errors.
    func testTruthListsMustNotAndChecks() throws {
        let m = try parse(
            """
            {"name": "q", "work_dir": "w", "output": "o", "keywords": ["a"],
             "experiment": {"inputs": {"s": [{"path": "a.csv"}]},
               "truth": {"s": {"regions": ["t1.geojson", "t2.geojson"], "members": ["m1.csv", "m2.csv"],
                               "must_not": "n.geojson", "checks": true}}}}
            """)
        let t = try XCTUnwrap(m.experiment?.truth(for: "s"))
        XCTAssertEqual(t.regionFiles, ["/base/pipelines/t1.geojson", "/base/pipelines/t2.geojson"])
        XCTAssertEqual(t.memberFiles, ["/base/pipelines/m1.csv", "/base/pipelines/m2.csv"])
        XCTAssertEqual(t.mustNot, "/base/pipelines/n.geojson")
        XCTAssertTrue(t.checks)
        func entry(_ text: String) -> String {
            #"{"work_dir": "w", "output": "o", "keywords": ["a"], "experiment": {"inputs": {"s": [{"path": "a"}]}, "#
                + #""truth": {"s": \#(text)}}}"#
        }
        XCTAssertTrue(
            message(entry(#"{"regions": "t", "checks": "yes"}"#)).hasSuffix(
                "experiment.truth.s.checks: expected true or false, got string"))
        XCTAssertTrue(
            message(entry(#"{"regions": ["t", 3]}"#)).hasSuffix(
                "experiment.truth.s.regions[1]: expected a non-empty path or a list of paths, got number"))
        XCTAssertTrue(
            message(entry(#"{"regions": []}"#)).hasSuffix("experiment.truth.s.regions: give at least one path"))
        XCTAssertTrue(
            message(entry(#"{"regions": "t", "must_not": ["a", "b"]}"#)).hasSuffix(
                "experiment.truth.s.must_not: expected a non-empty path, got array"))
    }

    /// The experiment manifests shipped in pipelines/experiments/ are valid (their inputs are
    /// generated by scripts/make-experiment-data, so they need not exist here).
    func testShippedExperimentManifestsLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let names = FileSystem.list(root + "/pipelines/experiments").filter { $0.hasSuffix(".json") }
        for name in names {
            let m = try Manifest.load(path: root + "/pipelines/experiments/" + name)
            let e = try XCTUnwrap(m.experiment, name)
            XCTAssertFalse(e.combinations.isEmpty)
            XCTAssertTrue(m.workDirectory.hasPrefix(root + "/"), "\(name) keeps its work directory inside the checkout")
            XCTAssertTrue(m.output.hasPrefix(root + "/"), "\(name) keeps its output inside the checkout")
        }
    }
}
