import Foundation
import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchRunner
import RegionSearchStages

/// The results table of an experiment: one row per combination with its grid values, counts,
/// scores and stage timings, written as `results.csv` and `results.md`.
///
/// Everything except the timings is a function of the inputs and parameters, so it is
/// byte-identical between runs and thread counts. Timings are the wall seconds recorded for the
/// stage run that produced each result (a run shared by several combinations shows in each of
/// them); they live in the `seconds_*` columns at the end of the CSV and in a separate table at the
/// end of the Markdown file, so that stripping them leaves deterministic bytes.
public struct ExperimentResults {
    /// One combination's measurements.
    public struct Row {
        public var combination: ExperimentCombination
        /// Accepted POIs (ingest), graph edges, propagation iterations (the most over keywords).
        public var pois: Int?
        public var edges: Int?
        public var iterations: Int?
        /// Regions in the GeoJSON per keyword (in ``ExperimentResults/keywords`` order).
        var regionsPerKeyword: [Int]
        /// All regions in the GeoJSON.
        public var regions: Int
        /// Nil when the input set has no truth.
        public var score: ExperimentScore?
        /// Wall seconds per stage, in pipeline order.
        public var seconds: [Double?]
    }

    public var name: String
    public var description: String
    /// Grid parameters (`stage.parameter`), the table's parameter columns.
    var parameterKeys: [String]
    public var keywords: [String]
    var inputSets: Int
    public var thresholds: [Double]
    /// Whether the experiment has truth for any input set / members for any.
    public var scored: Bool
    var poiScored: Bool
    /// Whether any truth asks for the region checks (`checks`), has members with them, or has
    /// must-not areas: each adds its columns, so earlier experiments keep their columns.
    var checked: Bool
    var memberChecked: Bool
    var sharesScored: Bool
    /// Member-recall groups (`keyword/kind`) over all rows, in order of appearance; they get
    /// columns of their own when there are at least two.
    var memberGroups: [String]
    public var rows: [Row]
    /// The plots next to results.md (grid key, file name without extension), linked from it.
    var plots: [(axis: String, name: String)] = []

    init(manifest: Manifest, experiment: Experiment, rows: [Row]) {
        name = manifest.name
        description = manifest.description
        parameterKeys = experiment.parameterKeys
        keywords = manifest.keywords
        inputSets = experiment.inputSets.count
        thresholds = Experiment.thresholds
        scored = !experiment.truths.isEmpty
        poiScored = experiment.truths.contains { $0.truth.members != nil }
        checked = experiment.truths.contains { $0.truth.checks }
        memberChecked = experiment.truths.contains { $0.truth.checks && !$0.truth.memberFiles.isEmpty }
        sharesScored = experiment.truths.contains { $0.truth.mustNot != nil }
        var groups: [String] = []
        for row in rows {
            for g in row.score?.memberGroups ?? [] where !groups.contains(g.group) { groups.append(g.group) }
        }
        memberGroups = groups.count >= 2 ? groups : []
        self.rows = rows
    }

    /// The names of the check columns, with the limits in them.
    static var emptyColumn: String { "regions_empty_over_" + JSONValue.formatNumber(CheckOptions().emptyLimit) }
    static var areaColumn: String { "regions_over_" + JSONValue.formatNumber(CheckOptions().maxArea / 1e6) + "km2" }

    // MARK: - Columns

    /// The deterministic columns (CSV names).
    public var header: [String] {
        var h = ["combination", "input"] + parameterKeys + ["pois", "edges", "iterations", "regions"]
        h += keywords.map { "regions:" + $0 }
        if scored {
            h.append("mean_best_iou")
            for t in thresholds {
                let l = thresholdLabel(t)
                h += ["recall@" + l, "precision@" + l, "f1@" + l]
            }
            h.append("precision_inside")
            if poiScored { h += ["poi_recall", "poi_precision"] }
            if checked {
                if memberChecked { h += ["member_recall", "fragmentation"] }
                h += ["max_empty_share", Self.emptyColumn, Self.areaColumn]
                for g in memberGroups { h += ["member_recall:" + g, "fragmentation:" + g] }
            }
            if sharesScored { h += ["void_share", "sparse_share"] }
        }
        return h
    }

    /// The timing columns, after the deterministic ones.
    var timingHeader: [String] { Pipeline.stages.map { "seconds_" + $0.name } + ["seconds_total"] }

    /// A row's deterministic cells ("" for a missing value).
    func cells(_ row: Row) -> [String] {
        var c = [row.combination.name, row.combination.inputSet]
        c += parameterKeys.map { key in row.combination.value(of: key).map { Experiment.text($0) } ?? "" }
        c += [row.pois, row.edges, row.iterations, row.regions].map { $0.map(String.init) ?? "" }
        c += row.regionsPerKeyword.map(String.init)
        if scored {
            let s = row.score
            c.append(Self.decimal(s?.meanBestIoU))
            for k in thresholds.indices {
                c += [Self.decimal(s?.recall[k]), Self.decimal(s?.precision[k]), Self.decimal(s?.f1[k])]
            }
            c.append(Self.decimal(s?.precisionInside))
            if poiScored { c += [Self.decimal(s?.poiRecall), Self.decimal(s?.poiPrecision)] }
            if checked {
                if memberChecked { c += [Self.decimal(s?.memberRecall), Self.decimal(s?.fragmentation)] }
                c += [
                    Self.decimal(s?.maxEmptyShare), s?.regionsEmptyOverLimit.map(String.init) ?? "",
                    s?.regionsOverMaxArea.map(String.init) ?? "",
                ]
                for g in memberGroups {
                    let m = s?.memberGroups.first { $0.group == g }
                    c += [Self.decimal(m?.recall), Self.decimal(m?.fragmentation)]
                }
            }
            if sharesScored { c += [Self.decimal(s?.voidShare), Self.decimal(s?.sparseShare)] }
        }
        return c
    }

