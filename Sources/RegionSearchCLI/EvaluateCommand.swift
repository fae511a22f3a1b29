import Foundation
import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchIngest
import RegionSearchModel
import RegionSearchRunner
import RegionSearchStages

/// `regionsearch-evaluate`: scores region GeoJSON against ground truth (`truth`) or compares two
/// region files (`compare`); a table on stdout and, with `--json`, a JSON report.
public enum EvaluateCommand {
    /// The defaults of the scores and checks, which the options override.
    static let evaluatorDefaults = Evaluator()
    static let checkDefaults = CheckOptions()

    static let poisOption = CommandSpec.Option(
        "pois", .path, placeholder: "POIS",
        help: "POI file (CSV/GeoJSON read by ingest, or pois.rsa) for POI-level scores and region checks.")
    static let inputSpecOption = CommandSpec.Option(
        "input-spec", .text, repeatable: true, placeholder: "JSON",
        help: "The POIs as an ingest input spec, like a manifest's inputs entry (instead of --pois).")
    static let manifestOption = CommandSpec.Option(
        "manifest", .path, placeholder: "M.json",
        help: "Read the POIs as this manifest's inputs and ingest settings, and report its keywords.")
    static let membersOption = CommandSpec.Option(
        "members", .path, repeatable: true, placeholder: "MEMBERS.csv",
        help: "Truth members (id,cluster_id); truth mode, with POIs (one per truth file, or one for all).")
    static let mustNotOption = CommandSpec.Option(
        "must-not", .path, placeholder: "FILE",
        help: "Areas regions must avoid (GeoJSON, kind void or sparse): share of region area inside them.")
    static let spacingKOption = CommandSpec.Option(
        "spacing-k", .integer(1...100), default: .value(.number(Double(checkDefaults.spacingK))), placeholder: "K",
        help: "Spacing = distance to the K-th nearest other keyword location (as graph.scale_k).")
    static let minSpacingOption = CommandSpec.Option(
        "min-spacing", .number(min: 0), default: .value(.number(checkDefaults.minSpacing)), placeholder: "M",
        help: "A region's spacing below M metres counts as M (as regions.min_spacing_m).")
    static let emptyLimitOption = CommandSpec.Option(
        "empty-limit", .number(min: 0, max: 1), default: .value(.number(checkDefaults.emptyLimit)), placeholder: "E",
        help: "Flag regions whose empty share is above E.")
    static let maxAreaOption = CommandSpec.Option(
        "max-area-km2", .number(min: 0, minExclusive: true), default: .value(.number(checkDefaults.maxArea / 1e6)),
        placeholder: "A", help: "Flag regions larger than A km².")
    static let jsonOption = CommandSpec.Option(
        "json", .path, placeholder: "OUT.json",
        help: "Also write the report as JSON ('-' = JSON on stdout instead of the table).")
    static let thresholdsOption = CommandSpec.Option(
        "thresholds", .list(.number(min: 0, max: 1, minExclusive: true)),
        default: .value(.array(evaluatorDefaults.thresholds.map { .number($0) })), placeholder: "T1,T2",
        help: "IoU thresholds for recall/precision/F1, each once.")
    static let matchIouOption = CommandSpec.Option(
        "match-iou", .number(min: 0, max: 1, minExclusive: true),
        default: .value(.number(evaluatorDefaults.matchThreshold)), placeholder: "T",
        help: "IoU needed to match two regions in compare mode.")
    static let crsOption = CommandSpec.Option(
        "crs", .text, default: .computed("chosen for the extent of the truth file, or of A"), placeholder: "CRS",
        help: "Measure in this projected CRS (metres).")
    static let riverToleranceOption = CommandSpec.Option(
        "river-tolerance-m", .number(min: 0), default: .value(.number(evaluatorDefaults.riverTolerance)),
        placeholder: "M",
        help: "Land within M metres of a river is not on a bank: a margin reaching into it spans nothing.")
    static let threadsOption = CommandSpec.Option.threads(
        "Threads for reading the POI file; results do not depend on it.")

