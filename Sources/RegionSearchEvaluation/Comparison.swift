import RegionSearchCore
import RegionSearchProjection

/// The result of comparing two region files (`evaluate compare`), per keyword pair.
///
/// Values are unrounded; ``json`` rounds to 4 decimals as evaluate.py does.
public struct Comparison: Sendable {
    /// One region of A matched to one of B.
    public struct Match: Sendable, Equatable {
        var aID: JSONValue
        var bID: JSONValue
        public var iou: Double
    }

    /// POIs inside each union.
    public struct POIOverlap: Sendable, Equatable {
        var insideA: Int
        var insideB: Int
        var insideBoth: Int
        /// |A ∩ B| / |A ∪ B| of the POI sets (0 when both are empty, as evaluate.py).
        var jaccard: Double { Double(insideBoth) / Double(max(insideA + insideB - insideBoth, 1)) }
    }

    /// The comparison of A's regions of one keyword with B's of one keyword.
    public struct KeywordComparison: Sendable {
        /// `keyword`, or `a|b` when a wildcard file is paired with a keyword.
        public var label: String
        var keywordA: String
        var keywordB: String
        var countA: Int
        var countB: Int
        /// Areas in m² of the unions.
        var areaA: Double
        var areaB: Double
        /// Area of the intersection of the unions over the area of their union (1 when both are empty).
        var areaIoU: Double
        /// Mean over A's regions of the best IoU with a region of B (0 when either side is empty).
        var meanBestIoUAInB: Double
        var meanBestIoUBInA: Double
        /// Greedy one-to-one matching by IoU (highest first) of pairs with IoU ≥ the match threshold.
        public var matches: [Match]
        public var poi: POIOverlap?
    }

    public var keywords: [KeywordComparison]
    /// The IoU a pair needs to be matched.
    public var matchThreshold: Double
    public var crs: CRSChoice?
    public var inputs: [EvaluationInput]
    var notes: [String]

    /// Machine-readable report; the per-keyword members have evaluate.py's names and order first.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        members.append(("crs", crs.map { .string($0.definition) } ?? .null))
        members.append(("crs_explanation", crs.map { .string($0.explanation) } ?? .null))
        members.append(("match_threshold", .number(matchThreshold)))
        members.append(("notes", .array(notes.map { .string($0) })))
        members.append(("inputs", .object(inputs.map { ($0.role, $0.json) })))
        members.append(
            (
                "keywords",
                .object(
                    keywords.map { k in
                        var m: [(String, JSONValue)] = [
                            ("n_a", .number(Double(k.countA))), ("n_b", .number(Double(k.countB))),
                            ("area_iou", .number(roundedTo4(k.areaIoU))),
                            ("mean_best_iou_a_in_b", .number(roundedTo4(k.meanBestIoUAInB))),
                            ("mean_best_iou_b_in_a", .number(roundedTo4(k.meanBestIoUBInA))),
                        ]
                        if let p = k.poi {
                            m.append(("poi_jaccard", .number(roundedTo4(p.jaccard))))
                            m.append(("n_pois_a", .number(Double(p.insideA))))
                            m.append(("n_pois_b", .number(Double(p.insideB))))
                            m.append(("n_pois_both", .number(Double(p.insideBoth))))
                        }
                        m.append(("area_a_m2", .number((k.areaA * 10).rounded() / 10)))
                        m.append(("area_b_m2", .number((k.areaB * 10).rounded() / 10)))
                        m.append(("n_matched", .number(Double(k.matches.count))))
                        m.append(
                            (
                                "matched",
                                .array(
                                    k.matches.map {
                                        .object([("a", $0.aID), ("b", $0.bID), ("iou", .number(roundedTo4($0.iou)))])
                                    })
                            ))
                        return (k.label, .object(m))
                    })
            ))
        return .object(members)
    }

    /// Human-readable report for the terminal.
    public var table: String {
        var out = ""
        for i in inputs { out += i.summaryLine + "\n" }
        if let crs { out += "CRS: \(crs.explanation)\n" }
        out += "\n"
        var t = TextTable(header: [""] + keywords.map(\.label))
        t.add(["regions in A"] + keywords.map { String($0.countA) })
        t.add(["regions in B"] + keywords.map { String($0.countB) })
        t.add(["area A km²"] + keywords.map { String(format: "%.3f", $0.areaA / 1e6) })
        t.add(["area B km²"] + keywords.map { String(format: "%.3f", $0.areaB / 1e6) })
        t.add(["area IoU of unions"] + keywords.map { fixed4($0.areaIoU) })
        t.add(["mean best IoU A in B"] + keywords.map { fixed4($0.meanBestIoUAInB) })
        t.add(["mean best IoU B in A"] + keywords.map { fixed4($0.meanBestIoUBInA) })
        t.add(["matched pairs (IoU≥\(thresholdLabel(matchThreshold)))"] + keywords.map { String($0.matches.count) })
        if keywords.contains(where: { $0.poi != nil }) {
            t.add(["POIs in A"] + keywords.map { $0.poi.map { String($0.insideA) } ?? "n/a" })
            t.add(["POIs in B"] + keywords.map { $0.poi.map { String($0.insideB) } ?? "n/a" })
            t.add(["POI Jaccard"] + keywords.map { fixed4($0.poi?.jaccard) })
        }
        out += t.render()
        out += EvaluationInput.notesSection(inputs, notes)
        return out
    }
}
