import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchRunner

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
    /// With `checks`: member recall and fragmentation (nil without members), the largest empty
    /// share, and the regions over the empty-share and area limits.
    var memberRecall: Double?
    var fragmentation: Double?
    var maxEmptyShare: Double?
    var regionsEmptyOverLimit: Int?
    var regionsOverMaxArea: Int?
    /// Member recall and fragmentation per `keyword/kind` group of the truth.
    var memberGroups: [(group: String, recall: Double, fragmentation: Double?)] = []
    /// With `must_not`: the share of region area in voids and in sparse areas.
    var voidShare: Double?
    var sparseShare: Double?

    public static func == (a: ExperimentScore, b: ExperimentScore) -> Bool {
        a.truths == b.truths && a.meanBestIoU == b.meanBestIoU && a.recall == b.recall && a.precision == b.precision
            && a.f1 == b.f1 && a.precisionInside == b.precisionInside && a.poiRecall == b.poiRecall
            && a.poiPrecision == b.poiPrecision && a.memberRecall == b.memberRecall
            && a.fragmentation == b.fragmentation && a.maxEmptyShare == b.maxEmptyShare
            && a.regionsEmptyOverLimit == b.regionsEmptyOverLimit && a.regionsOverMaxArea == b.regionsOverMaxArea
            && a.memberGroups.map(\.group) == b.memberGroups.map(\.group)
            && a.memberGroups.map(\.recall) == b.memberGroups.map(\.recall)
            && a.memberGroups.map(\.fragmentation) == b.memberGroups.map(\.fragmentation)
            && a.voidShare == b.voidShare && a.sparseShare == b.sparseShare
    }

    /// Reads the metrics from a truth report's JSON (``TruthScore/json``); nil when a member is
    /// missing (a cached report of another layout: it is then recomputed). `checks`: the report
    /// must have the region checks.
    public init?(report: JSONValue, thresholds: [Double], checks: Bool = false) {
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
        if checks {
            // Without regions (and truth) the evaluator has no CRS to check in: nothing to check.
            guard report["n_regions_checked"] != nil || report["n_regions"]?.intValue == 0 else { return nil }
            memberRecall = report["member_recall"]?.doubleValue
            fragmentation = report["mean_fragmentation"]?.doubleValue
            maxEmptyShare = report["max_empty_share"]?.doubleValue
            regionsEmptyOverLimit = report["n_regions_empty_over_limit"]?.intValue
            regionsOverMaxArea = report["n_regions_over_max_area"]?.intValue
            if report["n_regions"]?.intValue == 0 {
                regionsEmptyOverLimit = regionsEmptyOverLimit ?? 0
                regionsOverMaxArea = regionsOverMaxArea ?? 0
            }
            for g in report["member_groups"]?.arrayValue ?? [] {
                guard let name = g["group"]?.stringValue, let r = g["member_recall"]?.doubleValue else { return nil }
                memberGroups.append((name, r, g["mean_fragmentation"]?.doubleValue))
            }
        }
        voidShare = report["void_share"]?.doubleValue
        sparseShare = report["sparse_share"]?.doubleValue
    }
}
