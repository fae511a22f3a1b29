import Foundation
import RegionSearchOutput

/// A short name a person recognises for a region, from what the data holds — and nothing when
/// it holds nothing that fits. The first rule that applies names the region; `label_rule` says
/// which:
///
/// 1. `place`: a place node (`place=neighbourhood|suburb|quarter` with a name) inside the
///    polygon — the one nearest the region's centre;
/// 2. `street`: the street (`addr:street`) most of its POIs share: at least
///    ``Options/streetMinimum`` (3) keyword POIs, half of those that name a street and a quarter
///    of all;
/// 3. `nearest_place`: the place node nearest the region's centre, within twice the radius of a
///    disc of its area and at least 500 m;
/// 4. `name_token`: a word at least half of its named keyword POIs share (at least 3), which is
///    rare among all the keyword's named POIs (at most 2 % of them: a word that names a place,
///    not a kind of place) and at least 5 times as common in the region, and is not a word of the
///    keyword itself (so "Chinatown" or a mall's name, never "Restaurant", "the" or "pizza") —
///    written as most of them spell it.
///
/// Data without place nodes, streets or such a word (D.C.'s yearly dumps: names and categories
/// only) leaves regions unlabelled rather than guessed.
public struct RegionLabeler {
    /// A named place node.
    public struct Place: Sendable, Equatable {
        public var name: String
        /// `neighbourhood`, `suburb` or `quarter`.
        public var kind: String
        public var lon: Double
        public var lat: Double

        public init(name: String, kind: String, lon: Double, lat: Double) {
            self.name = name
            self.kind = kind
            self.lon = lon
            self.lat = lat
        }
    }

    /// The place kinds that name a part of a city.
    public static let placeKinds: Set<String> = ["neighbourhood", "suburb", "quarter"]

    public struct Options: Sendable {
        public var streetMinimum = 3
        public var streetShare = 0.5
        public var streetShareOfAll = 0.25
        public var placeReachMinimumM = 500.0
        public var placeReachRadii = 2.0
        public var tokenMinimum = 3
        public var tokenShare = 0.5
        public var tokenLift = 5.0
        /// A word on more than this share of all the keyword's named POIs names a kind, not a place.
        public var tokenRarity = 0.02

        public init() {}
    }

    /// What a region's POIs say: the names and streets of its keyword members (empty for none).
    public struct Members {
        public var names: [String]
        public var streets: [String]

        public init(names: [String], streets: [String]) {
            self.names = names
            self.streets = streets
        }
    }

    public let places: [Place]
    public let options: Options
    /// Per keyword: in how many of its named POIs each word occurs, and how many are named.
    private var tokenCounts: [String: (counts: [String: Int], named: Int)] = [:]

    public init(places: [Place], options: Options = Options()) {
        self.places = places.filter { Self.placeKinds.contains($0.kind) && !$0.name.isEmpty }
        self.options = options
    }

    /// Records the names of all of `keyword`'s POIs: what a word's share among them is.
    public mutating func addKeywordNames(_ keyword: String, names: [String]) {
        var counts: [String: Int] = [:]
        var named = 0
        for n in names where !n.isEmpty {
            named += 1
            for t in Set(Self.tokens(n).map(\.folded)) { counts[t, default: 0] += 1 }
        }
        tokenCounts[keyword] = (counts, named)
    }

    /// The label and the rule that chose it, or nil.
    public func label(keyword: String, polygons: [[GeoJSONWriter.Ring]], members: Members) -> (
        label: String, rule: String
    )? {
        let plane = LocalPlane(latitude: polygons.first?.first?.lat.first ?? 0)
        let shape = plane.areaAndCentroid(polygons)
        let centre = (lon: shape.lon, lat: shape.lat)
        func nearest(_ candidates: [Place]) -> Place? {
            candidates.min { a, b in
                let da = plane.distance((a.lon, a.lat), centre)
                let db = plane.distance((b.lon, b.lat), centre)
                return da != db ? da < db : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
            }
        }
        if let p = nearest(places.filter { Self.contains(polygons, lon: $0.lon, lat: $0.lat) }) {
            return (p.name, "place")
        }
        if let street = street(members) { return (street, "street") }
        let reach = max(options.placeReachMinimumM, options.placeReachRadii * (shape.area / Double.pi).squareRoot())
        if let p = nearest(places), plane.distance((p.lon, p.lat), centre) <= reach {
            return (p.name, "nearest_place")
        }
        if let token = token(keyword: keyword, names: members.names) { return (token, "name_token") }
        return nil
    }

