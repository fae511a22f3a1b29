import Foundation
import RegionSearchOutput

/// The matching rule: which current region is which previous one, decided per keyword and
/// level, the same way on every run.
///
/// 1. **Links.** A previous region *p* and a current region *c* of the same keyword and level are
///    linked when at least ``MatchRule/linkShare`` (½) of either one is the other: of its keyword
///    POIs when both have members (POIs are named by their input id, ``POIKey``), or of its area.
///    A link says "*c* is (part of) the place *p* was".
/// 2. **Ids.** Links are taken in order of similarity — the larger of the members' Jaccard index
///    and the polygons' IoU — then shared POIs, shared area, the previous region's id and the
///    current region's position; a link whose two regions are both still free makes *c* the
///    *heir* of *p* (it keeps *p*'s id). So in a split the piece holding most of the old region
///    keeps its id, in a merge the new region keeps the id of the old one it holds most of, and
///    each id goes to at most one region.
/// 3. **Verdicts** (``ChangeReport``): a current region linked to two or more previous ones is
///    `merged`; one whose previous region is linked to two or more current ones is `split`;
///    an heir otherwise is `grown`, `shrunk`, `moved` or `unchanged` (``MatchRule``); a region
///    without links is `new`; a previous region that is nobody's heir is `retired` (with
///    `merged_into` when a merged region holds it).
///
/// Nothing depends on thread or tile counts: the inputs are the written result, the order is
/// total, and every figure is computed in one fixed order.
public struct RegionMatching {
    /// A linked pair and the figures behind it.
    public struct Link: Sendable {
        /// Indices into the previous and current arrays.
        public var previous: Int
        public var current: Int
        /// Keyword POIs both hold; nil when either side has no member list.
        public var sharedMembers: Int?
        /// Area (m², local plane) both cover, and each one's own.
        public var intersectionM2: Double
        public var previousAreaM2: Double
        public var currentAreaM2: Double
        /// Intersection over union of the polygons.
        public var iou: Double
        /// How far the area-weighted centre moved, metres.
        public var shiftM: Double
        /// The larger of the members' Jaccard index and the IoU: what orders links.
        public var similarity: Double
    }

    public let previous: [TrackedRegion]
    public let current: [TrackedRegion]
    public let rule: MatchRule
    /// Every linked pair, in the order links are taken (most similar first).
    public let links: [Link]
    /// Per current region: the index of the previous region it continues (its id), or nil.
    public let heir: [Int?]
    /// Per region: indices into ``links``, in link order.
    public let linksOfPrevious: [[Int]]
    public let linksOfCurrent: [[Int]]

    /// Matches `current` against `previous` under `rule`; `source` names the files in errors.
    public init(previous: [TrackedRegion], current: [TrackedRegion], rule: MatchRule = MatchRule(), source: String)
        throws(LineageError)
    {
        self.previous = previous
        self.current = current
        self.rule = rule
        var found: [Link] = []
        let overlap = RegionOverlap()
        let previousBounds = previous.map { RegionOverlap.bounds($0.polygons) }
        let currentBounds = current.map { RegionOverlap.bounds($0.polygons) }
        // Groups in a fixed order; within a group, regions in their arrays' order.
        var previousByGroup: [TrackedRegion.Group: [Int]] = [:]
        var currentByGroup: [TrackedRegion.Group: [Int]] = [:]
        for (i, r) in previous.enumerated() { previousByGroup[r.group, default: []].append(i) }
        for (i, r) in current.enumerated() { currentByGroup[r.group, default: []].append(i) }
        for group in currentByGroup.keys.sorted() {
            guard let olds = previousByGroup[group], let news = currentByGroup[group] else { continue }
            // Which previous regions hold each POI (regions of one level rarely share one).
            var holders: [String: [Int]] = [:]
            for p in olds {
                for m in previous[p].members { holders[m, default: []].append(p) }
            }
            for c in news {
                var shared: [Int: Int] = [:]
                for m in current[c].members {
                    for p in holders[m] ?? [] { shared[p, default: 0] += 1 }
                }
                for p in olds {
                    let touching: Bool = {
                        guard let a = previousBounds[p], let b = currentBounds[c] else { return false }
                        return a.minLon <= b.maxLon && b.minLon <= a.maxLon && a.minLat <= b.maxLat
                            && b.minLat <= a.maxLat
                    }()
                    guard touching || shared[p] != nil else { continue }
                    if let link = try Self.link(
                        previous[p], p, current[c], c, shared: shared[p] ?? 0, touching: touching, rule: rule,
                        overlap: overlap, source: source)
                    {
                        found.append(link)
                    }
                }
            }
        }
        found.sort { a, b in
            if a.similarity != b.similarity { return a.similarity > b.similarity }
            let sa = a.sharedMembers ?? 0
            let sb = b.sharedMembers ?? 0
            if sa != sb { return sa > sb }
            if a.intersectionM2 != b.intersectionM2 { return a.intersectionM2 > b.intersectionM2 }
            let ia = previous[a.previous].id
            let ib = previous[b.previous].id
            if ia != ib { return ia < ib }
            if a.previous != b.previous { return a.previous < b.previous }
            return a.current < b.current
        }
        var heir = [Int?](repeating: nil, count: current.count)
        var taken = [Bool](repeating: false, count: previous.count)
        var ofPrevious = [[Int]](repeating: [], count: previous.count)
        var ofCurrent = [[Int]](repeating: [], count: current.count)
        for (k, link) in found.enumerated() {
            ofPrevious[link.previous].append(k)
            ofCurrent[link.current].append(k)
            if heir[link.current] == nil && !taken[link.previous] {
                heir[link.current] = link.previous
                taken[link.previous] = true
            }
        }
        links = found
        self.heir = heir
        linksOfPrevious = ofPrevious
        linksOfCurrent = ofCurrent
    }

