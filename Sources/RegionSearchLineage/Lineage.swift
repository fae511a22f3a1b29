/// Stable ids from one result to the next: tonight's regions matched against the previous
/// result of the lineage (``RegionMatching``), ids kept by heirs, new ids above the lineage's
/// high-water mark, `parent_id` following, and the change report.
///
/// **Which previous result.** The lineage file of the previously published result, unless it
/// labels this very result (its `result` equals tonight's: a rerun, or a night whose data did not
/// change) — then the previous result *it* was matched against. So the same inputs, parameters
/// and lineage file give the same bytes however often they are run, and a rerun never reports
/// "unchanged" for a night that changed things.
///
/// **A fresh lineage** (no file, or the runner's `--fresh-lineage`): ids are the result's own
/// numbers (1…n in output order), every region is `new`, the high-water mark is n.
public enum Lineage {
    /// What one step of a lineage gives.
    public struct Outcome {
        /// Tonight's regions with their stable ids and parents, in the order given.
        public var regions: [TrackedRegion]
        /// Stable id by provisional id (the unidentified result's `region_id`).
        public var stableID: [Int: Int]
        public var report: ChangeReport
        /// The lineage file to publish with the result.
        public var state: LineageState
        /// Whether a previous result was matched (false: a fresh lineage).
        public var continued: Bool
    }

    /// The previous result `state` says tonight's `result` is to be matched against.
    public static func base(of state: LineageState?, result: String) -> LineageState.Previous? {
        guard let state else { return nil }
        return state.result == result ? state.previous : state.asPrevious
    }

    /// One step: `current` (provisional ids, output order) against `previous`.
    ///
    /// - Parameters:
    ///   - result: identifies `current` (the runner's content hash of everything but the lineage).
    ///   - currentSource: how the report names tonight's result.
    public static func advance(
        previous: LineageState?, current: [TrackedRegion], result: String, rule: MatchRule = MatchRule(),
        currentSource: String
    ) throws(LineageError) -> Outcome {
        let base = Self.base(of: previous, result: result)
        let matching = try RegionMatching(
            previous: base?.regions ?? [], current: current, rule: rule, source: "result \(result)")
        var highWaterMark = base?.highWaterMark ?? 0
        var stableID: [Int: Int] = [:]
        if base == nil {
            for r in current { stableID[r.id] = r.id }
            highWaterMark = current.map(\.id).max() ?? 0
        } else {
            for (c, r) in current.enumerated() {
                if let p = matching.heir[c] {
                    stableID[r.id] = matching.previous[p].id
                } else {
                    highWaterMark += 1
                    stableID[r.id] = highWaterMark
                }
            }
        }
        var regions = current
        for i in regions.indices {
            regions[i].id = stableID[regions[i].id]!
            regions[i].parentID = regions[i].parentID.flatMap { stableID[$0] }
        }
        let identified = matching.replacingCurrent(regions)
        let report = ChangeReport(
            identified, previousSource: base.map { "result \($0.result)" }, currentSource: currentSource)
        let state = LineageState(highWaterMark: highWaterMark, result: result, regions: regions, previous: base)
        return Outcome(regions: regions, stableID: stableID, report: report, state: state, continued: base != nil)
    }
}