    static let spec = CommandSpec(
        name: "regionsearch-evaluate",
        abstract: "score region polygons against ground truth, or compare two region files",
        positionals: ["truth REGIONS.geojson TRUTH.geojson...", "compare A.geojson B.geojson"],
        discussion: """
            The metrics are those of the Python reference's evaluate.py, measured with GEOS in a metric CRS
            (the automatic choice for the extent of the truth file, or of A; areas in m²). Regions and truths
            pair only when their `keyword` properties are equal; a feature without keyword pairs with every
            keyword. Invalid polygons are repaired with MakeValid and counted.

            truth: per truth polygon the best IoU with a same-keyword region; mean best IoU; recall@t (share
            of truths with best IoU ≥ t), precision@t (share of regions whose best IoU with a same-keyword
            truth is ≥ t), F1@t; precision_inside (share of regions with at least half their area inside
            same-keyword truths). With --pois and --members: POI recall (planted POIs matching the keyword
            inside a same-keyword region / planted POIs matching it) and POI precision (planted keyword POIs
            inside / keyword POIs inside). The keyword match is KeywordMatcher on the POI's keyword text (the
            category column of the generator's CSV), not the name. Several TRUTH files are scored as one.

            Region checks (with POIs): per region its keyword POIs inside, their spacing (median over them of
            the distance to the K-th nearest other location of the keyword, coincident POIs counting once, at
            least --min-spacing), the empty share (the share of the polygon farther than 2 × spacing from every one of them), area
            and density; regions over --empty-limit or --max-area-km2 are listed. Member recall (with POIs
            and members): a truth item is found when at least half of its members (rows whose cluster_id is
            the item's id) lie in regions of its keyword; its fragments are the regions holding at least
            max(2, 10 %) of them; recall = found / items, fragmentation = mean fragments of found items, per
            keyword and per keyword/kind. --must-not: per keyword, the share of the union of its regions that
            lies in `void` (and `river`) areas and in that keyword's `sparse` areas.

            Levels (the regions' `level` property; none = level 0): recall@t counts a truth matched by a
            region of any level; per level, recall and precision of that level's regions alone and their F1;
            the best-level F1@t is the highest of these. Per truth kind: recall at any level and the
            best-level F1 of that kind's truths alone. Rivers (must-not `river` features, or `void` features
            named "river …"): the regions covering land on both banks (more than --river-tolerance-m from
            the water), per level. Downtowns (must-not `downtown` features): level-0 regions per downtown.

            compare: per keyword the area IoU of the two unions, the mean best IoU of A's regions in B and
            of B's in A, pairs matched one-to-one (greedy by IoU ≥ --match-iou), and with --pois the Jaccard
            index of the POI sets inside each union.

            POIS is the generator's CSV (id,name,category,lon,lat) or another input ingest reads with its column
            guesses, or a pois.rsa artifact; --input-spec names the columns ({"path": …, "columns": {"id":
            "osm_id", "keywords": "fclass", …}}); --manifest takes a pipeline manifest's inputs, ingest settings
            and keywords. MEMBERS is the generator's truth_members.csv (id,cluster_id).
            JSON numbers are rounded to 4 decimals; key order is fixed. See docs/EVALUATE.md.
            """,
        options: [
            Self.poisOption,
            Self.inputSpecOption,
            Self.manifestOption,
            Self.membersOption,
            Self.mustNotOption,
            Self.spacingKOption,
            Self.minSpacingOption,
            Self.emptyLimitOption,
            Self.maxAreaOption,
            Self.jsonOption,
            Self.thresholdsOption,
            Self.matchIouOption,
            Self.crsOption,
            Self.riverToleranceOption,
            Self.threadsOption,
        ])

