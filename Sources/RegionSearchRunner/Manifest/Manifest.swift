import RegionSearchCore
import RegionSearchIngest
import RegionSearchPropagation
import RegionSearchStages

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pipeline manifest (`pipelines/*.json`): the raw inputs, where the work directory and the
/// final GeoJSON go, and every stage's parameters, validated against the stages' own
/// ``ParameterSpec``s.
///
/// ```json
/// {
///   "name": "default", "description": "…",
///   "inputs": [ { "path": "../data/helsinki-pois.csv", "format": "csv" } ],
///   "work_dir": "../work/default",
///   "output": "../out/default.geojson",
///   "keywords": ["restaurant", "cafe"],
///   "graph": { "k": 8 }
/// }
/// ```
/// Relative paths are relative to the manifest's directory. `keywords` is shorthand for
/// `propagate.keywords`. Input objects go to `regionsearch-ingest --input-spec` unchanged except
/// for `path`, which is made absolute; ingest validates their other keys. An `experiment`
/// section (``Experiment``) declares input sets, truth and a parameter grid; `output` is then a
/// directory.
public struct Manifest {
    /// One raw input: the manifest's object with `path` made absolute.
    public struct Input {
        /// Position in its list (`inputs`, or an experiment input set).
        public var index: Int
        /// Where it is in the manifest, for messages: `inputs[0]`, `experiment.inputs.seed7[0]`.
        public var key: String
        /// Absolute path of the input file.
        public var path: String
        /// The input object as written, except for the absolute `path`; passed to ingest.
        public var spec: JSONValue
    }

    /// The manifest file as the user named it (used in messages).
    public let file: String
    /// The manifest's directory, absolute; relative paths resolve against it.
    public let directory: String
    public var name: String
    public var description: String
    public var inputs: [Input]
    /// Absolute work directory (object store, records, lock).
    public var workDirectory: String
    /// Where the regions go: an absolute file path, `-` (standard output) or a `PG:`
    /// connection string (``outputTarget`` says how); an experiment's output directory.
    public var output: String
    /// The regions output: path, format, layer and mode (a GeoJSON file per combination for
    /// an experiment).
    public var outputTarget: OutputTarget
    /// The scored POI layer's output (`poi_output`), when the manifest asks for it.
    public var poiOutput: OutputTarget?

    /// Every output target, regions first.
    public var outputTargets: [OutputTarget] { [outputTarget] + (poiOutput.map { [$0] } ?? []) }
    /// The `experiment` section, when the manifest declares input sets and a parameter grid; its
    /// `output` is then a directory (one GeoJSON per combination and the results tables) and
    /// ``inputs`` holds the first input set. ``variant(for:)`` gives each combination's pipeline.
    public private(set) var experiment: Experiment?
    /// The `maps` section: which map files `run` writes beside the output.
    public var maps: MapSettings
    /// Whether this is one combination of an experiment (``variant(for:)``): its GeoJSON is one
    /// file among the experiment's, written in place rather than as a published set.
    public internal(set) var isCombination = false
    /// The `lineage` key: stable region ids from run to run and the change report.
    public var lineage: LineageSettings
    /// Resolved parameters of every stage, in pipeline order (defaults filled in).
    private(set) var stageParameters: [(stage: String, parameters: Parameters)]

    /// Top-level keys besides the stage sections.
    static let topLevelKeys = [
        "name", "description", "inputs", "work_dir", "output", "poi_output", "keywords", "experiment", "maps",
        "lineage",
    ]

    /// The resolved parameters of `stage`, as the pipeline runs it: propagate's with what the
    /// regions stage and the POI layer need of it (``PropagateStage/parameters(_:regions:poiLayer:)``).
    public func parameters(for stage: String) -> Parameters {
        guard stage == PropagateStage.definition.name else { return givenParameters(for: stage) }
        return PropagateStage.parameters(
            givenParameters(for: stage), regions: givenParameters(for: RegionsStage.definition.name),
            poiLayer: poiOutput != nil)
    }

    /// The parameters of `stage` as the manifest (and any override or grid value) gives them,
    /// before anything is derived from another stage's: what a change of one parameter starts
    /// from, so that a derived value never outlives what it was derived from.
    func givenParameters(for stage: String) -> Parameters {
        stageParameters.first { $0.stage == stage }?.parameters ?? Parameters(values: [])
    }

