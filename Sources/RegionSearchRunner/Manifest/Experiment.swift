import RegionSearchCore
import RegionSearchStages

/// The `experiment` section of a manifest: named input sets, ground truth per set, and a grid of
/// parameter values. `regionsearch run` executes every combination (input set × grid point) as
/// an ordinary pipeline through the content-keyed runner, so stages that are the same in several
/// combinations run once.
///
/// ```json
/// "experiment": {
///   "inputs": { "seed42": [ {"path": "a.csv"} ], "seed43": [ {"path": "b.csv"} ] },
///   "truth":  { "seed42": {"regions": "a.truth.geojson", "members": "a.truth_members.csv",
///                          "must_not": "a.must_not.geojson", "checks": true} },
///   "grid": {
///     "graph.method": ["delaunay", "knn"],
///     "method": [ {"regions.method": "propagation"},
///                 {"regions.method": "dbscan", "regions.dbscan_eps_m": 100} ]
///   }
/// }
/// ```
/// A grid key `STAGE.PARAMETER` lists values of one parameter. A key without a dot names an axis
/// whose values are objects of `STAGE.PARAMETER` assignments that vary together (a method and the
/// parameters only it uses). Combinations are the cartesian product of the input sets and the
/// axes, input sets outermost, then the axes in manifest order, the last axis varying fastest.
public struct Experiment {
    /// One named list of input files (`experiment.inputs.NAME`).
    public struct InputSet {
        public var name: String
        public var inputs: [Manifest.Input]
    }

    /// Ground truth of one input set, absolute paths.
    public struct Truth: Equatable {
        /// Truth polygons (GeoJSON with a `keyword` property per feature).
        public var regions: String
        /// Planted POI ids (`id,cluster_id` CSV), for POI-level scores; optional.
        public var members: String?
        /// Further truth and members files scored together with the first (`"regions": [a, b]`).
        public var moreRegions: [String] = []
        public var moreMembers: [String] = []
        /// Areas regions must avoid (`must_not`): adds the void and sparse shares to the results.
        public var mustNot: String?
        /// `checks: true`: adds member recall, fragmentation, the largest empty share and the
        /// counts of regions over the empty-share and area limits to the results.
        public var checks = false

        /// Every truth file, in order.
        public var regionFiles: [String] { [regions] + moreRegions }
        /// Every members file, in order.
        public var memberFiles: [String] { (members.map { [$0] } ?? []) + moreMembers }
    }

    /// One parameter value set by a grid point.
    public struct Assignment: Equatable {
        public var stage: String
        public var parameter: String
        /// Validated and normalised by the parameter's ``ParameterSpec`` (null → the default).
        public var value: JSONValue
        /// `stage.parameter`, as in the manifest and the results table.
        public var key: String { stage + "." + parameter }
        /// The value as it appears in file names and tables: strings as they are, numbers in
        /// shortest round-trip form, `default` for a null default.
        var valueText: String { Experiment.text(value) }
    }

    /// One axis of the grid: a `STAGE.PARAMETER` key with its values, or a named group whose
    /// points assign several parameters at once.
    public struct Axis {
        public var name: String
        /// Each point's assignments (exactly one for a `STAGE.PARAMETER` axis).
        public var points: [[Assignment]]
    }

    /// Keys of the section.
    public static let keys = ["inputs", "truth", "grid"]
    /// The name of the one input set when the manifest's top-level `inputs` is used.
    static let defaultInputSetName = "input"
    /// IoU thresholds of the scores (recall, precision and F1 at each).
    public static let thresholds = [0.3, 0.5]
    /// Longest combination name (file names stay well under the usual 255-byte limit).
    static let maxNameBytes = 200

    public private(set) var inputSets: [InputSet] = []
    /// Truth per input set name, in manifest order.
    public private(set) var truths: [(inputSet: String, truth: Truth)] = []
    public private(set) var axes: [Axis] = []
    /// Every combination, in execution order.
    public private(set) var combinations: [ExperimentCombination] = []

    /// The truth of an input set, if given.
    public func truth(for inputSet: String) -> Truth? { truths.first { $0.inputSet == inputSet }?.truth }

    /// Every parameter the grid varies, `stage.parameter`, in order of first appearance.
    public var parameterKeys: [String] {
        var out: [String] = []
        for axis in axes {
            for point in axis.points {
                for a in point where !out.contains(a.key) { out.append(a.key) }
            }
        }
        return out
    }