    func timingCells(_ row: Row) -> [String] {
        let known = row.seconds.compactMap { $0 }
        let total: Double? = known.count == row.seconds.count ? known.reduce(0, +) : nil
        return (row.seconds + [total]).map { $0.map { String(format: "%.3f", $0) } ?? "" }
    }

    static func decimal(_ x: Double?) -> String { x.map { String(format: "%.4f", $0) } ?? "" }

    // MARK: - Files

    /// RFC 4180 CSV with a header; `seconds_*` columns last.
    public var csv: String {
        var out = ""
        func line(_ fields: [String]) {
            out += fields.map(Self.csvField).joined(separator: ",") + "\r\n"
        }
        line(header + timingHeader)
        for row in rows { line(cells(row) + timingCells(row)) }
        return out
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The Markdown report: the results table, then the timings in their own section.
    public var markdown: String {
        var out = "# Experiment \(name)\n\n"
        if !description.isEmpty { out += description + "\n\n" }
        let points = inputSets > 0 ? rows.count / inputSets : 0
        out +=
            "\(rows.count) combination\(rows.count == 1 ? "" : "s"): \(inputSets) input "
            + "set\(inputSets == 1 ? "" : "s") × \(points) grid point\(points == 1 ? "" : "s")."
        out +=
            " Counts: accepted POIs, graph edges, propagation iterations (the "
            + "most over keywords), regions in the GeoJSON."
        if scored {
            let ts = thresholds.map { JSONValue.formatNumber($0) }.joined(separator: " and ")
            out += " Scores: `regionsearch-evaluate truth` against the input set's truth (IoU thresholds \(ts)"
            out += poiScored ? "; POI scores over the input set's ingested POIs)." : ")."
            if checked {
                let o = CheckOptions()
                out +=
                    " Checks: member recall (share of truth items with at least \(JSONValue.formatNumber(o.foundShare))"
                    + " of their members in regions of their keyword) and fragmentation (regions per found item), "
                    + "the largest empty share (polygon area farther than \(JSONValue.formatNumber(o.discFactor)) × "
                    + "the keyword POIs' spacing from all of them) and the regions over "
                    + "\(JSONValue.formatNumber(o.emptyLimit)) of it or over "
                    + "\(JSONValue.formatNumber(o.maxArea / 1e6)) km²."
            }
            if sharesScored { out += " Shares: region area in must-not voids and in the keyword's sparse areas." }
        }
        if rows.contains(where: { r in parameterKeys.contains { r.combination.value(of: $0) == nil } }) {
            out += " A dash in a parameter column: the combination leaves that parameter to the manifest."
        }
        out += " Files: `results.csv`, and `<combination>.geojson` per row.\n\n"

        let head = ["#", "input"] + parameterKeys + Array(header.dropFirst(2 + parameterKeys.count))
        out += Self.markdownRow(head)
        out += Self.markdownRow(head.enumerated().map { i, _ in i < 2 + parameterKeys.count ? "---" : "---:" })
        for (i, row) in rows.enumerated() {
            out += Self.markdownRow([String(i + 1)] + cells(row).dropFirst().map { $0.isEmpty ? "–" : $0 })
        }

        if !plots.isEmpty {
            out += "\n## Plots\n\n"
            out += "Each score against each grid key, one line or bar per input set (PNG; the SVG beside it):\n"
            for plot in plots {
                out += "\n![Scores by \(plot.axis)](\(plot.name).png)\n[\(plot.name).svg](\(plot.name).svg)\n"
            }
        }

        out += "\n## Stage timings (seconds)\n\n"
        out += "Wall time of the stage run that produced each result; a stage run shared by several combinations "
        out += "(same input and upstream parameters) was computed once and shows in each of them. Timings differ "
        out += "between runs; everything above this section, and every column of results.csv except `seconds_*`, "
        out += "is byte-identical for the same inputs and parameters.\n\n"
        let timingHead = ["#"] + Pipeline.stages.map(\.name) + ["total"]
        out += Self.markdownRow(timingHead)
        out += Self.markdownRow(["---"] + timingHead.dropFirst().map { _ in "---:" })
        for (i, row) in rows.enumerated() {
            out += Self.markdownRow([String(i + 1)] + timingCells(row).map { $0.isEmpty ? "–" : $0 })
        }
        return out
    }

    static func markdownRow(_ cells: [String]) -> String {
        "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
    }

    /// The Markdown heading that starts the timing section (the deterministic part ends there).
    static let timingHeading = "\n## Stage timings (seconds)\n"
}
