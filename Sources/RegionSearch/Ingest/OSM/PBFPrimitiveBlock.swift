/// What the first pass over a PBF file accumulates across blocks.
struct PBFScanState {
    let rules: OSMTagRules
    var collector = OSMTagCollector()
    var pending = OSMPendingWays()
    /// Records of the current block, in file order, waiting to be handed out.
    var output: [ReadResult] = []
    var counts = OSMElementCounts()
    /// Ordinal of the last element seen (1-based over all elements of the file).
    var ordinal: UInt64 = 0
    /// Offset of the blob being decoded.
    var blobOffset: UInt64 = 0
    /// Node id range of the current block (valid when `blockNodes > 0`).
    var blockMinNode = Int64.max
    var blockMaxNode = Int64.min
    var blockNodes = 0
    fileprivate var refs: [Int64] = []
    fileprivate var wayLons: [Double] = []
    fileprivate var wayLats: [Double] = []

    init(rules: OSMTagRules) { self.rules = rules }
}

/// One decoded `PrimitiveBlock` of an OSM PBF file (a view over the decompressed blob bytes).
///
/// ```
/// PrimitiveBlock { required StringTable stringtable = 1; repeated PrimitiveGroup primitivegroup = 2;
///                  optional int32 granularity = 17 [default=100]; optional int32 date_granularity = 18 [default=1000];
///                  optional int64 lat_offset = 19; optional int64 lon_offset = 20; }
/// PrimitiveGroup { repeated Node nodes = 1; optional DenseNodes dense = 2; repeated Way ways = 3;
///                  repeated Relation relations = 4; repeated ChangeSet changesets = 5; }
/// ```
/// Coordinates are `(offset + granularity × value)` nanodegrees, converted as
/// `Double(nanodegrees) / 1e9` — a correctly rounded division of exact values, so a PBF
/// coordinate equals the correctly rounded decimal that OSM XML writes for the same location.
struct PBFPrimitiveBlock {
    private let bytes: UnsafeRawBufferPointer
    /// String table entries as (start, count) in `bytes`.
    private var strings: [(start: Int, count: Int)] = []
    private var groups: [UnsafeRawBufferPointer] = []
    private(set) var granularity: Int64 = 100
    private(set) var dateGranularity: Int64 = 1000
    private(set) var latOffset: Int64 = 0
    private(set) var lonOffset: Int64 = 0

    init(_ bytes: UnsafeRawBufferPointer) throws(ProtobufError) {
        self.bytes = bytes
        var cursor = ProtobufCursor(bytes)
        while !cursor.isAtEnd {
            let (field, wire) = try cursor.fieldKey()
            switch field {
            case 1:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveBlock")
                var tc = ProtobufCursor(try cursor.bytes())
                while !tc.isAtEnd {
                    let (f, w) = try tc.fieldKey()
                    guard f == 1 else {
                        try tc.skip(w)
                        continue
                    }
                    try tc.expect(.lengthDelimited, w, field: f, in: "StringTable")
                    let s = try tc.bytes()
                    // Slices of a non-empty block always have a base address inside it.
                    strings.append((s.count == 0 ? 0 : s.baseAddress! - bytes.baseAddress!, s.count))
                }
            case 2:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveBlock")
                groups.append(try cursor.bytes())
            case 17, 18:
                try cursor.expect(.varint, wire, field: field, in: "PrimitiveBlock")
                let value = try cursor.int64()
                guard value > 0, value <= Int64(Int32.max) else {
                    throw cursor.error("\(field == 17 ? "granularity" : "date_granularity") \(value) is not a positive int32")
                }
                if field == 17 { granularity = value } else { dateGranularity = value }
            case 19, 20:
                try cursor.expect(.varint, wire, field: field, in: "PrimitiveBlock")
                let value = try cursor.int64()
                if field == 19 { latOffset = value } else { lonOffset = value }
            default:
                try cursor.skip(wire)
            }
        }
    }

    @inline(__always)
    private func string(_ index: Int) -> UnsafeRawBufferPointer {
        let s = strings[index]
        return UnsafeRawBufferPointer(rebasing: bytes[s.start..<s.start + s.count])
    }

    @inline(__always)
    private func degrees(_ value: Int64, offset: Int64) -> Double {
        // Wrapping arithmetic: hostile values become out-of-range coordinates, not traps.
        Double(offset &+ granularity &* value) / 1e9
    }

    private func roles(_ rules: OSMTagRules) -> [OSMKeyRole] {
        strings.indices.map { rules.role(of: string($0)) }
    }

