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
    /// Per level of the regions (ascending; one level 0 for a file without levels).
    public var levels: [LevelScore] = []
    /// Per threshold: the highest F1 of one level (``LevelScore/f1``) and that level (ties to the
    /// coarser; nil without scored regions).
    public var bestLevelF1: [Double] = []
    public var bestLevel: [Int?] = []
    /// Per truth kind (code-point order; none when the truth has no `kind`).
    public var kinds: [KindScore] = []
    /// The regions spanning rivers (with rivers in the must-not file).
    public var rivers: RiverSpans?
    /// Every (region, river) pair where the region spans the river, in region order.
    var riverSpans: [(regionID: JSONValue, keyword: String, level: Int, river: JSONValue)] = []
    /// Level-0 regions per downtown (with downtowns in the must-not file).
    public var downtowns: DowntownCounts?
    /// The level of each entry of ``regionChecks``.
    var regionLevels: [Int] = []

    /// Whether the regions carry levels (some region has a level above 0).
    var hasLevels: Bool { levels.contains { $0.level != 0 } }

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
            let withLevels = hasLevels
            members.append(
                (
                    "regions",
                    .array(
                        regionChecks.enumerated().map { k, c in
                            Self.regionJSON(c, level: withLevels && k < regionLevels.count ? regionLevels[k] : nil)
                        })
                ))
        }
        members += levelMembers
        return .object(members)
    }

    /// The report members of levels, kinds, rivers and downtowns (after evaluate.py's and the checks').
    var levelMembers: [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        out.append(
            (
                "levels",
                .array(
                    levels.map { l in
                        var m: [(String, JSONValue)] = [
                            ("level", .number(Double(l.level))), ("n_regions", .number(Double(l.regionCount))),
                            ("n_regions_scored", .number(Double(l.scoredRegionCount))),
                        ]
                        for (k, t) in thresholds.enumerated() {
                            let label = thresholdLabel(t)
                            m.append(("recall@" + label, .number(roundedTo4(l.recall[k]))))
                            m.append(("precision@" + label, .number(roundedTo4(l.precision[k]))))
                            m.append(("f1@" + label, .number(roundedTo4(l.f1[k]))))
                        }
                        m.append(
                            (
                                "regions_per_keyword",
                                .object(l.regionsPerKeyword.map { ($0.keyword, .number(Double($0.count))) })
                            ))
                        if let c = l.regionChecks { m += Self.checkMembers(c) }
                        if let v = l.mustNot { m += Self.mustNotMembers(v) }
                        if let n = l.spanningRivers { m.append(("n_regions_spanning_river", .number(Double(n)))) }
                        return .object(m)
                    })
            ))
        var best: [(String, JSONValue)] = []
        for (k, t) in thresholds.enumerated() {
            let label = thresholdLabel(t)
            best.append(("f1@" + label, .number(roundedTo4(bestLevelF1[k]))))
            best.append(("level@" + label, bestLevel[k].map { .number(Double($0)) } ?? .null))
        }
        out.append(("best_level", .object(best)))
        out.append(
            (
                "kinds",
                .array(
                    kinds.map { k in
                        var m: [(String, JSONValue)] = [
                            ("kind", .string(k.kind)), ("n_truth", .number(Double(k.truthCount))),
                            ("n_regions_scored", .number(Double(k.scoredRegionCount))),
                        ]
                        for (i, t) in thresholds.enumerated() {
                            let label = thresholdLabel(t)
                            m.append(("recall@" + label, .number(roundedTo4(k.recall[i]))))
                            m.append(("best_level_f1@" + label, .number(roundedTo4(k.bestLevelF1[i]))))
                            m.append(("best_level@" + label, k.bestLevel[i].map { .number(Double($0)) } ?? .null))
                        }
                        if let r = k.members { m += Self.memberMembers(r) }
                        return .object(m)
                    })
            ))
        if let r = rivers {
            out.append(
                (
                    "rivers",
                    .object([
                        ("tolerance_m", .number(r.tolerance)), ("n_rivers", .number(Double(r.riverIDs.count))),
                        (
                            "banks",
                            .array(
                                zip(r.riverIDs, r.banks).map {
                                    .object([("river_id", $0), ("n_banks", .number(Double($1)))])
                                })
                        ),
                        ("n_regions_spanning", .number(Double(Set(riverSpans.map { $0.regionID.serialized() }).count))),
                        (
                            "spans",
                            .array(
                                riverSpans.map {
                                    .object([
                                        ("region_id", $0.regionID), ("keyword", .string($0.keyword)),
                                        ("level", .number(Double($0.level))), ("river_id", $0.river),
                                    ])
                                })
                        ),
                    ])
                ))
        }
        if let d = downtowns {
            out.append(
                (
                    "downtowns",
                    .object([
                        ("n_downtowns", .number(Double(d.downtownIDs.count))),
                        ("downtown_ids", .array(d.downtownIDs)),
                        ("max_level0_regions_per_downtown", .number(Double(d.maxPerDowntown))),
                        (
                            "keywords",
                            .object(
                                d.byKeyword.map { k in
                                    (
                                        k.keyword,
                                        .object([
                                            ("per_downtown", .array(k.perDowntown.map { .number(Double($0)) })),
                                            ("max_per_downtown", .number(Double(k.perDowntown.max() ?? 0))),
                                            ("outside", .number(Double(k.outside))),
                                        ])
                                    )
                                })
                        ),
                    ])
                ))
        }
        return out
    }

    static func checkMembers(_ c: RegionCheck.Summary) -> [(String, JSONValue)] {
        [
            ("n_regions_checked", .number(Double(c.regions))),
            ("max_empty_share", c.maxEmptyShare.map { .number(roundedTo4($0)) } ?? .null),
            ("n_regions_empty_over_limit", .number(Double(c.overEmptyLimit))),
            ("n_regions_empty_undefined", .number(Double(c.undefined))),
            ("n_regions_over_max_area", .number(Double(c.overArea))),
        ]
    }

    static func mustNotMembers(_ v: MustNotShare) -> [(String, JSONValue)] {
        [
            ("region_area_m2", .number((v.regionArea * 10).rounded() / 10)),
            ("void_share", .number(roundedTo4(v.voidShare))), ("sparse_share", .number(roundedTo4(v.sparseShare))),
        ]
    }

    static func memberMembers(_ m: MemberRecall) -> [(String, JSONValue)] {
        [
            ("member_recall", .number(roundedTo4(m.recall))), ("n_member_items", .number(Double(m.items))),
            ("n_member_found", .number(Double(m.found))),
            ("mean_fragmentation", m.meanFragmentation.map { .number(roundedTo4($0)) } ?? .null),
        ]
    }

    static func regionJSON(_ c: RegionCheck, level: Int? = nil) -> JSONValue {
        func tenth(_ x: Double?) -> JSONValue { x.map { JSONValue.number(($0 * 10).rounded() / 10) } ?? .null }
        let empty: JSONValue = c.emptyShare.map { JSONValue.number(roundedTo4($0)) } ?? .null
        var members: [(String, JSONValue)] = [("region_id", c.regionID), ("keyword", .string(c.keyword))]
        if let level { members.append(("level", .number(Double(level)))) }
        members += [
            ("area_m2", tenth(c.area)),
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
        if let c = m.regionChecks { out += checkMembers(c) }
        if let v = m.mustNot { out += mustNotMembers(v) }
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
        out += levelTable
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

    /// The sections of levels (when the regions have them), truth kinds, rivers and downtowns.
    var levelTable: String {
        var out = ""
        let labels = thresholds.map(thresholdLabel)
        if hasLevels {
            out += "\n"
            var header = ["level", "regions", "scored"]
            for l in labels { header += ["recall@" + l, "precision@" + l, "F1@" + l] }
            let checked = levels.contains { $0.regionChecks != nil }
            let mustNot = levels.contains { $0.mustNot != nil }
            let spans = levels.contains { $0.spanningRivers != nil }
            if checked { header += ["max empty", "empty > limit"] }
            if mustNot { header += ["void share"] }
            if spans { header += ["spanning a river"] }
            var t = TextTable(header: header)
            for l in levels {
                var row = [String(l.level), String(l.regionCount), String(l.scoredRegionCount)]
                for k in thresholds.indices { row += [fixed4(l.recall[k]), fixed4(l.precision[k]), fixed4(l.f1[k])] }
                if checked {
                    row += [
                        fixed4(l.regionChecks?.maxEmptyShare),
                        l.regionChecks.map { String($0.overEmptyLimit) } ?? "n/a",
                    ]
                }
                if mustNot { row.append(fixed4(l.mustNot?.voidShare)) }
                if spans { row.append(l.spanningRivers.map(String.init) ?? "n/a") }
                t.add(row)
            }
            out += t.render()
            out += "best-level F1: "
            out +=
                thresholds.indices.map { k in
                    "@\(labels[k]) \(fixed4(bestLevelF1[k])) (level \(bestLevel[k].map(String.init) ?? "-"))"
                }.joined(separator: ", ") + "\n"
        }
        if !kinds.isEmpty {
            out += "\n"
            var header = ["truth kind", "truths"]
            for l in labels { header += ["recall@" + l, "best-level F1@" + l, "level"] }
            let withMembers = kinds.contains { $0.members != nil }
            if withMembers { header.append("member recall") }
            var t = TextTable(header: header)
            for k in kinds {
                var row = [k.kind, String(k.truthCount)]
                for i in thresholds.indices {
                    row += [fixed4(k.recall[i]), fixed4(k.bestLevelF1[i]), k.bestLevel[i].map(String.init) ?? "-"]
                }
                if withMembers { row.append(fixed4(k.members?.recall)) }
                t.add(row)
            }
            out += t.render()
        }
        if let r = rivers {
            let spanning = Set(riverSpans.map { $0.regionID.serialized() }).count
            out += "\nRegions spanning a river (banks: land more than \(JSONValue.formatNumber(r.tolerance)) m from "
            out += "the water): \(spanning) (\(r.riverIDs.count) rivers)\n"
            if !riverSpans.isEmpty {
                var t = TextTable(header: ["region", "keyword", "level", "river"], leftAligned: [1, 3])
                for s in riverSpans {
                    t.add([Self.idText(s.regionID), s.keyword, String(s.level), Self.idText(s.river)])
                }
                out += t.render()
            }
        }
        if let d = downtowns {
            out += "\nLevel-0 regions per downtown (\(d.downtownIDs.count) downtowns): at most \(d.maxPerDowntown)\n"
            var t = TextTable(header: ["keyword"] + d.downtownIDs.map(Self.idText) + ["outside"])
            for k in d.byKeyword { t.add([k.keyword] + k.perDowntown.map(String.init) + [String(k.outside)]) }
            out += t.render()
        }
        return out
    }

    static func idText(_ v: JSONValue) -> String { v.stringValue ?? v.serialized() }
}