    /// Parses and validates the section.
    ///
    /// - Parameters:
    ///   - topLevelInputs: the manifest's `inputs` (the single input set when the section has none).
    ///   - document: the whole manifest, to refuse a parameter that is both set in its stage
    ///     section and varied by the grid.
    ///   - parseInputs: the manifest's input-list parser (ingest's validation, positions).
    init(
        _ section: JSONValue, directory: String, topLevelInputs: [Manifest.Input], document: JSONValue,
        invalid: (String, String) -> ManifestError,
        parseInputs: (JSONValue, String) throws(ManifestError) -> [Manifest.Input]
    ) throws(ManifestError) {
        guard let members = section.objectValue else {
            throw invalid(
                "experiment", "expected an object with \"grid\", \"inputs\" and/or \"truth\", got \(section.typeName)")
        }
        for (key, _) in members where !Self.keys.contains(key) {
            let hint = closestMatch(key, in: Self.keys).map { " (did you mean '\($0)'?)" } ?? ""
            throw invalid("experiment.\(key)", "unknown key\(hint); known keys: \(Self.keys.joined(separator: ", "))")
        }
        try parseInputSets(
            section["inputs"], topLevelInputs: topLevelInputs, invalid: invalid, parseInputs: parseInputs)
        try parseTruth(section["truth"], directory: directory, invalid: invalid)
        try parseGrid(section["grid"], document: document, invalid: invalid)
        try buildCombinations(invalid: invalid)
    }

    // MARK: - Parsing

    private mutating func parseInputSets(
        _ value: JSONValue?, topLevelInputs: [Manifest.Input], invalid: (String, String) -> ManifestError,
        parseInputs: (JSONValue, String) throws(ManifestError) -> [Manifest.Input]
    ) throws(ManifestError) {
        guard let value, value != .null else {
            inputSets = [InputSet(name: Self.defaultInputSetName, inputs: topLevelInputs)]
            return
        }
        guard let sets = value.objectValue else {
            throw invalid(
                "experiment.inputs",
                "expected an object of named input lists, "
                    + "e.g. {\"seed7\": [{\"path\": \"a.csv\"}]}, got \(value.typeName)"
            )
        }
        guard !sets.isEmpty else { throw invalid("experiment.inputs", "give at least one input set") }
        for (name, list) in sets {
            let key = "experiment.inputs.\(name)"
            guard Self.isValidName(name) else {
                throw invalid(
                    key,
                    "an input set name must start with a letter or digit and hold only letters, digits, '.', '-' and "
                        + "'_' (at most 64; it becomes part of file names)"
                )
            }
            inputSets.append(InputSet(name: name, inputs: try parseInputs(list, key)))
        }
    }