    @inline(__always)
    private func stringIndex(_ value: UInt64, _ cursor: ProtobufCursor) throws(ProtobufError) -> Int {
        guard value < UInt64(strings.count) else {
            throw cursor.error("string index \(value) beyond the string table (\(strings.count) entries)")
        }
        return Int(value)
    }

    // MARK: First pass

    /// Decodes every element: counts them, queues POI node records, keeps POI ways pending.
    func scan(_ state: inout PBFScanState) throws(ProtobufError) {
        let roles = roles(state.rules)
        for group in groups {
            var cursor = ProtobufCursor(group)
            while !cursor.isAtEnd {
                let (field, wire) = try cursor.fieldKey()
                switch field {
                case 1:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                    try scanNode(try cursor.bytes(), roles, &state)
                case 2:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                    try scanDenseNodes(try cursor.bytes(), roles, &state)
                case 3:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                    try scanWay(try cursor.bytes(), roles, &state)
                case 4:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                    _ = try cursor.bytes()
                    state.ordinal += 1
                    state.counts.relations += 1
                default:
                    try cursor.skip(wire)
                }
            }
        }
    }

    private func noteNode(_ id: Int64, _ state: inout PBFScanState) {
        state.ordinal += 1
        state.counts.nodes += 1
        state.blockNodes += 1
        if id < state.blockMinNode { state.blockMinNode = id }
        if id > state.blockMaxNode { state.blockMaxNode = id }
    }

    /// Queues the record (or reject) of a POI node whose relevant tags are in the collector.
    private func emitNode(id: Int64, lat: Int64, lon: Int64, _ state: inout PBFScanState) {
        state.counts.poiNodes += 1
        let latitude = degrees(lat, offset: latOffset)
        let longitude = degrees(lon, offset: lonOffset)
        func reject(_ reason: String) {
            state.counts.rejectedNodes += 1
            let raw = "node/\(id) \(state.collector.tagDescription) at lat \(latitude), lon \(longitude)"
            state.output.append(
                .rejected(RejectedRecord(line: state.ordinal, byteOffset: state.blobOffset, reason: reason, raw: raw)))
        }
        guard OSMCoordinates.isValid(lon: longitude, lat: latitude) else {
            reject("invalid coordinates: lat \(latitude), lon \(longitude)")
            return
        }
        switch state.collector.nameAndKeywords() {
        case let .failure(problem):
            reject(problem.reason)
        case let .success((name, keywords)):
            state.output.append(
                .record(
                    RawRecord(
                        id: "node/\(id)", name: name, keywords: keywords, lon: longitude, lat: latitude,
                        line: state.ordinal, byteOffset: state.blobOffset)))
        }
    }

