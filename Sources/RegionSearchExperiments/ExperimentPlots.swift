import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchMaps
import RegionSearchRunner

/// The plots of an experiment, one figure per grid key: each score against the key's values.
///
/// A key whose values are numbers (`propagate.alpha`) is drawn as lines over those values, one
/// line per input set (and point of the other keys). Any other key — a method group, a string
/// parameter — is drawn as bars: one group per input set, the key's values side by side. The
/// panels are F1, mean best IoU, recall and precision at the strictest IoU threshold (and the
/// POI-level scores when the experiment has planted members), each on a fixed 0–1 axis so that
/// plots compare between experiments; without truth, the number of regions.
///
/// Written as `plot-<key>.png` and `.svg` next to results.md, which links them.
struct ExperimentPlots {
    struct Plot {
        /// The grid key (or `inputs` for a grid without keys).
        var axis: String
        /// File name without extension: `plot-<key>`.
        var name: String
        var figure: PlotFigure
    }

    static func fileName(axis: String) -> String { Experiment.plotFileName(axis: axis) }

    static func plots(_ results: ExperimentResults, experiment: Experiment) -> [Plot] {
        guard !results.rows.isEmpty else { return [] }
        let metrics = Self.metrics(results)
        guard !experiment.axes.isEmpty else {
            // No grid: the input sets side by side.
            let sets = unique(results.rows.map(\.combination.inputSet))
            let panels = metrics.map { m in
                PlotFigure.Panel(
                    title: m.title, yRange: m.range,
                    values: [sets.map { s in results.rows.first { $0.combination.inputSet == s }.flatMap(m.value) }])
            }
            return [
                Plot(
                    axis: "inputs", name: fileName(axis: "inputs"),
                    figure: PlotFigure(
                        title: "Experiment \(results.name)", subtitle: subtitle(results, metrics), kind: .bars,
                        xLabel: "input set", xLabels: sets, xPositions: nil, seriesNames: ["RegionSearch"],
                        panels: panels))
            ]
        }
        var plots: [Plot] = []
        for (a, axis) in experiment.axes.enumerated() {
            func point(_ row: ExperimentResults.Row) -> Int? {
                axis.points.firstIndex { p in
                    p.allSatisfy { x in row.combination.assignments.contains { $0.key == x.key && $0.value == x.value }
                    }
                }
            }
            func context(_ row: ExperimentResults.Row) -> String {
                var parts = [row.combination.inputSet]
                for (b, other) in experiment.axes.enumerated() where b != a {
                    if let p = other.points.firstIndex(where: { p in
                        p.allSatisfy { x in
                            row.combination.assignments.contains { $0.key == x.key && $0.value == x.value }
                        }
                    }) {
                        parts.append(label(other.points[p]))
                    }
                }
                return parts.joined(separator: " · ")
            }
            let contexts = unique(results.rows.map(context))
            let groupLabel =
                (["input set"] + experiment.axes.indices.filter { $0 != a }.map { experiment.axes[$0].name })
                .joined(separator: " · ")
            let pointLabels = axis.points.map(label)
            func row(_ c: String, _ p: Int) -> ExperimentResults.Row? {
                results.rows.first { context($0) == c && point($0) == p }
            }
            let numbers = axis.points.map { $0.count == 1 ? $0[0].value.doubleValue : nil }
            let numeric = numbers.allSatisfy { $0 != nil } && Set(numbers.compactMap { $0 }).count > 1
            let panels: [PlotFigure.Panel] = metrics.map { m in
                let values: [[Double?]] =
                    numeric
                    ? contexts.map { c in axis.points.indices.map { p in row(c, p).flatMap(m.value) } }
                    : axis.points.indices.map { p in contexts.map { c in row(c, p).flatMap(m.value) } }
                return PlotFigure.Panel(title: m.title, yRange: m.range, values: values)
            }
            let figure = PlotFigure(
                title: "Experiment \(results.name): scores by \(axis.name)", subtitle: subtitle(results, metrics),
                kind: numeric ? .lines : .bars, xLabel: numeric ? axis.name : groupLabel,
                xLabels: numeric ? pointLabels : contexts, xPositions: numeric ? numbers.map { $0! } : nil,
                seriesNames: numeric ? contexts : pointLabels, panels: panels)
            plots.append(Plot(axis: axis.name, name: fileName(axis: axis.name), figure: figure))
        }
        return plots
    }

    /// One panel's metric.
    struct Metric {
        var title: String
        var range: ClosedRange<Double>?
        var value: (ExperimentResults.Row) -> Double?
    }

    static func metrics(_ results: ExperimentResults) -> [Metric] {
        guard results.scored else {
            return [Metric(title: "regions", range: nil, value: { Double($0.regions) })]
        }
        let k = results.thresholds.count - 1
        let t = thresholdLabel(results.thresholds[k])
        var out = [
            Metric(title: "F1 @ IoU \(t)", range: 0...1, value: { $0.score.map { $0.f1[k] } }),
            Metric(title: "mean best IoU", range: 0...1, value: { $0.score?.meanBestIoU }),
            Metric(title: "recall @ IoU \(t)", range: 0...1, value: { $0.score.map { $0.recall[k] } }),
            Metric(title: "precision @ IoU \(t)", range: 0...1, value: { $0.score.map { $0.precision[k] } }),
        ]
        if results.memberChecked {
            // The headline on real truth and the scenarios: truth items with half their members in
            // regions of their keyword (IoU does not reward a region that holds a strip whole).
            out.insert(Metric(title: "member recall", range: 0...1, value: { $0.score?.memberRecall }), at: 1)
        }
        if results.poiScored {
            out.append(Metric(title: "POI recall", range: 0...1, value: { $0.score?.poiRecall }))
            out.append(Metric(title: "POI precision", range: 0...1, value: { $0.score?.poiPrecision }))
        }
        return out
    }

    static func subtitle(_ results: ExperimentResults, _ metrics: [Metric]) -> String {
        results.scored
            ? "Scores against the input sets' truth (regionsearch-evaluate truth); see results.md for every number."
            : "Regions found per combination (no truth given); see results.md for every number."
    }

    /// `alpha=0.9`-style label of a grid point: its values, with their parameter names when it
    /// sets several.
    static func label(_ point: [Experiment.Assignment]) -> String {
        if point.isEmpty { return "(manifest)" }
        if point.count == 1 { return Experiment.text(point[0].value) }
        return point.map { $0.parameter + "=" + Experiment.text($0.value) }.joined(separator: ", ")
    }

    static func unique(_ items: [String]) -> [String] {
        var seen: Set<String> = []
        return items.filter { seen.insert($0).inserted }
    }
}
