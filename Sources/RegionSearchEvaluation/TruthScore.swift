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
        /// Member recall over the group's truth items (with checks, POIs and members).
        public var members: MemberRecall?
        /// The region checks over the group's regions (with checks and POIs).
        public var regionChecks: RegionCheck.Summary?
        /// Region area in must-not areas (with a must-not file).
        public var mustNot: MustNotShare?
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
        /// The truth's `kind` property.
        public var kind: String?
        /// Member recall of this truth (nil without member rows or without checks).
        public var members: MemberRecall.Outcome?
        /// The ids of the regions in `members.regionCounts`, in the same order.
        var memberRegionIDs: [JSONValue] = []
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
    /// The thresholds of the region checks and member recall, when they ran.
    public var checkOptions: CheckOptions?
    /// One check per region that has a keyword, in file order (empty when the checks did not run).
    public var regionChecks: [RegionCheck] = []
    /// Member recall per `keyword/kind` of the truth items (when the truth has kinds).
    public var memberGroups: [(label: String, recall: MemberRecall)] = []

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
                        var m: [(String, JSONValue)] = [
                            ("truth_id", t.truthID), ("keyword", .string(t.keyword)),
                            ("best_iou", .number(roundedTo4(t.bestIoU))),
                            ("region_id", t.regionID ?? .null), ("area_m2", .number((t.area * 10).rounded() / 10)),
                        ]
                        if checkOptions != nil {
                            m.append(("kind", t.kind.map { .string($0) } ?? .null))
                            if let o = t.members {
                                m += [
                                    ("n_members", .number(Double(o.members))),
                                    ("n_members_inside", .number(Double(o.inside))),
                                    ("member_share", .number(roundedTo4(o.share))), ("found", .bool(o.found)),
                                    ("fragments", .number(Double(o.fragments))),
                                    (
                                        "member_regions",
                                        .array(
                                            zip(t.memberRegionIDs, o.regionCounts).map {
                                                .object([("region_id", $0), ("n_members", .number(Double($1.count)))])
                                            })
                                    ),
                                ]
                            }
                        }
                        return .object(m)
                    })
            ))
        if let options = checkOptions {
            members.append(("checks", options.json))
            members.append(
                (
                    "member_groups",
                    .array(
                        memberGroups.map { g in
                            .object([("group", .string(g.label))] + Self.memberMembers(g.recall))
                        })
                ))
            members.append(("regions", .array(regionChecks.map(Self.regionJSON))))
        }
        return .object(members)
    }

    static func memberMembers(_ m: MemberRecall) -> [(String, JSONValue)] {
        [
            ("member_recall", .number(roundedTo4(m.recall))), ("n_member_items", .number(Double(m.items))),
            ("n_member_found", .number(Double(m.found))),
            ("mean_fragmentation", m.meanFragmentation.map { .number(roundedTo4($0)) } ?? .null),
        ]
    }

    static func regionJSON(_ c: RegionCheck) -> JSONValue {
        func tenth(_ x: Double?) -> JSONValue { x.map { JSONValue.number(($0 * 10).rounded() / 10) } ?? .null }
        let empty: JSONValue = c.emptyShare.map { JSONValue.number(roundedTo4($0)) } ?? .null
        let members: [(String, JSONValue)] = [
            ("region_id", c.regionID), ("keyword", .string(c.keyword)), ("area_m2", tenth(c.area)),
            ("n_keyword_pois", .number(Double(c.keywordPOIs))),
            ("n_keyword_locations", .number(Double(c.keywordLocations))), ("spacing_m", tenth(c.spacing)),
            ("empty_share", empty), ("density_per_km2", tenth(c.density)),
        ]
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
        if let r = m.members { out += memberMembers(r) }
        if let c = m.regionChecks {
            out += [
                ("n_regions_checked", .number(Double(c.regions))),
                ("max_empty_share", c.maxEmptyShare.map { .number(roundedTo4($0)) } ?? .null),
                ("n_regions_empty_over_limit", .number(Double(c.overEmptyLimit))),
                ("n_regions_empty_undefined", .number(Double(c.undefined))),
                ("n_regions_over_max_area", .number(Double(c.overArea))),
            ]
        }
        if let v = m.mustNot {
            out += [
                ("region_area_m2", .number((v.regionArea * 10).rounded() / 10)),
                ("void_share", .number(roundedTo4(v.voidShare))), ("sparse_share", .number(roundedTo4(v.sparseShare))),
            ]
        }
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
        if overall.members != nil {
            t.add(["member items"] + groups.map { $0.1.members.map { String($0.items) } ?? "n/a" })
            t.add(["member items found"] + groups.map { $0.1.members.map { String($0.found) } ?? "n/a" })
            t.add(["member recall"] + groups.map { fixed4($0.1.members?.recall) })
            t.add(["fragmentation"] + groups.map { fixed4($0.1.members?.meanFragmentation) })
        }
        if let options = checkOptions, overall.regionChecks != nil {
            let limit = JSONValue.formatNumber(options.emptyLimit)
            let area = JSONValue.formatNumber(options.maxArea / 1e6)
            t.add(["regions checked"] + groups.map { $0.1.regionChecks.map { String($0.regions) } ?? "n/a" })
            t.add(["max empty share"] + groups.map { fixed4($0.1.regionChecks?.maxEmptyShare) })
            t.add(
                ["regions empty > \(limit)"]
                    + groups.map { $0.1.regionChecks.map { String($0.overEmptyLimit) } ?? "n/a" })
            t.add(["regions > \(area) km²"] + groups.map { $0.1.regionChecks.map { String($0.overArea) } ?? "n/a" })
        }
        if overall.mustNot != nil {
            t.add(
                ["region area km²"]
                    + groups.map { $0.1.mustNot.map { String(format: "%.3f", $0.regionArea / 1e6) } ?? "n/a" })
            t.add(["share in voids"] + groups.map { fixed4($0.1.mustNot?.voidShare) })
            t.add(["share in sparse areas"] + groups.map { fixed4($0.1.mustNot?.sparseShare) })
        }
        out += t.render()
        if !memberGroups.isEmpty {
            out += "\n"
            var g = TextTable(header: ["truth group", "items", "found", "member recall", "fragmentation"])
            for (label, m) in memberGroups {
                g.add([label, String(m.items), String(m.found), fixed4(m.recall), fixed4(m.meanFragmentation)])
            }
            out += g.render()
        }
        if !truths.isEmpty {
            out += "\n"
            let withMembers = truths.contains { $0.members != nil }
            var header = ["truth", "keyword", "best IoU", "region", "area km²"]
            if withMembers { header += ["members", "inside", "found", "fragments", "regions (members)"] }
            var d = TextTable(header: header, leftAligned: [1, 9])
            for m in truths {
                var row = [
                    Self.idText(m.truthID), m.keyword, fixed4(m.bestIoU), m.regionID.map(Self.idText) ?? "-",
                    String(format: "%.3f", m.area / 1e6),
                ]
                if withMembers {
                    if let o = m.members {
                        let regions = zip(m.memberRegionIDs, o.regionCounts).prefix(4).map {
                            "\(Self.idText($0)) (\($1.count))"
                        }
                        row += [
                            String(o.members), String(format: "%.2f", o.share), o.found ? "yes" : "no",
                            o.found ? String(o.fragments) : "-",
                            regions.joined(separator: ", ") + (o.regionCounts.count > 4 ? ", …" : ""),
                        ]
                    } else {
                        row += ["-", "-", "-", "-", ""]
                    }
                }
                d.add(row)
            }
            out += d.render()
        }
        if let options = checkOptions {
            let flagged = regionChecks.filter {
                ($0.emptyShare ?? 0) > options.emptyLimit || $0.area > options.maxArea || $0.emptyShare == nil
            }
            let limit = JSONValue.formatNumber(options.emptyLimit)
            let area = JSONValue.formatNumber(options.maxArea / 1e6)
            out += "\nRegions with an empty share above \(limit), undefined, or over \(area) km²: "
            out += "\(flagged.count) of \(regionChecks.count) (every region is in the JSON report)\n"
            if !flagged.isEmpty {
                var r = TextTable(
                    header: ["region", "keyword", "area km²", "keyword POIs", "per km²", "spacing m", "empty share"],
                    leftAligned: [1])
                for c in flagged {
                    r.add([
                        Self.idText(c.regionID), c.keyword, String(format: "%.3f", c.area / 1e6), String(c.keywordPOIs),
                        c.density.map { String(format: "%.1f", $0) } ?? "n/a",
                        c.spacing.map { String(format: "%.1f", $0) } ?? "n/a", fixed4(c.emptyShare),
                    ])
                }
                out += r.render()
            }
        }
        out += EvaluationInput.notesSection(inputs, notes)
        return out
    }

    static func idText(_ v: JSONValue) -> String { v.stringValue ?? v.serialized() }
}