    /// `DenseNodes { repeated sint64 id = 1 [packed, delta]; optional DenseInfo denseinfo = 5;
    /// repeated sint64 lat = 8 [packed, delta]; repeated sint64 lon = 9 [packed, delta];
    /// repeated int32 keys_vals = 10 [packed]; }` — keys_vals holds `k v k v … 0` per node.
    private func denseArrays(_ message: UnsafeRawBufferPointer) throws(ProtobufError)
        -> (ids: ProtobufCursor, lats: ProtobufCursor, lons: ProtobufCursor, keysVals: ProtobufCursor)
    {
        var cursor = ProtobufCursor(message)
        var ids = ProtobufCursor(UnsafeRawBufferPointer(start: nil, count: 0))
        var lats = ids
        var lons = ids
        var keysVals = ids
        while !cursor.isAtEnd {
            let (field, wire) = try cursor.fieldKey()
            switch field {
            case 1, 8, 9, 10:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "DenseNodes (packed)")
                let packed = ProtobufCursor(try cursor.bytes())
                switch field {
                case 1: ids = packed
                case 8: lats = packed
                case 9: lons = packed
                default: keysVals = packed
                }
            default:
                try cursor.skip(wire)
            }
        }
        return (ids, lats, lons, keysVals)
    }

    private func scanDenseNodes(_ message: UnsafeRawBufferPointer, _ roles: [OSMKeyRole], _ state: inout PBFScanState)
        throws(ProtobufError)
    {
        var (ids, lats, lons, keysVals) = try denseArrays(message)
        let tagged = !keysVals.isAtEnd
        var id: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        while !ids.isAtEnd {
            guard !lats.isAtEnd, !lons.isAtEnd else { throw lats.error("DenseNodes has fewer lat/lon values than ids") }
            id &+= try ids.signedVarint()
            lat &+= try lats.signedVarint()
            lon &+= try lons.signedVarint()
            noteNode(id, &state)
            guard tagged else { continue }
            let tagsStart = keysVals
            var isPOI = false
            while true {
                let k = try keysVals.varint()
                if k == 0 { break }
                let key = try stringIndex(k, keysVals)
                _ = try stringIndex(try keysVals.varint(), keysVals)
                if roles[key].isPOI { isPOI = true }
            }
            guard isPOI else { continue }
            state.collector.reset()
            var again = tagsStart
            while true {
                let key = Int(try again.varint())
                if key == 0 { break }
                let value = Int(try again.varint())
                if roles[key].isRelevant { state.collector.add(role: roles[key], key: string(key), value: string(value)) }
            }
            emitNode(id: id, lat: lat, lon: lon, &state)
        }
        guard lats.isAtEnd, lons.isAtEnd else { throw lats.error("DenseNodes has more lat/lon values than ids") }
        guard keysVals.isAtEnd else { throw keysVals.error("DenseNodes keys_vals has entries beyond the last node") }
    }

    /// Reads packed `keys` and `vals` (uint32 string indices) in lockstep; returns whether any key
    /// is a POI key. With `collect`, relevant tags go into the collector.
    private func scanTags(
        keys: UnsafeRawBufferPointer, vals: UnsafeRawBufferPointer, _ roles: [OSMKeyRole], collect: Bool,
        _ state: inout PBFScanState
    ) throws(ProtobufError) -> Bool {
        var kc = ProtobufCursor(keys)
        var vc = ProtobufCursor(vals)
        var isPOI = false
        while !kc.isAtEnd {
            guard !vc.isAtEnd else { throw vc.error("fewer tag values than keys") }
            let key = try stringIndex(try kc.varint(), kc)
            let value = try stringIndex(try vc.varint(), vc)
            if roles[key].isPOI { isPOI = true }
            if collect && roles[key].isRelevant { state.collector.add(role: roles[key], key: string(key), value: string(value)) }
        }
        guard vc.isAtEnd else { throw vc.error("more tag values than keys") }
        return isPOI
    }

    /// `Node { required sint64 id = 1; repeated uint32 keys = 2 [packed]; repeated uint32 vals = 3 [packed];
    /// optional Info info = 4; required sint64 lat = 8; required sint64 lon = 9; }`
    private func scanNode(_ message: UnsafeRawBufferPointer, _ roles: [OSMKeyRole], _ state: inout PBFScanState)
        throws(ProtobufError)
    {
        var cursor = ProtobufCursor(message)
        var id: Int64?
        var lat: Int64?
        var lon: Int64?
        var keys = UnsafeRawBufferPointer(start: nil, count: 0)
        var vals = keys
        while !cursor.isAtEnd {
            let (field, wire) = try cursor.fieldKey()
            switch field {
            case 1, 8, 9:
                try cursor.expect(.varint, wire, field: field, in: "Node")
                let v = try cursor.signedVarint()
                if field == 1 { id = v } else if field == 8 { lat = v } else { lon = v }
            case 2, 3:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "Node")
                if field == 2 { keys = try cursor.bytes() } else { vals = try cursor.bytes() }
            default:
                try cursor.skip(wire)
            }
        }
        guard let id, let lat, let lon else { throw cursor.error("Node lacks its id, lat or lon") }
        noteNode(id, &state)
        guard try scanTags(keys: keys, vals: vals, roles, collect: false, &state) else { return }
        state.collector.reset()
        _ = try scanTags(keys: keys, vals: vals, roles, collect: true, &state)
        emitNode(id: id, lat: lat, lon: lon, &state)
    }

    /// `Way { required int64 id = 1; repeated uint32 keys = 2 [packed]; repeated uint32 vals = 3 [packed];
    /// optional Info info = 4; repeated sint64 refs = 8 [packed, delta];
    /// repeated sint64 lat = 9 [packed, delta]; repeated sint64 lon = 10 [packed, delta]; }`
    /// (lat/lon only with the optional feature `LocationsOnWays`).
    private func scanWay(_ message: UnsafeRawBufferPointer, _ roles: [OSMKeyRole], _ state: inout PBFScanState)
        throws(ProtobufError)
    {
        var cursor = ProtobufCursor(message)
        var id: Int64?
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        var keys = empty, vals = empty, refs = empty, lats = empty, lons = empty
        while !cursor.isAtEnd {
            let (field, wire) = try cursor.fieldKey()
            switch field {
            case 1:
                try cursor.expect(.varint, wire, field: field, in: "Way")
                id = try cursor.int64()
            case 2, 3, 8, 9, 10:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "Way")
                let packed = try cursor.bytes()
                switch field {
                case 2: keys = packed
                case 3: vals = packed
                case 8: refs = packed
                case 9: lats = packed
                default: lons = packed
                }
            default:
                try cursor.skip(wire)
            }
        }
        guard let id else { throw cursor.error("Way lacks its id") }
        state.ordinal += 1
        state.counts.ways += 1
        guard try scanTags(keys: keys, vals: vals, roles, collect: false, &state) else { return }
        state.counts.poiWays += 1
        state.collector.reset()
        _ = try scanTags(keys: keys, vals: vals, roles, collect: true, &state)

        state.refs.removeAll(keepingCapacity: true)
        var rc = ProtobufCursor(refs)
        var ref: Int64 = 0
        while !rc.isAtEnd {
            ref &+= try rc.signedVarint()
            state.refs.append(ref)
        }
        var hasLocations = false
        if lats.count > 0 || lons.count > 0 {
            state.wayLons.removeAll(keepingCapacity: true)
            state.wayLats.removeAll(keepingCapacity: true)
            var latc = ProtobufCursor(lats)
            var lonc = ProtobufCursor(lons)
            var lat: Int64 = 0
            var lon: Int64 = 0
            while !latc.isAtEnd && !lonc.isAtEnd {
                lat &+= try latc.signedVarint()
                lon &+= try lonc.signedVarint()
                state.wayLats.append(degrees(lat, offset: latOffset))
                state.wayLons.append(degrees(lon, offset: lonOffset))
            }
            guard latc.isAtEnd, lonc.isAtEnd, state.wayLats.count == state.refs.count else {
                throw cursor.error("way/\(id) has \(state.refs.count) node refs but a different number of locations")
            }
            hasLocations = true
        }
        let line = state.ordinal
        let offset = state.blobOffset
        state.refs.withUnsafeBufferPointer { refBuf in
            state.wayLons.withUnsafeBufferPointer { lonBuf in
                state.wayLats.withUnsafeBufferPointer { latBuf in
                    state.pending.add(
                        id: String(id), line: line, byteOffset: offset, tags: state.collector, refs: refBuf,
                        locations: hasLocations ? (lonBuf, latBuf) : nil)
                }
            }
        }
    }

    // MARK: Second pass

    /// Records the coordinates of the nodes that pending POI ways need.
    func gather(_ pending: inout OSMPendingWays) throws(ProtobufError) {
        for group in groups {
            var cursor = ProtobufCursor(group)
            while !cursor.isAtEnd {
                let (field, wire) = try cursor.fieldKey()
                switch field {
                case 1:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                    var node = ProtobufCursor(try cursor.bytes())
                    var id: Int64?
                    var lat: Int64?
                    var lon: Int64?
                    while !node.isAtEnd {
                        let (f, w) = try node.fieldKey()
                        guard f == 1 || f == 8 || f == 9 else {
                            try node.skip(w)
                            continue
                        }
                        try node.expect(.varint, w, field: f, in: "Node")
                        let v = try node.signedVarint()
                        if f == 1 { id = v } else if f == 8 { lat = v } else { lon = v }
                    }
                    guard let id, let lat, let lon else { throw node.error("Node lacks its id, lat or lon") }
                    if let index = pending.neededIndex(id) {
                        pending.setCoordinates(index, lon: degrees(lon, offset: lonOffset), lat: degrees(lat, offset: latOffset))
                    }
                case 2:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                    var (ids, lats, lons, _) = try denseArrays(try cursor.bytes())
                    var id: Int64 = 0
                    var lat: Int64 = 0
                    var lon: Int64 = 0
                    while !ids.isAtEnd {
                        guard !lats.isAtEnd, !lons.isAtEnd else {
                            throw lats.error("DenseNodes has fewer lat/lon values than ids")
                        }
                        id &+= try ids.signedVarint()
                        lat &+= try lats.signedVarint()
                        lon &+= try lons.signedVarint()
                        if let index = pending.neededIndex(id) {
                            pending.setCoordinates(
                                index, lon: degrees(lon, offset: lonOffset), lat: degrees(lat, offset: latOffset))
                        }
                    }
                default:
                    try cursor.skip(wire)
                }
            }
        }
    }
}