    private mutating func parseTruth(_ value: JSONValue?, directory: String, invalid: (String, String) -> ManifestError)
        throws(ManifestError)
    {
        guard let value, value != .null else { return }
        guard let entries = value.objectValue else {
            throw invalid(
                "experiment.truth",
                "expected an object mapping input set names to {\"regions\": …, \"members\": …}, got \(value.typeName)")
        }
        let names = inputSets.map(\.name)
        let truthKeys = ["regions", "members", "must_not", "checks"]
        for (name, entry) in entries {
            let key = "experiment.truth.\(name)"
            guard names.contains(name) else {
                let hint = closestMatch(name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                throw invalid(key, "unknown input set '\(name)'\(hint); input sets: \(names.joined(separator: ", "))")
            }
            guard let object = entry.objectValue else {
                throw invalid(
                    key,
                    "expected an object with \"regions\" (truth polygons, GeoJSON) and optionally \"members\" "
                        + "(planted POI ids, CSV), got \(entry.typeName)"
                )
            }
            for (k, _) in object where !truthKeys.contains(k) {
                let hint = closestMatch(k, in: truthKeys).map { " (did you mean '\($0)'?)" } ?? ""
                throw invalid("\(key).\(k)", "unknown key\(hint); known keys: \(truthKeys.joined(separator: ", "))")
            }
            /// One path, or (`list`) a non-empty list of paths, relative to the manifest.
            func paths(_ member: String, list: Bool) throws(ManifestError) -> [String] {
                guard let v = entry[member], v != .null else { return [] }
                let items = list ? (v.arrayValue ?? [v]) : [v]
                if list && v.arrayValue?.isEmpty == true {
                    throw invalid("\(key).\(member)", "give at least one path")
                }
                var out: [String] = []
                for (i, item) in items.enumerated() {
                    let at = "\(key).\(member)" + (list && v.arrayValue != nil ? "[\(i)]" : "")
                    guard let s = item.stringValue, !s.isEmpty else {
                        throw invalid(
                            at, "expected a non-empty path\(list ? " or a list of paths" : ""), got \(item.typeName)")
                    }
                    out.append(PathResolver.absolute(s, relativeTo: directory))
                }
                return out
            }
            let regions = try paths("regions", list: true)
            guard let first = regions.first else {
                throw invalid(key, "\"regions\" is required (the truth polygons, GeoJSON, relative to the manifest)")
            }
            let members = try paths("members", list: true)
            var truth = Truth(regions: first, members: members.first)
            truth.moreRegions = Array(regions.dropFirst())
            truth.moreMembers = Array(members.dropFirst())
            truth.mustNot = try paths("must_not", list: false).first
            if let v = entry["checks"], v != .null {
                guard let b = v.boolValue else {
                    throw invalid("\(key).checks", "expected true or false, got \(v.typeName)")
                }
                truth.checks = b
            }
            truths.append((name, truth))
        }
    }

    private mutating func parseGrid(
        _ value: JSONValue?, document: JSONValue, invalid: (String, String) -> ManifestError
    )
        throws(ManifestError)
    {
        guard let value, value != .null else { return }
        guard let entries = value.objectValue else {
            throw invalid(
                "experiment.grid", "expected an object of \"STAGE.PARAMETER\": [values…], got \(value.typeName)")
        }
        // Which axis varies each parameter: one parameter, one axis.
        var owner: [String: String] = [:]

        func parameter(_ name: String, at key: String, axis: String) throws(ManifestError) -> (String, ParameterSpec) {
            guard let dot = name.firstIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex
            else {
                throw invalid(key, "expected STAGE.PARAMETER, e.g. graph.method")
            }
            let stageName = String(name[..<dot])
            let parameterName = String(name[name.index(after: dot)...])
            let stageNames = Pipeline.stages.map(\.name)
            guard let stage = Pipeline.stage(named: stageName) else {
                let hint = closestMatch(stageName, in: stageNames).map { " (did you mean '\($0)'?)" } ?? ""
                throw invalid(key, "unknown stage '\(stageName)'\(hint); stages: \(stageNames.joined(separator: ", "))")
            }
            guard let spec = stage.parameters.first(where: { $0.key == parameterName }) else {
                let known = stage.parameters.map(\.key)
                let hint = closestMatch(parameterName, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw invalid(
                    key,
                    "unknown \(stageName) parameter '\(parameterName)'\(hint); known: \(known.joined(separator: ", "))")
            }
            if stageName == PropagateStage.definition.name && spec.key == "keywords" {
                throw invalid(
                    key,
                    "the keywords cannot vary within an experiment (the results have columns per keyword); give them "
                        + "in \"keywords\" and run one experiment per keyword set"
                )
            }
            if let set = document[stageName]?[spec.key], set != .null {
                throw invalid(key, "also set in the \(stageName) section; give it in one place")
            }
            if let other = owner[name], other != axis {
                throw invalid(key, "already varied by experiment.grid.\(other); a parameter belongs to one grid key")
            }
            owner[name] = axis
            return (stageName, spec)
        }

        func normalise(_ raw: JSONValue, _ spec: ParameterSpec, at key: String) throws(ManifestError) -> JSONValue {
            if raw == .null {
                guard let d = spec.defaultValue else {
                    throw invalid(key, "null is not a value of this required parameter")
                }
                return d
            }
            switch spec.validate(raw) {
            case .success(let v): return v
            case .failure(let reason): throw invalid(key, reason)
            }
        }

        for (axisName, list) in entries {
            let key = "experiment.grid.\(axisName)"
            let linked = !axisName.contains(".")
            guard let items = list.arrayValue else {
                throw invalid(
                    key,
                    linked
                        ? "expected a list of objects of \"STAGE.PARAMETER\": value (a grid key without a dot names "
                            + "parameters that vary together), got \(list.typeName)"
                        : "expected a list of values, got \(list.typeName)")
            }
            guard !items.isEmpty else { throw invalid(key, "give at least one value") }
            if linked && !Self.isValidName(axisName) {
                throw invalid(
                    key,
                    "expected STAGE.PARAMETER (e.g. graph.method), or a group name of letters, digits, '.', '-' and "
                        + "'_' whose values are objects of STAGE.PARAMETER: value"
                )
            }
            // A single-parameter axis resolves its key once.
            let single = linked ? nil : try parameter(axisName, at: key, axis: axisName)
            var points: [[Assignment]] = []
            for (i, item) in items.enumerated() {
                let at = "\(key)[\(i)]"
                var point: [Assignment] = []
                if linked {
                    guard let object = item.objectValue else {
                        throw invalid(
                            at,
                            "expected an object of \"STAGE.PARAMETER\": value (the grid key \"\(axisName)\" has no "
                                + "dot, so it names parameters that vary together), got \(item.typeName)"
                        )
                    }
                    for (name, raw) in object {
                        let (stage, spec) = try parameter(name, at: "\(at).\(name)", axis: axisName)
                        point.append(
                            Assignment(
                                stage: stage, parameter: spec.key, value: try normalise(raw, spec, at: "\(at).\(name)"))
                        )
                    }
                } else if let (stage, spec) = single {
                    point = [Assignment(stage: stage, parameter: spec.key, value: try normalise(item, spec, at: at))]
                }
                if let j = points.firstIndex(where: { Self.sameAssignments($0, point) }) {
                    let what =
                        linked
                        ? "the same parameters as \(key)[\(j)]"
                        : "\(point[0].valueText) is listed twice (also \(key)[\(j)])"
                    throw invalid(at, what)
                }
                points.append(point)
            }
            axes.append(Axis(name: axisName, points: points))
        }
    }

    private mutating func buildCombinations(invalid: (String, String) -> ManifestError) throws(ManifestError) {
        var seen: [String: Int] = [:]
        for set in inputSets {
            var choice = [Int](repeating: 0, count: axes.count)
            while true {
                var assignments: [Assignment] = []
                for (a, axis) in axes.enumerated() { assignments += axis.points[choice[a]] }
                let name = Self.combinationName(inputSet: set.name, assignments: assignments)
                let at = "experiment" + (axes.isEmpty ? "" : ".grid")
                if let earlier = seen[name] {
                    throw invalid(
                        at,
                        "combinations \(earlier + 1) and \(combinations.count + 1) get the same file name "
                            + "\(name).geojson (values are reduced to letters, digits, '.', '-' and '+'); make them "
                            + "differ there"
                    )
                }
                if name.utf8.count > Self.maxNameBytes {
                    throw invalid(
                        at,
                        "the combination name \(name) is longer than \(Self.maxNameBytes) bytes; use shorter input "
                            + "set names or fewer grid keys"
                    )
                }
                seen[name] = combinations.count
                combinations.append(
                    ExperimentCombination(
                        index: combinations.count, name: name, inputSet: set.name, inputs: set.inputs,
                        assignments: assignments))
                // Odometer: the last axis turns fastest.
                var a = axes.count - 1
                while a >= 0 {
                    choice[a] += 1
                    if choice[a] < axes[a].points.count { break }
                    choice[a] = 0
                    a -= 1
                }
                if a < 0 { break }
            }
        }
    }

    // MARK: - Names

    /// `seed42__graph.method=knn__propagate.alpha=0.7`: the input set, then each assignment,
    /// with every character outside letters, digits and `.-+=_` replaced by `_`.
    static func combinationName(inputSet: String, assignments: [Assignment]) -> String {
        let parts = [inputSet] + assignments.map { $0.key + "=" + sanitise($0.valueText) }
        return parts.joined(separator: "__")
    }

    /// The file name (without extension) of the plot of one grid key: `plot-<key>`.
    public static func plotFileName(axis: String) -> String { "plot-" + sanitise(axis) }

    /// The file names (without extension) this experiment's plots get: one per grid key, or
    /// `plot-inputs` for a grid without keys.
    public var plotNames: [String] {
        axes.isEmpty ? [Self.plotFileName(axis: "inputs")] : axes.map { Self.plotFileName(axis: $0.name) }
    }

    static func sanitise(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { s in
                    s.isASCII
                        && (s.properties.isAlphabetic || ("0"..."9").contains(s) || ".-+".unicodeScalars.contains(s))
                        ? s : "_"
                }))
    }

    public static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: return "default"
        case .string(let s): return s
        case .number(let d): return JSONValue.formatNumber(d)
        case .bool(let b): return b ? "true" : "false"
        default: return value.serialized()
        }
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 64 else { return false }
        func ok(_ s: Unicode.Scalar) -> Bool { s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s)) }
        return ok(first) && name.unicodeScalars.allSatisfy { ok($0) || "._-".unicodeScalars.contains($0) }
    }

    static func sameAssignments(_ a: [Assignment], _ b: [Assignment]) -> Bool {
        a.count == b.count && a.allSatisfy { x in b.contains { $0.key == x.key && $0.value == x.value } }
    }
}
