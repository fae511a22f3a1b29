/// POI ways held until the coordinates of their nodes are known.
///
/// Memory is bounded by the POI ways (their refs and strings) — never by the file: the node
/// pass keeps only the coordinates of nodes that some POI way references (``lookup``), not those
/// of every node.
struct OSMPendingWays {
    struct Way {
        /// The way id as text (XML input may carry an id that is not a number; see `problem`).
        var id: String
        /// Line (XML) or element ordinal within its blob (PBF; the reader adds the blob's base).
        var line: UInt64
        var byteOffset: UInt64
        /// Index of the PBF blob holding the way (0 for XML).
        var blob: Int
        var name: String
        var keywords: [String]
        var keywordKeys: [String]
        /// Reason to reject, when already known when the way is read (e.g. invalid UTF-8).
        var problem: String?
        /// `way/ID [k=v, …], N node refs` for the `raw` text of a reject.
        var raw: String
        var refStart: Int
        var refCount: Int
        /// Start of the way's own node locations (PBF `LocationsOnWays`), or -1.
        var locationStart: Int
        /// `addr:street` and `place` as hstore text (``LabelTags``).
        var labelTags: String = ""
    }

    private(set) var ways: [Way] = []
    private var refs: [Int64] = []
    private var wayLons: [Double] = []
    private var wayLats: [Double] = []

    /// The node ids referenced by pending ways without their own locations (after
    /// ``prepareLookup()``).
    private(set) var lookup = OSMNodeLookup(ids: [])
    private var neededLons: [Double] = []
    private var neededLats: [Double] = []
    /// Per needed id: 0 not seen, 1 valid coordinates, 2 invalid coordinates.
    private var neededState: [UInt8] = []

    var isEmpty: Bool { ways.isEmpty }
    /// Whether node coordinates must be gathered before the ways can be resolved.
    var needsNodes: Bool { !lookup.isEmpty }

    /// Adds a way; `locations` are its own node coordinates (one per ref) when the file stores
    /// them on ways.
    mutating func add(
        id: String, line: UInt64, byteOffset: UInt64, blob: Int = 0, tags: OSMTagCollector,
        refs wayRefs: UnsafeBufferPointer<Int64>,
        locations: (lons: UnsafeBufferPointer<Double>, lats: UnsafeBufferPointer<Double>)?,
        problem knownProblem: String? = nil
    ) {
        var name = ""
        var keywords: [String] = []
        var keys: [String] = []
        var labelTags = ""
        var problem = knownProblem
        if problem == nil {
            switch tags.nameAndKeywords() {
            case .success(let value):
                (name, keywords, keys, labelTags) = (value.name, value.keywords, value.keys, value.labelTags)
            case .failure(let p): problem = p.reason
            }
        }
        if wayRefs.isEmpty && problem == nil { problem = "way has no node refs" }
        let raw = "way/\(id) \(tags.tagDescription), \(wayRefs.count) node ref\(wayRefs.count == 1 ? "" : "s")"
        var way = Way(
            id: id, line: line, byteOffset: byteOffset, blob: blob, name: name, keywords: keywords, keywordKeys: keys,
            problem: problem,
            raw: raw, refStart: refs.count, refCount: 0, locationStart: -1, labelTags: labelTags)
        if problem == nil {
            way.refCount = wayRefs.count
            refs.append(contentsOf: wayRefs)
            if let locations, locations.lons.count == wayRefs.count, locations.lats.count == wayRefs.count {
                way.locationStart = wayLons.count
                wayLons.append(contentsOf: locations.lons)
                wayLats.append(contentsOf: locations.lats)
            }
        }
        ways.append(way)
    }

    /// Appends the ways of `other` after these (before ``prepareLookup()``).
    mutating func append(_ other: OSMPendingWays) {
        let refBase = refs.count
        let locationBase = wayLons.count
        for var way in other.ways {
            way.refStart += refBase
            if way.locationStart >= 0 { way.locationStart += locationBase }
            ways.append(way)
        }
        refs += other.refs
        wayLons += other.wayLons
        wayLats += other.wayLats
    }

    /// Builds the needed-node lookup; call once all ways are added.
    mutating func prepareLookup() {
        var ids: [Int64] = []
        for way in ways where way.problem == nil && way.locationStart < 0 {
            ids.append(contentsOf: refs[way.refStart..<way.refStart + way.refCount])
        }
        ids.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(ids.count)
        for id in ids where unique.last != id { unique.append(id) }
        lookup = OSMNodeLookup(ids: unique)
        neededLons = [Double](repeating: .nan, count: unique.count)
        neededLats = [Double](repeating: .nan, count: unique.count)
        neededState = [UInt8](repeating: 0, count: unique.count)
    }

    /// Index of `id` among the needed ids, or nil (fast for ascending ids).
    @inline(__always)
    mutating func neededIndex(_ id: Int64) -> Int? { lookup.index(of: id) }

    /// Records the coordinates of needed node `index`; the first occurrence in the file wins.
    mutating func setCoordinates(_ index: Int, lon: Double, lat: Double) {
        guard neededState[index] == 0 else { return }
        if OSMCoordinates.isValid(lon: lon, lat: lat) {
            neededLons[index] = lon
            neededLats[index] = lat
            neededState[index] = 1
        } else {
            neededState[index] = 2
        }
    }

    /// The record (or reject) for pending way `index`, once its nodes have been gathered;
    /// `lineBase` is added to the way's line.
    func result(_ index: Int, lineBase: UInt64 = 0) -> ReadResult {
        let way = ways[index]
        let line = lineBase + way.line
        func reject(_ reason: String) -> ReadResult {
            .rejected(RejectedRecord(line: line, byteOffset: way.byteOffset, reason: reason, raw: way.raw))
        }
        if let problem = way.problem { return reject(problem) }
        let n = way.refCount
        var lons = [Double](repeating: 0, count: n)
        var lats = [Double](repeating: 0, count: n)
        var missing = 0
        var invalid = 0
        for k in 0..<n {
            if way.locationStart >= 0 {
                let lon = wayLons[way.locationStart + k]
                let lat = wayLats[way.locationStart + k]
                if OSMCoordinates.isValid(lon: lon, lat: lat) {
                    lons[k] = lon
                    lats[k] = lat
                } else {
                    missing += 1
                }
                continue
            }
            let i = lookup.lowerBound(refs[way.refStart + k])
            switch neededState[i] {
            case 1:
                lons[k] = neededLons[i]
                lats[k] = neededLats[i]
            case 2: invalid += 1
            default: missing += 1
            }
        }
        if missing > 0 || invalid > 0 {
            var parts: [String] = []
            if missing > 0 {
                parts.append(
                    way.locationStart >= 0
                        ? "\(missing) of \(n) node locations missing or invalid"
                        : "\(missing) of \(n) node refs not in file")
            }
            if invalid > 0 { parts.append("\(invalid) of \(n) node refs have invalid coordinates") }
            return reject(parts.joined(separator: "; "))
        }
        let closed = n >= 4 && refs[way.refStart] == refs[way.refStart + n - 1]
        let point = OSMWayGeometry.representativePoint(lons: lons, lats: lats, closed: closed)
        return .record(
            RawRecord(
                id: "way/\(way.id)", name: way.name, keywords: way.keywords, keywordKeys: way.keywordKeys,
                lon: point.lon, lat: point.lat, line: line, byteOffset: way.byteOffset, labelTags: way.labelTags))
    }
}

/// Coordinate validity shared by the OSM readers.
enum OSMCoordinates {
    @inline(__always)
    static func isValid(lon: Double, lat: Double) -> Bool {
        lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90
    }
}