    /// The query keywords (`propagate.keywords`), in order, one score column each: a keyword that
    /// repeats an earlier one after normalisation (`BANK` after `bank`) is left out, as the
    /// propagate stage does.
    public var keywords: [String] {
        PropagationOptions.distinct(
            parameters(for: PropagateStage.definition.name).strings(PropagationOptions.keywordsSpec))
    }

    /// Replaces the parameters of one stage (used by tests and experiment grids).
    mutating func setParameters(_ parameters: Parameters, for stage: String) {
        if let i = stageParameters.firstIndex(where: { $0.stage == stage }) {
            stageParameters[i].parameters = parameters
        } else {
            stageParameters.append((stage, parameters))
        }
    }

    /// The pipeline of one experiment combination: its input set, the grid's parameter values over
    /// the manifest's, and `OUTPUT/<combination>.geojson` as output; no experiment section.
    public func variant(for combination: ExperimentCombination) -> Manifest {
        var m = self
        m.experiment = nil
        m.isCombination = true
        m.name = name + "/" + combination.name
        m.inputs = combination.inputs
        m.output = output + "/" + combination.fileName
        // Combination maps only on request: an experiment's pictures are its plots.
        if !maps.explicit { m.maps = .disabled }
        // Experiments compare combinations, not nights: no lineage.
        m.lineage = LineageSettings(enabled: false)
        m.outputTarget = OutputTarget(geoJSON: m.output)
        m.poiOutput = nil
        for a in combination.assignments {
            var p = m.givenParameters(for: a.stage)
            p.set(a.parameter, a.value)
            m.setParameters(p, for: a.stage)
        }
        return m
    }

    /// Reads and validates a manifest file.
    public static func load(path: String) throws(ManifestError) -> Manifest {
        let bytes: [UInt8]
        do {
            bytes = try Manifest.readFile(path, limit: Manifest.maximumBytes)
        } catch {
            throw ManifestError.unreadable(file: path, reason: error.reason)
        }
        return try Manifest(bytes: bytes, file: path, directory: PathResolver.directory(ofFile: path))
    }

