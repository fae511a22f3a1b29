import Foundation
import RegionSearchCore
import RegionSearchOutput

/// What changed between two results: one ``RegionChange`` per current region (in its order) and
/// per retired region (by id), made from a ``RegionMatching``. The runner writes it beside every
/// output (`<output stem>.changes.json`) and `regionsearch diff` prints it for any two region
/// files; ``json`` is that document and ``geoJSON`` the map of what changed.
public struct ChangeReport {
    /// Version of the `changes.json` document; bumped when a member changes meaning.
    public static let formatVersion = 1

    /// Current regions first (in their order), then retired ones (by id).
    public var entries: [RegionChange]
    /// Where the previous regions came from (a file, or the lineage's previous result), and the
    /// current ones.
    public var previousSource: String?
    public var currentSource: String
    /// How the two were compared: `members` when every region had members, `area` when none
    /// did, `mixed` otherwise; `none` without a previous result.
    public var basis: String
    public var rule: MatchRule

    /// The report for `matching`, whose current regions carry their final ids.
    public init(_ matching: RegionMatching, previousSource: String?, currentSource: String) {
        self.previousSource = previousSource
        self.currentSource = currentSource
        rule = matching.rule
        let previous = matching.previous
        let current = matching.current
        let withMembers = (previous + current).filter { !$0.members.isEmpty }.count
        let total = previous.count + current.count
        basis = previousSource == nil ? "none" : withMembers == total ? "members" : withMembers == 0 ? "area" : "mixed"
        func currentIDs(linkedTo p: Int) -> [Int] {
            matching.linksOfPrevious[p].map { current[matching.links[$0].current].id }.sorted()
        }
        func previousIDs(linkedTo c: Int) -> [Int] {
            matching.linksOfCurrent[c].map { previous[matching.links[$0].previous].id }.sorted()
        }
        var out: [RegionChange] = []
        for (c, region) in current.enumerated() {
            var e = RegionChange(
                id: region.id, keyword: region.keyword, level: region.level, verdict: .new,
                membersAfter: region.keywordPOIs, areaAfterM2: region.areaM2, label: region.label,
                polygons: region.polygons)
            // The link the figures describe: the heir's, else the most similar one.
            let linkIndex =
                matching.heir[c].flatMap { p in
                    matching.linksOfCurrent[c].first { matching.links[$0].previous == p }
                } ?? matching.linksOfCurrent[c].first
            if let k = linkIndex {
                let link = matching.links[k]
                let p = previous[link.previous]
                e.membersBefore = p.keywordPOIs
                e.membersShared = link.sharedMembers
                e.areaBeforeM2 = p.areaM2
                e.iou = link.iou
                e.shiftM = link.shiftM
            }
            if let p = matching.heir[c] {
                e.previousID = previous[p].id
                if matching.linksOfCurrent[c].count >= 2 {
                    e.verdict = .merged
                    e.mergedFrom = previousIDs(linkedTo: c)
                } else if matching.linksOfPrevious[p].count >= 2 {
                    e.verdict = .split
                    e.splitFrom = previous[p].id
                    e.splitInto = currentIDs(linkedTo: p)
                } else if let k = linkIndex {
                    e.verdict = matching.continuing(matching.links[k])
                }
            } else if matching.linksOfCurrent[c].count >= 2 {
                e.verdict = .merged
                e.mergedFrom = previousIDs(linkedTo: c)
            } else if let k = linkIndex {
                let p = matching.links[k].previous
                e.verdict = .split
                e.splitFrom = previous[p].id
                e.splitInto = currentIDs(linkedTo: p)
            }
            out.append(e)
        }
        var isHeir = [Bool](repeating: false, count: previous.count)
        for case let p? in matching.heir { isHeir[p] = true }
        var retired: [RegionChange] = []
        for (p, region) in previous.enumerated() where !isHeir[p] {
            var e = RegionChange(
                id: region.id, keyword: region.keyword, level: region.level, verdict: .retired,
                membersBefore: region.keywordPOIs, areaBeforeM2: region.areaM2, label: region.label,
                polygons: region.polygons)
            if let k = matching.linksOfPrevious[p].first {
                let link = matching.links[k]
                e.mergedInto = current[link.current].id
                e.membersShared = link.sharedMembers
                e.iou = link.iou
            }
            retired.append(e)
        }
        retired.sort { $0.id < $1.id }
        entries = out + retired
    }

    /// How many entries have each verdict, in ``ChangeVerdict`` order.
    public var counts: [(ChangeVerdict, Int)] {
        ChangeVerdict.allCases.map { v in (v, entries.filter { $0.verdict == v }.count) }
    }

    /// Current regions that kept a previous region's id.
    public var keptIDs: Int { entries.filter { $0.verdict != .retired && $0.previousID != nil }.count }