    /// The link between two regions, or nil when neither is at least half the other.
    static func link(
        _ p: TrackedRegion, _ pi: Int, _ c: TrackedRegion, _ ci: Int, shared: Int, touching: Bool, rule: MatchRule,
        overlap: RegionOverlap, source: String
    ) throws(LineageError) -> Link? {
        let latitude: Double = {
            let a = RegionOverlap.bounds(p.polygons)
            let b = RegionOverlap.bounds(c.polygons)
            let la = a.map { ($0.minLat + $0.maxLat) / 2 }
            let lb = b.map { ($0.minLat + $0.maxLat) / 2 }
            return ((la ?? lb ?? 0) + (lb ?? la ?? 0)) / 2
        }()
        let plane = LocalPlane(latitude: latitude)
        let pa = plane.areaAndCentroid(p.polygons)
        let ca = plane.areaAndCentroid(c.polygons)
        var intersection = 0.0
        if touching {
            do {
                intersection = try overlap.intersectionArea(p.polygons, c.polygons, plane: plane)
            } catch {
                throw .geometry(path: source, region: c.id, reason: error.message)
            }
        }
        let memberBasis = !p.members.isEmpty && !c.members.isEmpty
        func ratio(_ a: Double, _ b: Double) -> Double { b > 0 ? a / b : 0 }
        let shareOfPrevious = max(
            memberBasis ? ratio(Double(shared), Double(p.members.count)) : 0, ratio(intersection, pa.area))
        let shareOfCurrent = max(
            memberBasis ? ratio(Double(shared), Double(c.members.count)) : 0, ratio(intersection, ca.area))
        guard shareOfPrevious >= rule.linkShare || shareOfCurrent >= rule.linkShare else { return nil }
        let union = pa.area + ca.area - intersection
        let iou = union > 0 ? min(1, intersection / union) : 0
        let jaccard = memberBasis ? ratio(Double(shared), Double(p.members.count + c.members.count - shared)) : 0
        return Link(
            previous: pi, current: ci, sharedMembers: memberBasis ? shared : nil, intersectionM2: intersection,
            previousAreaM2: pa.area, currentAreaM2: ca.area, iou: iou,
            shiftM: plane.distance((pa.lon, pa.lat), (ca.lon, ca.lat)), similarity: max(jaccard, iou))
    }

    /// The same matching with the current regions replaced (same order and groups): the ids
    /// ``Lineage`` gave them, for the report.
    public func replacingCurrent(_ regions: [TrackedRegion]) -> RegionMatching {
        precondition(regions.count == current.count && zip(regions, current).allSatisfy { $0.group == $1.group })
        return RegionMatching(
            previous: previous, current: regions, rule: rule, links: links, heir: heir,
            linksOfPrevious: linksOfPrevious, linksOfCurrent: linksOfCurrent)
    }

    private init(
        previous: [TrackedRegion], current: [TrackedRegion], rule: MatchRule, links: [Link], heir: [Int?],
        linksOfPrevious: [[Int]], linksOfCurrent: [[Int]]
    ) {
        self.previous = previous
        self.current = current
        self.rule = rule
        self.links = links
        self.heir = heir
        self.linksOfPrevious = linksOfPrevious
        self.linksOfCurrent = linksOfCurrent
    }

    /// The verdict for an heir that is neither split nor merged: grown, shrunk, moved or
    /// unchanged, by the figures of its link (``MatchRule``).
    public func continuing(_ link: Link) -> ChangeVerdict {
        let before = previous[link.previous].keywordPOIs
        let after = current[link.current].keywordPOIs
        let threshold = max(rule.memberChangeMinimum, Int((rule.memberChange * Double(before)).rounded(.up)))
        if after - before >= threshold { return .grown }
        if before - after >= threshold { return .shrunk }
        let radius = (max(link.previousAreaM2, link.currentAreaM2) / Double.pi).squareRoot()
        if link.shiftM >= rule.shiftShare * radius { return .moved }
        if link.currentAreaM2 >= link.previousAreaM2 * rule.areaFactor { return .grown }
        if link.currentAreaM2 * rule.areaFactor <= link.previousAreaM2 { return .shrunk }
        return .unchanged
    }
}