    /// Parses and validates manifest text.
    ///
    /// - Parameters:
    ///   - file: the name used in messages.
    ///   - directory: the absolute directory relative paths resolve against.
    public init(bytes: [UInt8], file: String, directory: String) throws(ManifestError) {
        self.file = file
        self.directory = directory
        let document: JSONValue
        do {
            document = try bytes.withUnsafeBufferPointer { (buf) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: buf)
            }
        } catch {
            // A manifest saved as UTF-16 (Windows editors' "Unicode") reads as a stray byte 0xFF.
            if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
                throw ManifestError.syntax(
                    file: file, line: 1, column: 1,
                    reason: "the file is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8")
            }
            throw ManifestError.syntax(file: file, line: error.line, column: error.column, reason: error.reason)
        }
        let locator = JSONKeyLocator(bytes: bytes)
        func invalid(_ key: String, _ reason: String) -> ManifestError {
            .invalid(file: file, key: key, position: locator.nearestPosition(of: key), reason: reason)
        }
        guard let members = document.objectValue else {
            throw invalid("", "expected a JSON object at the top level, got \(document.typeName)")
        }
        // Keywords have their own check (every control character, below).
        if let key = JSONValue.object(members.filter { $0.0 != "keywords" }).firstNUL() {
            throw invalid(
                key,
                "holds the control character U+0000 (NUL): the system reads a path or name only up to it, so "
                    + "another file or folder would be used than the one named; remove it")
        }
        let stageNames = Pipeline.stages.map { $0.name }
        let known = Manifest.topLevelKeys + stageNames
        for (key, _) in members where !known.contains(key) {
            let hint = closestMatch(key, in: known).map { " (did you mean '\($0)'?)" } ?? ""
            throw invalid(key, "unknown key\(hint); known keys: \(known.joined(separator: ", "))")
        }
        func string(_ key: String, required: Bool) throws(ManifestError) -> String? {
            guard let value = document[key], value != .null else {
                if required { throw invalid(key, "required (\(Manifest.help(for: key)))") }
                return nil
            }
            guard let s = value.stringValue else { throw invalid(key, "expected a string, got \(value.typeName)") }
            return s
        }
        func path(_ key: String) throws(ManifestError) -> String {
            let s = try string(key, required: true)!
            guard !s.isEmpty else { throw invalid(key, "expected a non-empty path") }
            return PathResolver.absolute(s, relativeTo: directory)
        }

        let fileStem = AtomicFile.baseName(of: file).split(separator: ".").first.map(String.init) ?? file
        name = try string("name", required: false) ?? fileStem
        description = try string("description", required: false) ?? ""
        workDirectory = try path("work_dir")
        guard let outputValue = document["output"], outputValue != .null else {
            throw invalid("output", "required (\(Manifest.help(for: "output")))")
        }
        if document["experiment"].map({ $0 != .null }) ?? false {
            output = try path("output")
            outputTarget = OutputTarget(geoJSON: output)
            if let p = document["poi_output"], p != .null {
                throw invalid("poi_output", "not available for experiments (their output is a directory of GeoJSON)")
            }
        } else {
            outputTarget = try OutputTarget.parse(outputValue, role: .regions, directory: directory, invalid: invalid)
            output = outputTarget.path
            if let p = document["poi_output"], p != .null {
                let target = try OutputTarget.parse(p, role: .pois, directory: directory, invalid: invalid)
                if target.sharesDestination(with: outputTarget) {
                    guard target.format.holdsSeveralLayers else {
                        throw invalid(
                            "poi_output",
                            "the same file as output, but \(target.format.rawValue) holds one layer; "
                                + "give the POIs their own file, or write both to a GeoPackage or PostGIS")
                    }
                    guard target.layer != outputTarget.layer else {
                        throw invalid("poi_output.layer", "'\(target.layer)' is the regions' layer too; name another")
                    }
                } else if target.isStandardOutput && outputTarget.isStandardOutput {
                    throw invalid("poi_output", "output already goes to standard output; give the POIs a file")
                }
                poiOutput = target
            }
        }
        inputs = []
        stageParameters = []
        maps = try MapSettings(document["maps"], invalid: invalid)
        lineage = try LineageSettings(document["lineage"], directory: directory, invalid: invalid)
        if document["experiment"].map({ $0 != .null }) ?? false {
            if let l = document["lineage"], l != .null, l != .bool(false) {
                throw invalid("lineage", "not available for experiments (they compare combinations, not nights)")
            }
            lineage = LineageSettings(enabled: false)
        }

        let experimentValue = document["experiment"].flatMap { $0 == .null ? nil : $0 }
        let experimentInputs = experimentValue?["inputs"].flatMap { $0 == .null ? nil : $0 }
        if let given = document["inputs"], given != .null {
            if experimentInputs != nil {
                throw invalid("experiment.inputs", "given both as \"inputs\" and \"experiment.inputs\"; keep one")
            }
            inputs = try Manifest.parseInputs(given, key: "inputs", directory: directory, invalid: invalid)
        } else if experimentInputs == nil {
            let alternative = experimentValue == nil ? "" : "; or name input sets in \"experiment.inputs\""
            throw invalid("inputs", "required (\(Manifest.help(for: "inputs"))\(alternative))")
        }

        for stage in Pipeline.stages {
            var section = document[stage.name]
            var keywordsFromTop = false
            if stage.name == PropagateStage.definition.name, let keywords = document["keywords"], keywords != .null {
                if let given = section?["keywords"], given != .null {
                    throw invalid("keywords", "given both as \"keywords\" and \"propagate.keywords\"; keep one")
                }
                var members = section?.objectValue ?? []
                if section != nil && section?.objectValue == nil {
                    throw invalid(
                        stage.name, "expected an object of \(stage.name) parameters, got \(section!.typeName)")
                }
                members.append(("keywords", keywords))
                section = .object(members)
                keywordsFromTop = true
            }
            let parameters: Parameters
            do {
                parameters = try stage.resolve(section, context: stage.name)
            } catch {
                var (key, reason) = Manifest.splitKey(error.message, default: stage.name)
                if keywordsFromTop && (key == stage.name + ".keywords" || key.hasPrefix(stage.name + ".keywords[")) {
                    key = String(key.dropFirst(stage.name.count + 1))  // keywords, keywords[i]: where they were given
                }
                if key == stage.name && section?.objectValue == nil {
                    reason = "expected an object of \(stage.name) parameters, got \(section?.typeName ?? "nothing")"
                }
                throw invalid(key, reason)
            }
            stageParameters.append((stage.name, parameters))
        }
        try validateKeywords(invalid: invalid, fromTop: document["keywords"] != nil)
        if let experimentValue {
            let parsed = try Experiment(
                experimentValue, directory: directory, topLevelInputs: inputs, document: document, invalid: invalid,
                parseInputs: { (value, key) throws(ManifestError) -> [Input] in
                    try Manifest.parseInputs(value, key: key, directory: directory, invalid: invalid)
                })
            experiment = parsed
            if inputs.isEmpty { inputs = parsed.inputSets[0].inputs }
            // Each value was checked against its parameter's domain; the stage's options must also
            // accept every combination (a value may be valid alone but not with the others).
            for combination in parsed.combinations {
                let variant = self.variant(for: combination)
                for stage in Pipeline.stages {
                    do {
                        try stage.validate(variant.parameters(for: stage.name))
                    } catch {
                        throw invalid(
                            "experiment.grid", "combination \(combination.name): \(stage.name).\(error.description)")
                    }
                }
            }
        }
        do {
            try RunInventory(self).check()
        } catch {
            throw invalid("output", error.description)
        }
        for target in outputTargets {
            if let problem = target.formatProblem { throw invalid(problem.key, problem.reason) }
        }
        // A Shapefile's dBASE table holds at most 254 bytes in a text field: two keywords that
        // differ after that would come out as one, each region under the other's name.
        if let shapefile = outputTargets.first(where: { $0.format == .shapefile }),
            let (k, keyword) = keywords.enumerated().first(where: { $0.element.utf8.count > Self.shapefileTextBytes })
        {
            throw invalid(
                "keywords[\(k)]",
                "is \(keyword.utf8.count) bytes long, and the Shapefile \(shapefile.path) holds at most "
                    + "\(Self.shapefileTextBytes) bytes in a text field (keywords that differ after that would merge); "
                    + "shorten the keyword or write GeoPackage (.gpkg) or FlatGeobuf (.fgb)")
        }
        // The POI layer has five columns per keyword (POIFeatureSchema) beside its id, name,
        // keyword text, feature id and geometry: past a GeoPackage's (SQLite's) 2,000 columns or
        // PostgreSQL's 1,600 its table cannot be made, which was found after every stage had run.
        if let poi = poiOutput, let limit = poi.format == .gpkg ? 2000 : poi.format == .postgis ? 1600 : nil {
            let columns = 5 + 5 * keywords.count
            if columns > limit {
                throw invalid(
                    "poi_output",
                    "the POI layer would have \(columns) columns (5 per keyword for \(keywords.count) keywords), and "
                        + "a \(poi.format == .gpkg ? "GeoPackage" : "PostgreSQL") table holds at most \(limit); run "
                        + "fewer keywords per manifest, or write the POI layer as FlatGeobuf (.fgb)")
            }
        }
    }

    /// The most bytes a Shapefile's dBASE table holds in a text field.
    static let shapefileTextBytes = 254

    /// Parses a list of input objects (`inputs`, or one set of `experiment.inputs`): `path` made
    /// absolute against `directory`, every other key validated by ingest's rules now, so that a
    /// typo is reported with its position in the manifest.
    static func parseInputs(
        _ value: JSONValue, key: String, directory: String, invalid: (String, String) -> ManifestError
    ) throws(ManifestError) -> [Input] {
        guard let inputList = value.arrayValue else {
            throw invalid(key, "expected an array of input objects, got \(value.typeName)")
        }
        guard !inputList.isEmpty else { throw invalid(key, "give at least one input file") }
        var inputs: [Input] = []
        for (i, item) in inputList.enumerated() {
            let at = "\(key)[\(i)]"
            guard let object = item.objectValue else {
                throw invalid(at, "expected an object with at least \"path\", got \(item.typeName)")
            }
            guard let pathValue = item["path"], pathValue != .null else {
                throw invalid(at, "\"path\" is required (the input file, relative to the manifest)")
            }
            guard let raw = pathValue.stringValue, !raw.isEmpty else {
                throw invalid(at + ".path", "expected a non-empty string, got \(pathValue.typeName)")
            }
            // A database connection is not a path.
            let absolute = InputSpec.isConnectionString(raw) ? raw : PathResolver.absolute(raw, relativeTo: directory)
            let spec = JSONValue.object(object.map { $0.0 == "path" ? ("path", .string(absolute)) : $0 })
            do {
                _ = try InputSpec(json: spec, context: at)
            } catch {
                let (errorKey, reason) = Manifest.splitKey(error.message, default: at)
                throw invalid(errorKey, reason)
            }
            inputs.append(Input(index: i, key: at, path: absolute, spec: spec))
        }
        if let repeated = sameFileTwice(inputs) {
            throw invalid(repeated.input.key + ".path", repeated.reason)
        }
        return inputs
    }

    /// A file named twice in one input list (a path and a link to it, or two spellings): its POIs
    /// would be counted twice. The later input and why.
    static func sameFileTwice(_ inputs: [Input]) -> (input: Input, reason: String)? {
        let paths = inputs.map { InputSpec.isConnectionString($0.path) ? "" : $0.path }
        // One file read two ways (two layers of a GeoPackage, two filters) is two inputs.
        let reads = inputs.map { input in
            ["layer", "sql", "where"].map { input.spec[$0]?.stringValue ?? "" }.joined(separator: "\u{0}")
        }
        guard let (first, repeated) = FileIdentity.firstRepeat(paths, reads: reads) else { return nil }
        return (
            inputs[repeated],
            "'\(inputs[repeated].path)' is the same file as \(inputs[first].key) ('\(inputs[first].path)'), through "
                + "a link or another spelling of its path, read the same way; name each file once, or its POIs are "
                + "counted twice (two layers of one file are two inputs: give each its \"layer\")"
        )
    }

    /// The stage command line splits keyword lists at commas; a keyword must therefore not hold one.
    private func validateKeywords(invalid: (String, String) -> ManifestError, fromTop: Bool) throws(ManifestError) {
        let key = fromTop ? "keywords" : "propagate.keywords"
        // As given (positions name the manifest's entries), repeats included.
        let keywords = parameters(for: PropagateStage.definition.name).strings(PropagationOptions.keywordsSpec)
        guard !keywords.isEmpty else { throw invalid(key, "give at least one keyword") }
        for (i, k) in keywords.enumerated() {
            if k.allSatisfy({ $0.isWhitespace }) { throw invalid("\(key)[\(i)]", "empty keyword") }
            if k.contains(",") {
                throw invalid(
                    "\(key)[\(i)]",
                    "\"\(k)\" contains a comma, which separates keywords on the stage command line; give each "
                        + "keyword separately"
                )
            }
        }
    }

    /// Splits a validation message "<key path>: reason" into the key path (to locate it in the
    /// document) and the reason.
    static func splitKey(_ message: String, default key: String) -> (String, String) {
        guard let colon = message.range(of: ": ") else { return (key, message) }
        let head = String(message[..<colon.lowerBound])
        guard head.hasPrefix(key) else { return (key, message) }
        return (head, String(message[colon.upperBound...]))
    }

    static func help(for key: String) -> String {
        switch key {
        case "inputs": return "a list of input objects, each with at least \"path\""
        case "work_dir": return "the directory for intermediate artifacts and run records, relative to the manifest"
        case "output":
            return "where to write the regions: a file relative to the manifest (its extension picks the format), "
                + "\"-\" for standard output, or a PG: connection string"
        default: return key
        }
    }

    struct ReadFailure: Error {
        var reason: String
    }

    /// The most bytes a manifest may hold. Real ones are a few kB; a larger file named by
    /// mistake (a data file, a disk image) is refused before it is read.
    public static let maximumBytes = 16 << 20

    /// Reads a whole regular file of at most `limit` bytes. Anything else is refused before a
    /// byte is read: a device such as `/dev/zero` never ends and would fill memory, a FIFO would
    /// wait for a writer (hence the non-blocking open, which a regular file's reads ignore).
    static func readFile(_ path: String, limit: Int = .max) throws(ReadFailure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ReadFailure(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ReadFailure(reason: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ReadFailure(reason: "is a folder, not a file; give the path of a file")
        default:
            throw ReadFailure(reason: "is not a regular file (a device, FIFO or socket); give the path of a file")
        }
        // Blocking reads again, as a regular file's always are (the flag only kept the open from
        // waiting on a FIFO).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let size = Int(info.st_size)
        func tooLarge(_ bytes: Int) -> ReadFailure {
            ReadFailure(reason: "is larger than \(limit) bytes (\(bytes) read or listed); is this the right file?")
        }
        guard size <= limit else { throw tooLarge(size) }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadFailure(reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            // A file still growing while it is read is held to the same limit.
            guard out.count <= limit else { throw tooLarge(out.count) }
        }
        return out
    }
}
