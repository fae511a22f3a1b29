import RegionSearchCore
import RegionSearchProjection

/// The result of scoring region polygons against ground-truth polygons (`evaluate truth`).
///
/// Values are unrounded; ``json`` rounds to 4 decimals as evaluate.py does.
public struct TruthScore: Sendable {
    /// POI-level counts for one keyword group or overall.
    struct POICounts: Sendable, Equatable {
        /// Planted POIs matching the keyword that lie in a region of that keyword.
        var plantedInside: Int
        /// Planted POIs matching the keyword.
        public var planted: Int
        /// POIs matching the keyword that lie in a region of that keyword.
        var keywordInside: Int

        public init(plantedInside: Int = 0, planted: Int = 0, keywordInside: Int = 0) {
            self.plantedInside = plantedInside
            self.planted = planted
            self.keywordInside = keywordInside
        }

        /// plantedInside / planted (0 when there are no planted POIs).
        public var recall: Double { Double(plantedInside) / Double(max(planted, 1)) }
        /// plantedInside / keywordInside (0 when no keyword POI lies in a region).
        public var precision: Double { Double(plantedInside) / Double(max(keywordInside, 1)) }

        static func + (a: POICounts, b: POICounts) -> POICounts {
            POICounts(
                plantedInside: a.plantedInside + b.plantedInside, planted: a.planted + b.planted,
                keywordInside: a.keywordInside + b.keywordInside)
        }
    }

    /// Scores over a set of truths and regions (all, or one keyword).
    struct Metrics: Sendable, Equatable {
        var truthCount: Int
        /// All regions of the group, scored or not.
        var regionCount: Int
        /// Regions with at least one same-keyword truth in the file: the precision denominator.
        var scoredRegionCount: Int
        /// Mean over truths of the best IoU; nil without truths.
        public var meanBestIoU: Double?
        /// Per threshold (same order as ``TruthScore/thresholds``).
        public var recall: [Double]
        public var precision: [Double]
        public var f1: [Double]
        /// Share of scored regions with at least half their area inside same-keyword truths.
        public var precisionInside: Double
        public var poi: POICounts?
    }

    /// The best match of one truth polygon.
    public struct TruthMatch: Sendable, Equatable {
        var truthID: JSONValue
        public var keyword: String
        var bestIoU: Double
        /// The region with the best IoU; nil when no region overlaps the truth.
        var regionID: JSONValue?
        /// Truth area in m².
        public var area: Double
    }

    public var thresholds: [Double]
    var overall: Metrics
    /// Per keyword label (`*` for features without keyword), in code-point order.
    var byKeyword: [(keyword: String, metrics: Metrics)]
    /// One entry per truth feature, in file order.
    public var truths: [TruthMatch]
    /// The CRS areas were measured in (nil when both files are empty).
    public var crs: CRSChoice?
    public var inputs: [EvaluationInput]
    /// Caveats a reader must know (undefined values reported as 0, unscored regions, …).
    var notes: [String]

    /// Machine-readable report. Leading members have evaluate.py's names and order.
    public var json: JSONValue {
        var members = Self.metricMembers(overall, thresholds: thresholds)
        members.append(("crs", crs.map { .string($0.definition) } ?? .null))
        members.append(("crs_explanation", crs.map { .string($0.explanation) } ?? .null))
        members.append(("thresholds", .array(thresholds.map { .number($0) })))
        members.append(("notes", .array(notes.map { .string($0) })))
        members.append(("inputs", .object(inputs.map { ($0.role, $0.json) })))
        members.append(
            (
                "keywords",
                .object(byKeyword.map { ($0.keyword, .object(Self.metricMembers($0.metrics, thresholds: thresholds))) })
            ))
        members.append(
            (
                "truths",
                .array(
                    truths.map { t in
                        .object([
                            ("truth_id", t.truthID), ("keyword", .string(t.keyword)),
                            ("best_iou", .number(roundedTo4(t.bestIoU))),
                            ("region_id", t.regionID ?? .null), ("area_m2", .number((t.area * 10).rounded() / 10)),
                        ])
                    })
            ))
        return .object(members)
    }