    /// One line for logs and `status`: "12 regions: 9 kept their id (7 unchanged, 1 grown, 1
    /// moved), 2 new, 1 split piece; 1 retired".
    public var summary: String {
        let current = entries.filter { $0.verdict != .retired }
        guard previousSource != nil else { return "\(current.count) region(s), a fresh lineage (all new)" }
        let parts = counts.filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }
        return "\(current.count) region(s), \(keptIDs) kept their id; " + parts.joined(separator: ", ")
    }

    // MARK: Documents

    static func rounded(_ v: Double?, _ scale: Double) -> JSONValue {
        guard let v, v.isFinite else { return .null }
        return .number((v * scale).rounded() / scale)
    }

    static func ints(_ ids: [Int]) -> JSONValue { .array(ids.map { .number(Double($0)) }) }

    /// The properties of one entry (also the GeoJSON feature's, without the geometry).
    static func properties(_ e: RegionChange) -> [(String, JSONValue)] {
        func int(_ v: Int?) -> JSONValue { v.map { .number(Double($0)) } ?? .null }
        return [
            ("region_id", .number(Double(e.id))),
            ("keyword", .string(e.keyword)),
            ("level", .number(Double(e.level))),
            ("change", .string(e.verdict.rawValue)),
            ("previous_id", int(e.previousID)),
            ("label", e.label.map { .string($0) } ?? .null),
            ("split_from", int(e.splitFrom)),
            ("split_into", ints(e.splitInto)),
            ("merged_from", ints(e.mergedFrom)),
            ("merged_into", int(e.mergedInto)),
            ("members_before", int(e.membersBefore)),
            ("members_after", int(e.membersAfter)),
            ("members_shared", int(e.membersShared)),
            ("area_before_m2", rounded(e.areaBeforeM2, 10)),
            ("area_after_m2", rounded(e.areaAfterM2, 10)),
            ("iou", rounded(e.iou, 1e4)),
            ("shift_m", rounded(e.shiftM, 10)),
        ]
    }

    /// `changes.json`: the comparison, the counts, every current region and every retired one
    /// with its last geometry.
    public var json: JSONValue {
        var current: [JSONValue] = []
        var retired: [JSONValue] = []
        for e in entries {
            if e.verdict == .retired {
                retired.append(.object(Self.properties(e) + [("geometry", Self.geometry(e.polygons))]))
            } else {
                current.append(.object(Self.properties(e)))
            }
        }
        return .object([
            ("regionsearch_changes", .number(Double(Self.formatVersion))),
            ("previous", previousSource.map { .string($0) } ?? .null),
            ("current", .string(currentSource)),
            ("basis", .string(basis)),
            (
                "rule",
                .object([
                    ("link_share", .number(rule.linkShare)), ("member_change", .number(rule.memberChange)),
                    ("member_change_minimum", .number(Double(rule.memberChangeMinimum))),
                    ("area_factor", .number(rule.areaFactor)), ("shift_share", .number(rule.shiftShare)),
                ])
            ),
            ("summary", .string(summary)),
            ("counts", .object(counts.map { ($0.0.rawValue, .number(Double($0.1))) })),
            ("kept_ids", .number(Double(keptIDs))),
            ("regions", .array(current)),
            ("retired", .array(retired)),
        ])
    }

    /// The `changes.json` text (pretty, one trailing newline).
    public var jsonText: String { json.serialized(pretty: true) + "\n" }

    /// Colours of the change map (simplestyle): what to look at is saturated, what stayed is grey.
    static func color(_ v: ChangeVerdict) -> String {
        switch v {
        case .new: return "#1a9850"
        case .unchanged: return "#bdbdbd"
        case .grown: return "#2166ac"
        case .shrunk: return "#f46d43"
        case .moved: return "#762a83"
        case .split: return "#fdae61"
        case .merged: return "#5aae61"
        case .retired: return "#d73027"
        }
    }

    /// The map of what changed: every current region with its verdict, and every retired region
    /// at its last place (simplestyle colours by verdict; retired ones outlined, unfilled).
    public var geoJSON: String {
        var features: [GeoJSONWriter.Feature] = []
        for e in entries {
            // Lists as text ("3,9"): a map's popup and every GIS format show them.
            var properties = Self.properties(e).map { (key, value) -> (String, JSONValue) in
                switch key {
                case "split_into": return (key, .string(e.splitInto.map(String.init).joined(separator: ",")))
                case "merged_from": return (key, .string(e.mergedFrom.map(String.init).joined(separator: ",")))
                default: return (key, value)
                }
            }
            let color = Self.color(e.verdict)
            properties += [
                ("fill", .string(color)), ("fill-opacity", .number(e.verdict == .retired ? 0 : 0.45)),
                ("stroke", .string(color)), ("stroke-width", .number(e.verdict == .retired ? 2.5 : 1.5)),
            ]
            features.append(GeoJSONWriter.Feature(polygons: e.polygons, properties: properties))
        }
        return GeoJSONWriter.document(
            features: features,
            foreignMembers: [
                (
                    "regionsearch_changes",
                    .object([
                        ("previous", previousSource.map { .string($0) } ?? .null), ("current", .string(currentSource)),
                        ("summary", .string(summary)),
                    ])
                )
            ])
    }

    /// A geometry as a GeoJSON object (Polygon for one part, MultiPolygon otherwise).
    static func geometry(_ polygons: [[GeoJSONWriter.Ring]]) -> JSONValue {
        func ring(_ r: GeoJSONWriter.Ring) -> JSONValue {
            .array(zip(r.lon, r.lat).map { .array([.number($0.0), .number($0.1)]) })
        }
        func polygon(_ p: [GeoJSONWriter.Ring]) -> JSONValue { .array(p.map(ring)) }
        if polygons.count == 1 {
            return .object([("type", .string("Polygon")), ("coordinates", polygon(polygons[0]))])
        }
        return .object([("type", .string("MultiPolygon")), ("coordinates", .array(polygons.map(polygon)))])
    }
}