    func street(_ members: Members) -> String? {
        var counts: [String: Int] = [:]
        var named = 0
        for s in members.streets {
            let t = s.trimmingCharacters(in: .whitespaces)
            guard !t.isEmpty else { continue }
            named += 1
            counts[t, default: 0] += 1
        }
        guard let (best, n) = Self.top(counts) else { return nil }
        let all = max(members.streets.count, members.names.count)
        guard n >= options.streetMinimum, Double(n) >= options.streetShare * Double(named),
            Double(n) >= options.streetShareOfAll * Double(all)
        else { return nil }
        return best
    }

    func token(keyword: String, names: [String]) -> String? {
        let named = names.filter { !$0.isEmpty }
        guard named.count >= options.tokenMinimum else { return nil }
        var counts: [String: Int] = [:]
        var spellings: [String: [String: Int]] = [:]
        for n in named {
            var seen: Set<String> = []
            for t in Self.tokens(n) where seen.insert(t.folded).inserted {
                counts[t.folded, default: 0] += 1
                spellings[t.folded, default: [:]][t.text, default: 0] += 1
            }
        }
        guard let (best, n) = Self.top(counts), n >= options.tokenMinimum,
            Double(n) >= options.tokenShare * Double(named.count)
        else { return nil }
        // The keyword's own words are the kind of place, not its name.
        let keywordWords = Set(Self.tokens(keyword.replacingOccurrences(of: "_", with: " ")).map(\.folded))
        guard !keywordWords.contains(best) else { return nil }
        guard let all = tokenCounts[keyword], all.named > 0 else { return nil }
        let overall = Double(all.counts[best] ?? n) / Double(all.named)
        let here = Double(n) / Double(named.count)
        guard overall <= options.tokenRarity, here >= options.tokenLift * overall else { return nil }
        return Self.top(spellings[best] ?? [:])?.0
    }

    /// The most common key (ties: bytewise first).
    static func top(_ counts: [String: Int]) -> (String, Int)? {
        counts.max { a, b in a.value != b.value ? a.value < b.value : b.key.utf8.lexicographicallyPrecedes(a.key.utf8) }
            .map { ($0.key, $0.value) }
    }

    /// The words of a name: runs of letters and digits, at least 3 characters, not all digits.
    static func tokens(_ name: String) -> [(text: String, folded: String)] {
        var out: [(String, String)] = []
        var current = ""
        func flush() {
            if current.count >= 3, !current.allSatisfy({ $0.isNumber }) { out.append((current, current.lowercased())) }
            current = ""
        }
        for ch in name {
            if ch.isLetter || ch.isNumber { current.append(ch) } else { flush() }
        }
        flush()
        return out
    }

    /// Whether polygons contain a point (even-odd over every ring, so holes exclude).
    static func contains(_ polygons: [[GeoJSONWriter.Ring]], lon: Double, lat: Double) -> Bool {
        for polygon in polygons {
            var inside = false
            for ring in polygon {
                let n = ring.lon.count
                var j = n - 1
                for i in 0..<n {
                    let (xi, yi, xj, yj) = (ring.lon[i], ring.lat[i], ring.lon[j], ring.lat[j])
                    if (yi > lat) != (yj > lat), lon < (xj - xi) * (lat - yi) / (yj - yi) + xi { inside.toggle() }
                    j = i
                }
            }
            if inside { return true }
        }
        return false
    }
}