    static func metricMembers(_ m: Metrics, thresholds: [Double]) -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = [
            ("n_truth", .number(Double(m.truthCount))), ("n_regions", .number(Double(m.regionCount))),
            ("mean_best_iou", m.meanBestIoU.map { .number(roundedTo4($0)) } ?? .null),
            ("precision_inside", .number(roundedTo4(m.precisionInside))),
        ]
        for (k, t) in thresholds.enumerated() {
            let l = thresholdLabel(t)
            out.append(("recall@" + l, .number(roundedTo4(m.recall[k]))))
            out.append(("precision@" + l, .number(roundedTo4(m.precision[k]))))
            out.append(("f1@" + l, .number(roundedTo4(m.f1[k]))))
        }
        if let p = m.poi {
            out.append(("poi_recall", .number(roundedTo4(p.recall))))
            out.append(("poi_precision", .number(roundedTo4(p.precision))))
            out.append(("n_planted", .number(Double(p.planted))))
            out.append(("n_planted_inside", .number(Double(p.plantedInside))))
            out.append(("n_keyword_pois_inside", .number(Double(p.keywordInside))))
        }
        out.append(("n_regions_scored", .number(Double(m.scoredRegionCount))))
        return out
    }

    /// Human-readable report for the terminal.
    public var table: String {
        var out = ""
        for i in inputs { out += i.summaryLine + "\n" }
        if let crs { out += "CRS: \(crs.explanation)\n" }
        out += "\n"
        let groups: [(String, Metrics)] = [("all", overall)] + byKeyword.map { ($0.keyword, $0.metrics) }
        var t = TextTable(header: [""] + groups.map { $0.0 })
        t.add(["truths"] + groups.map { String($0.1.truthCount) })
        t.add(["regions"] + groups.map { String($0.1.regionCount) })
        t.add(["regions scored"] + groups.map { String($0.1.scoredRegionCount) })
        t.add(["mean best IoU"] + groups.map { fixed4($0.1.meanBestIoU) })
        for (k, th) in thresholds.enumerated() {
            let l = thresholdLabel(th)
            t.add(["recall@" + l] + groups.map { fixed4($0.1.recall[k]) })
            t.add(["precision@" + l] + groups.map { fixed4($0.1.precision[k]) })
            t.add(["F1@" + l] + groups.map { fixed4($0.1.f1[k]) })
        }
        t.add(["precision inside"] + groups.map { fixed4($0.1.precisionInside) })
        if overall.poi != nil {
            t.add(["POI recall"] + groups.map { fixed4($0.1.poi?.recall) })
            t.add(["POI precision"] + groups.map { fixed4($0.1.poi?.precision) })
            t.add(["planted POIs"] + groups.map { $0.1.poi.map { String($0.planted) } ?? "n/a" })
            t.add(["planted inside"] + groups.map { $0.1.poi.map { String($0.plantedInside) } ?? "n/a" })
            t.add(["keyword POIs inside"] + groups.map { $0.1.poi.map { String($0.keywordInside) } ?? "n/a" })
        }
        out += t.render()
        if !truths.isEmpty {
            out += "\n"
            var d = TextTable(header: ["truth", "keyword", "best IoU", "region", "area km²"], leftAligned: [1])
            for m in truths {
                d.add([
                    Self.idText(m.truthID), m.keyword, fixed4(m.bestIoU), m.regionID.map(Self.idText) ?? "-",
                    String(format: "%.3f", m.area / 1e6),
                ])
            }
            out += d.render()
        }
        out += EvaluationInput.notesSection(inputs, notes)
        return out
    }

    static func idText(_ v: JSONValue) -> String { v.stringValue ?? v.serialized() }
}