    /// Entry point of `regionsearch-evaluate`.
    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        guard let mode = cl.positionals.first else { throw UsageError("missing mode: 'truth' or 'compare'") }
        guard mode == "truth" || mode == "compare" else {
            let hint = closestMatch(mode, in: ["truth", "compare"]).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("unknown mode '\(mode)'\(hint): expected 'truth' or 'compare'")
        }
        guard cl.positionals.count == 3 || (mode == "truth" && cl.positionals.count > 3) else {
            let names = mode == "truth" ? "REGIONS.geojson TRUTH.geojson..." : "A.geojson B.geojson"
            let least = mode == "truth" ? "at least " : ""
            throw UsageError("\(mode) needs \(least)two files, \(names); got \(cl.positionals.count - 1)")
        }
        // A truth file named twice (under any spelling or link) would count its items twice.
        let truths = Array(cl.positionals.dropFirst(2))
        if let (first, repeated) = FileIdentity.firstRepeat(truths) {
            throw UsageError(
                "truth file '\(truths[repeated])' is the same file as '\(truths[first])'; name each truth file once")
        }
        Parallel.configure(threads: cl.optionalInteger(Self.threadsOption))
        var evaluator = Evaluator()
        evaluator.thresholds = cl.list(Self.thresholdsOption).compactMap(\.doubleValue)
        var seen = Set<Double>()
        for t in evaluator.thresholds where !seen.insert(t).inserted {
            throw UsageError("--thresholds: \(JSONValue.formatNumber(t)) is given twice")
        }
        evaluator.matchThreshold = cl.number(Self.matchIouOption)
        evaluator.crs = cl.optionalString(Self.crsOption)
        var checks = CheckOptions()
        checks.spacingK = cl.integer(Self.spacingKOption)
        checks.minSpacing = cl.number(Self.minSpacingOption)
        checks.emptyLimit = cl.number(Self.emptyLimitOption)
        checks.maxArea = cl.number(Self.maxAreaOption) * 1e6
        evaluator.checks = checks
        evaluator.riverTolerance = cl.number(Self.riverToleranceOption)
        let membersPaths = cl.all(Self.membersOption)
        // A members file named twice was read twice: every planted id counted double.
        if let (first, repeated) = FileIdentity.firstRepeat(membersPaths) {
            throw UsageError(
                "--members '\(membersPaths[repeated])' is the same file as '\(membersPaths[first])'; name each members "
                    + "file once")
        }
        let poiSources = [Self.poisOption, Self.inputSpecOption, Self.manifestOption].filter {
            !cl.all($0).isEmpty
        }
        if poiSources.count > 1 {
            throw UsageError(
                "give the POIs once: " + poiSources.map { "--" + $0.name }.joined(separator: " and ")
                    + " both name them")
        }
        if mode == "truth" && !membersPaths.isEmpty && poiSources.isEmpty {
            throw UsageError("--members needs the POIs they name: give --pois, --input-spec or --manifest")
        }
        if mode == "compare" {
            if !membersPaths.isEmpty { throw UsageError("--members applies to truth mode only") }
            if let o = [Self.mustNotOption, Self.manifestOption, Self.inputSpecOption].first(where: {
                !cl.all($0).isEmpty
            }) {
                throw UsageError("--\(o.name) applies to truth mode only")
            }
        }

