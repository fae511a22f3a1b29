import Foundation
import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchModel

/// `regionsearch-evaluate`: scores region GeoJSON against ground truth (`truth`) or compares two
/// region files (`compare`); a table on stdout and, with `--json`, a JSON report.
public enum EvaluateCommand {
    static let poisOption = CommandSpec.Option(
        "pois", .value, placeholder: "POIS",
        help: "POI file (CSV/GeoJSON read by ingest, or pois.rsa) for POI-level scores.")
    static let membersOption = CommandSpec.Option(
        "members", .value, placeholder: "MEMBERS.csv", help: "Planted POI ids (id,cluster_id); truth mode, with --pois."
    )
    static let jsonOption = CommandSpec.Option(
        "json", .value, placeholder: "OUT.json",
        help: "Also write the report as JSON ('-' = JSON on stdout instead of the table).")
    static let thresholdsOption = CommandSpec.Option(
        "thresholds", .value, placeholder: "T1,T2", help: "IoU thresholds for recall/precision/F1 (default 0.3,0.5).")
    static let matchIouOption = CommandSpec.Option(
        "match-iou", .value, placeholder: "T", help: "IoU needed to match two regions in compare mode (default 0.5).")
    static let crsOption = CommandSpec.Option(
        "crs", .value, placeholder: "CRS",
        help: "Measure in this projected CRS (metres) instead of the automatic choice.")
    static let threadsOption = CommandSpec.Option(
        "threads", .value, placeholder: "N",
        help: "Threads for reading the POI file (default: all cores); results do not depend on it.")

    static let spec = CommandSpec(
        name: "regionsearch-evaluate",
        abstract: "score region polygons against ground truth, or compare two region files",
        usage: """
            regionsearch-evaluate truth REGIONS.geojson TRUTH.geojson [--pois POIS --members MEMBERS.csv] [--json OUT.json] [--thresholds 0.3,0.5]
                   regionsearch-evaluate compare A.geojson B.geojson [--pois POIS] [--json OUT.json]
            """,
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
            category column of the generator's CSV), not the name.

            compare: per keyword the area IoU of the two unions, the mean best IoU of A's regions in B and
            of B's in A, pairs matched one-to-one (greedy by IoU ≥ --match-iou), and with --pois the Jaccard
            index of the POI sets inside each union.

            POIS is the generator's CSV (id,name,category,lon,lat) or another input ingest reads, or a
            pois.rsa artifact. MEMBERS is the generator's truth_members.csv (id,cluster_id).
            JSON numbers are rounded to 4 decimals; key order is fixed. See docs/EVALUATE.md.
            """,
        options: [
            Self.poisOption,
            Self.membersOption,
            Self.jsonOption,
            Self.thresholdsOption,
            Self.matchIouOption,
            Self.crsOption,
            Self.threadsOption,
        ],
        acceptsPositionals: true)

    /// Entry point of `regionsearch-evaluate`.
    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        guard let mode = cl.positionals.first else { throw UsageError("missing mode: 'truth' or 'compare'") }
        guard mode == "truth" || mode == "compare" else {
            throw UsageError("unknown mode '\(mode)': expected 'truth' or 'compare'")
        }
        guard cl.positionals.count == 3 else {
            let names = mode == "truth" ? "REGIONS.geojson TRUTH.geojson" : "A.geojson B.geojson"
            throw UsageError("\(mode) needs two files, \(names); got \(cl.positionals.count - 1)")
        }
        try Parallel.configure(from: cl.value(Self.threadsOption))
        var evaluator = Evaluator()
        if let text = cl.value(Self.thresholdsOption) {
            evaluator.thresholds = try parseThresholds(text, option: "thresholds")
        }
        if let text = cl.value(Self.matchIouOption) {
            guard let t = try parseThresholds(text, option: "match-iou").first, !text.contains(",") else {
                throw UsageError("--match-iou: expected one number in (0, 1], got \"\(text)\"")
            }
            evaluator.matchThreshold = t
        }
        evaluator.crs = cl.value(Self.crsOption)
        let poisPath = cl.value(Self.poisOption)
        let membersPath = cl.value(Self.membersOption)
        if mode == "truth" && (poisPath == nil) != (membersPath == nil) {
            throw UsageError("POI-level scores need both --pois and --members")
        }
        if mode == "compare" && membersPath != nil { throw UsageError("--members applies to truth mode only") }

        let first = try RegionFeatureFile.read(path: cl.positionals[1])
        let second = try RegionFeatureFile.read(path: cl.positionals[2])
        let pois = try poisPath.map { path in
            Log.info("reading POIs from \(path)")
            return try EvaluationPOIs.load(path: path)
        }
        let members = try membersPath.map { try PlantedMembers.read(path: $0) }
        let json: JSONValue
        let table: String
        if mode == "truth" {
            let score = try evaluator.scoreTruth(regions: first, truth: second, pois: pois, members: members)
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

    /// Parses "0.3,0.5": numbers in (0, 1], no repeats, in the given order.
    static func parseThresholds(_ text: String, option: String) throws(UsageError) -> [Double] {
        var out: [Double] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let s = part.trimmingCharacters(in: .whitespaces)
            guard let t = Double(s), t.isFinite, t > 0, t <= 1 else {
                throw UsageError("--\(option): expected numbers in (0, 1] separated by commas, got \"\(text)\"")
            }
            guard !out.contains(t) else { throw UsageError("--\(option): \(s) is given twice") }
            out.append(t)
        }
        return out
    }
}
