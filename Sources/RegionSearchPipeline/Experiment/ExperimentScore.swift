import RegionSearchCore
import RegionSearchEvaluation

/// The scores of one combination that go into the results table: the overall metrics of
/// `regionsearch-evaluate truth`, rounded to 4 decimals as its JSON report has them.
public struct ExperimentScore: Equatable {
    public var truths: Int
    public var meanBestIoU: Double?
    /// Per ``Experiment/thresholds``.
    public var recall: [Double]
    public var precision: [Double]
    public var f1: [Double]
    public var precisionInside: Double
    /// POI-level scores; nil without a members file.
    var poiRecall: Double?
    var poiPrecision: Double?

    /// Reads the metrics from a truth report's JSON (``TruthScore/json``); nil when a member is
    /// missing (a cached report of another layout: it is then recomputed).
    public init?(report: JSONValue, thresholds: [Double]) {
        guard let truths = report["n_truth"]?.intValue, let inside = report["precision_inside"]?.doubleValue else {
            return nil
        }
        self.truths = truths
        precisionInside = inside
        meanBestIoU = report["mean_best_iou"]?.doubleValue
        recall = []
        precision = []
        f1 = []
        for t in thresholds {
            let label = thresholdLabel(t)
            guard let r = report["recall@" + label]?.doubleValue, let p = report["precision@" + label]?.doubleValue,
                let f = report["f1@" + label]?.doubleValue
            else { return nil }
            recall.append(r)
            precision.append(p)
            f1.append(f)
        }
        poiRecall = report["poi_recall"]?.doubleValue
        poiPrecision = report["poi_precision"]?.doubleValue
    }
}