        if let out = cl.value(Self.jsonOption), out != "-" {
            var read = cl.positionals.dropFirst().enumerated().map { k, path in ("file \(k + 1)", path) }
            for option in [Self.poisOption, Self.manifestOption, Self.mustNotOption] {
                if let path = cl.value(option) { read.append(("--\(option.name)", path)) }
            }
            read += cl.all(Self.membersOption).map { ("--members", $0) }
            try OutputCollision.check(outputs: [("--json", out)], inputs: read)
        }
        let first = try RegionFeatureFile.read(path: cl.positionals[1])
        let second = RegionFeatureFile.concatenating(
            try cl.positionals.dropFirst(2).map { try RegionFeatureFile.read(path: $0) })
        var keywords: [String] = []
        var pois: EvaluationPOIs?
        if let path = cl.value(Self.poisOption) {
            Log.info("reading POIs from \(path)")
            pois = try EvaluationPOIs.load(path: path)
        } else if let path = cl.value(Self.manifestOption) {
            let manifest = try Manifest.load(path: path)
            if manifest.experiment != nil {
                throw UsageError(
                    "--manifest \(path): an experiment manifest has several input sets; give the POIs with --pois "
                        + "or --input-spec")
            }
            let specs = try manifest.inputs.map { try InputSpec(json: $0.spec, context: "\(path): \($0.key)") }
            try Self.checkJSONOutput(cl, against: specs.map { ("an input of --manifest \(path):", $0.path) })
            let settings = try IngestSettings(manifest.parameters(for: IngestStage.definition.name))
            keywords = manifest.keywords
            Log.info("reading POIs from the inputs of \(path)")
            pois = try EvaluationPOIs.load(specs: specs, settings: settings)
        } else if !cl.all(Self.inputSpecOption).isEmpty {
            var specs: [InputSpec] = []
            for (k, text) in cl.all(Self.inputSpecOption).enumerated() {
                let json: JSONValue
                do {
                    json = try JSONParser.parse(text)
                } catch {
                    throw UsageError("--input-spec #\(k + 1): invalid JSON: \(error.description)")
                }
                specs.append(try InputSpec(json: json, context: "--input-spec #\(k + 1)"))
            }
            try Self.checkJSONOutput(cl, against: specs.enumerated().map { ("--input-spec #\($0 + 1)", $1.path) })
            // One file named twice (a path and a link to it) would count every POI twice, as the
            // ingest stage refuses for its inputs.
            if let (first, repeated) = InputSpec.firstRepeatedFile(specs) {
                throw UsageError(
                    "--input-spec #\(repeated + 1) (\(specs[repeated].displayPath)) is the same file as --input-spec "
                        + "#\(first + 1) (\(specs[first].displayPath)); name each file once, or its POIs are counted twice"
                )
            }
            var settings = IngestSettings()
            settings.duplicates = .keepAll
            Log.info("reading POIs from \(specs.map(\.path).joined(separator: ", "))")
            pois = try EvaluationPOIs.load(specs: specs, settings: settings)
        }
        let members =
            membersPaths.isEmpty
            ? nil : PlantedMembers.concatenating(try membersPaths.map { try PlantedMembers.read(path: $0) })
        let mustNot = try cl.value(Self.mustNotOption).map { try RegionFeatureFile.read(path: $0) }
        let json: JSONValue
        let table: String
        if mode == "truth" {
            let score = try evaluator.scoreTruth(
                regions: first, truth: second, pois: pois, members: members, mustNot: mustNot, keywords: keywords)
            json = score.json
            table = score.table
        } else {
            let comparison = try evaluator.compare(first, second, pois: pois)
            json = comparison.json
            table = comparison.table
        }
        let jsonText = json.serialized(pretty: true) + "\n"
        if let out = cl.value(Self.jsonOption), out != "-" {
            do {
                try AtomicFile.write(jsonText, to: out)
            } catch {
                throw ToolFailure("\(out): cannot write the JSON report: \(error)", status: .output)
            }
            Log.info("wrote \(out)")
        }
        print(cl.value(Self.jsonOption) == "-" ? jsonText : table, terminator: "")
    }

    /// Refuses a `--json` report that would replace one of the POI files named inside `--manifest`
    /// or `--input-spec`: those are known only once the manifest or spec is read, after the check
    /// of the files named on the command line.
    static func checkJSONOutput(_ cl: ParsedCommandLine, against inputs: [(String, String)]) throws {
        guard let out = cl.value(Self.jsonOption), out != "-" else { return }
        try OutputCollision.check(outputs: [("--json", out)], inputs: inputs)
    }
}
