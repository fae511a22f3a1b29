/// What decoding one block should produce (see ``OSMPBFReader`` for the passes).
enum PBFBlockPass {
    /// Tail of the file, read backwards: POI ways; ways and relations counted; nodes only counted
    /// (cheaply) to find where the nodes end.
    case tail
    /// Node part of the file, read forwards: POI nodes, coordinates of needed nodes, and POI
    /// ways too when `collectWays` (ways that precede nodes in unsorted files).
    case forward(collectWays: Bool)
    /// Coordinates of needed nodes only.
    case gather
}

/// The result of decoding one block. Lines are element ordinals within the block (1-based);
/// the reader adds the number of elements in earlier blocks.
struct PBFBlockOutput {
    /// POI node records and rejects, in block order.
    var results: [ReadResult] = []
    /// POI ways of the block.
    var ways = OSMPendingWays()
    var counts = OSMElementCounts()
    /// Elements (nodes, ways, relations) in the block.
    var elements: UInt64 = 0
    /// Nodes in the block and their id range.
    var nodes = 0
    var minNode = Int64.max
    var maxNode = Int64.min
    /// Coordinates found for needed node ids (index into the lookup), in block order.
    var hits: [(index: Int, lon: Double, lat: Double)] = []
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
/// Timestamps (scaled by `date_granularity`) are not used.
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
                    throw cursor.error(
                        "\(field == 17 ? "granularity" : "date_granularity") \(value) is not a positive int32")
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

    /// Decodes the block for `pass`. `lookup` holds the node ids whose coordinates are wanted.
    func decode(
        pass: PBFBlockPass, rules: OSMTagRules, lookup: OSMNodeLookup, blob: Int, blobOffset: UInt64
    ) throws(ProtobufError) -> PBFBlockOutput {
        var decoder = Decoder(block: self, pass: pass, rules: rules, lookup: lookup, blob: blob, blobOffset: blobOffset)
        try decoder.run()
        return decoder.output
    }

    @inline(__always)
    fileprivate func string(_ index: Int) -> UnsafeRawBufferPointer {
        let s = strings[index]
        return UnsafeRawBufferPointer(rebasing: bytes[s.start..<s.start + s.count])
    }

    fileprivate var stringCount: Int { strings.count }
    fileprivate var groupBytes: [UnsafeRawBufferPointer] { groups }

    @inline(__always)
    fileprivate func degrees(_ value: Int64, offset: Int64) -> Double {
        // Wrapping arithmetic: hostile values become out-of-range coordinates, not traps.
        Double(offset &+ granularity &* value) / 1e9
    }
}

/// The per-block decoding state.
private struct Decoder {
    let block: PBFPrimitiveBlock
    let pass: PBFBlockPass
    let rules: OSMTagRules
    var lookup: OSMNodeLookup
    let blob: Int
    let blobOffset: UInt64
    let roles: [OSMKeyRole]
    var output = PBFBlockOutput()
    var collector = OSMTagCollector()
    var refs: [Int64] = []
    var wayLons: [Double] = []
    var wayLats: [Double] = []

    let emitNodes: Bool
    let collectWays: Bool
    let countNodes: Bool
    let countOthers: Bool

    init(
        block: PBFPrimitiveBlock, pass: PBFBlockPass, rules: OSMTagRules, lookup: OSMNodeLookup, blob: Int,
        blobOffset: UInt64
    ) {
        self.block = block
        self.pass = pass
        self.rules = rules
        self.lookup = lookup
        self.blob = blob
        self.blobOffset = blobOffset
        switch pass {
        case .tail:
            (emitNodes, collectWays, countNodes, countOthers) = (false, true, false, true)
        case .forward(let ways):
            (emitNodes, collectWays, countNodes, countOthers) = (true, ways, true, ways)
        case .gather:
            (emitNodes, collectWays, countNodes, countOthers) = (false, false, false, false)
        }
        // Roles matter only where tags are read.
        roles = emitNodes || collectWays ? (0..<block.stringCount).map { rules.role(of: block.string($0)) } : []
    }

    @inline(__always)
    private func stringIndex(_ value: UInt64, _ cursor: ProtobufCursor) throws(ProtobufError) -> Int {
        guard value < UInt64(block.stringCount) else {
            throw cursor.error("string index \(value) beyond the string table (\(block.stringCount) entries)")
        }
        return Int(value)
    }

    mutating func run() throws(ProtobufError) {
        for group in block.groupBytes {
            var cursor = ProtobufCursor(group)
            while !cursor.isAtEnd {
                let (field, wire) = try cursor.fieldKey()
                guard (1...4).contains(field) else {
                    try cursor.skip(wire)
                    continue
                }
                try cursor.expect(.lengthDelimited, wire, field: field, in: "PrimitiveGroup")
                let message = try cursor.bytes()
                switch field {
                case 1: try node(message)
                case 2: try denseNodes(message)
                case 3:
                    output.elements += 1
                    if countOthers { output.counts.ways += 1 }
                    if collectWays { try way(message) }
                default:
                    output.elements += 1
                    if countOthers { output.counts.relations += 1 }
                }
            }
        }
    }

    // MARK: Nodes

    @inline(__always)
    private mutating func noteNode(_ id: Int64) {
        output.elements += 1
        output.nodes += 1
        if countNodes { output.counts.nodes += 1 }
        if id < output.minNode { output.minNode = id }
        if id > output.maxNode { output.maxNode = id }
    }

    @inline(__always)
    private mutating func offerCoordinates(id: Int64, lat: Int64, lon: Int64) {
        if let index = lookup.index(of: id) {
            output.hits.append(
                (index, block.degrees(lon, offset: block.lonOffset), block.degrees(lat, offset: block.latOffset)))
        }
    }

    /// Adds the record (or reject) of a POI node whose relevant tags are in the collector.
    private mutating func emitNode(id: Int64, lat: Int64, lon: Int64) {
        output.counts.poiNodes += 1
        let latitude = block.degrees(lat, offset: block.latOffset)
        let longitude = block.degrees(lon, offset: block.lonOffset)
        let line = output.elements
        func rejected(_ reason: String) -> ReadResult {
            let raw = "node/\(id) \(collector.tagDescription) at lat \(latitude), lon \(longitude)"
            return .rejected(RejectedRecord(line: line, byteOffset: blobOffset, reason: reason, raw: raw))
        }
        guard OSMCoordinates.isValid(lon: longitude, lat: latitude) else {
            output.counts.rejectedNodes += 1
            output.results.append(rejected("invalid coordinates: lat \(latitude), lon \(longitude)"))
            return
        }
        switch collector.nameAndKeywords() {
        case .failure(let problem):
            output.counts.rejectedNodes += 1
            output.results.append(rejected(problem.reason))
        case .success(let v):
            output.results.append(
                .record(
                    RawRecord(
                        id: "node/\(id)", name: v.name, keywords: v.keywords, keywordKeys: v.keys, lon: longitude,
                        lat: latitude, line: line, byteOffset: blobOffset, labelTags: v.labelTags)))
        }
    }

    /// `DenseNodes { repeated sint64 id = 1 [packed, delta]; optional DenseInfo denseinfo = 5;
    /// repeated sint64 lat = 8 [packed, delta]; repeated sint64 lon = 9 [packed, delta];
    /// repeated int32 keys_vals = 10 [packed]; }` — keys_vals holds `k v k v … 0` per node.
    private mutating func denseNodes(_ message: UnsafeRawBufferPointer) throws(ProtobufError) {
        var cursor = ProtobufCursor(message)
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        var idBytes = empty
        var latBytes = empty
        var lonBytes = empty
        var kvBytes = empty
        while !cursor.isAtEnd {
            let (field, wire) = try cursor.fieldKey()
            switch field {
            case 1, 8, 9, 10:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "DenseNodes (packed)")
                let packed = try cursor.bytes()
                switch field {
                case 1: idBytes = packed
                case 8: latBytes = packed
                case 9: lonBytes = packed
                default: kvBytes = packed
                }
            default:
                try cursor.skip(wire)
            }
        }
        if case .tail = pass {
            // Only the count matters: each varint ends in exactly one byte below 0x80.
            var count = 0
            for byte in idBytes where byte < 0x80 { count += 1 }
            output.elements += UInt64(count)
            output.nodes += count
            return
        }
        var ids = ProtobufCursor(idBytes)
        var lats = ProtobufCursor(latBytes)
        var lons = ProtobufCursor(lonBytes)
        var keysVals = ProtobufCursor(kvBytes)
        let readTags = emitNodes && !keysVals.isAtEnd
        let wantCoordinates = !lookup.isEmpty
        var id: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        while !ids.isAtEnd {
            guard !lats.isAtEnd, !lons.isAtEnd else { throw lats.error("DenseNodes has fewer lat/lon values than ids") }
            id &+= try ids.signedVarint()
            lat &+= try lats.signedVarint()
            lon &+= try lons.signedVarint()
            noteNode(id)
            if wantCoordinates { offerCoordinates(id: id, lat: lat, lon: lon) }
            guard readTags else { continue }
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
            collector.reset()
            var again = tagsStart
            while true {
                let key = Int(try again.varint())
                if key == 0 { break }
                let value = Int(try again.varint())
                if roles[key].isRelevant {
                    collector.add(role: roles[key], key: block.string(key), value: block.string(value))
                }
            }
            emitNode(id: id, lat: lat, lon: lon)
        }
        guard lats.isAtEnd, lons.isAtEnd else { throw lats.error("DenseNodes has more lat/lon values than ids") }
        guard !readTags || keysVals.isAtEnd else {
            throw keysVals.error("DenseNodes keys_vals has entries beyond the last node")
        }
    }

    /// Reads packed `keys` and `vals` (uint32 string indices) in lockstep; returns whether any key
    /// is a POI key. With `collect`, relevant tags go into the collector.
    private mutating func scanTags(keys: UnsafeRawBufferPointer, vals: UnsafeRawBufferPointer, collect: Bool)
        throws(ProtobufError)
        -> Bool
    {
        var kc = ProtobufCursor(keys)
        var vc = ProtobufCursor(vals)
        var isPOI = false
        while !kc.isAtEnd {
            guard !vc.isAtEnd else { throw vc.error("fewer tag values than keys") }
            let key = try stringIndex(try kc.varint(), kc)
            let value = try stringIndex(try vc.varint(), vc)
            if roles[key].isPOI { isPOI = true }
            if collect && roles[key].isRelevant {
                collector.add(role: roles[key], key: block.string(key), value: block.string(value))
            }
        }
        guard vc.isAtEnd else { throw vc.error("more tag values than keys") }
        return isPOI
    }

    /// `Node { required sint64 id = 1; repeated uint32 keys = 2 [packed]; repeated uint32 vals = 3 [packed];
    /// optional Info info = 4; required sint64 lat = 8; required sint64 lon = 9; }`
    private mutating func node(_ message: UnsafeRawBufferPointer) throws(ProtobufError) {
        if case .tail = pass {
            output.elements += 1
            output.nodes += 1
            return
        }
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
        noteNode(id)
        if !lookup.isEmpty { offerCoordinates(id: id, lat: lat, lon: lon) }
        guard emitNodes, try scanTags(keys: keys, vals: vals, collect: false) else { return }
        collector.reset()
        _ = try scanTags(keys: keys, vals: vals, collect: true)
        emitNode(id: id, lat: lat, lon: lon)
    }

    // MARK: Ways

    /// `Way { required int64 id = 1; repeated uint32 keys = 2 [packed]; repeated uint32 vals = 3 [packed];
    /// optional Info info = 4; repeated sint64 refs = 8 [packed, delta];
    /// repeated sint64 lat = 9 [packed, delta]; repeated sint64 lon = 10 [packed, delta]; }`
    /// (lat/lon only with the optional feature `LocationsOnWays`).
    private mutating func way(_ message: UnsafeRawBufferPointer) throws(ProtobufError) {
        var cursor = ProtobufCursor(message)
        var id: Int64?
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        var keys = empty
        var vals = empty
        var refBytes = empty
        var latBytes = empty
        var lonBytes = empty
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
                case 8: refBytes = packed
                case 9: latBytes = packed
                default: lonBytes = packed
                }
            default:
                try cursor.skip(wire)
            }
        }
        guard let id else { throw cursor.error("Way lacks its id") }
        guard try scanTags(keys: keys, vals: vals, collect: false) else { return }
        output.counts.poiWays += 1
        collector.reset()
        _ = try scanTags(keys: keys, vals: vals, collect: true)

        refs.removeAll(keepingCapacity: true)
        var rc = ProtobufCursor(refBytes)
        var ref: Int64 = 0
        while !rc.isAtEnd {
            ref &+= try rc.signedVarint()
            refs.append(ref)
        }
        var hasLocations = false
        if latBytes.count > 0 || lonBytes.count > 0 {
            wayLons.removeAll(keepingCapacity: true)
            wayLats.removeAll(keepingCapacity: true)
            var latc = ProtobufCursor(latBytes)
            var lonc = ProtobufCursor(lonBytes)
            var lat: Int64 = 0
            var lon: Int64 = 0
            while !latc.isAtEnd && !lonc.isAtEnd {
                lat &+= try latc.signedVarint()
                lon &+= try lonc.signedVarint()
                wayLats.append(block.degrees(lat, offset: block.latOffset))
                wayLons.append(block.degrees(lon, offset: block.lonOffset))
            }
            guard latc.isAtEnd, lonc.isAtEnd, wayLats.count == refs.count else {
                throw cursor.error("way/\(id) has \(refs.count) node refs but a different number of locations")
            }
            hasLocations = true
        }
        let (line, offset, blob, tags) = (output.elements, blobOffset, self.blob, collector)
        refs.withUnsafeBufferPointer { refBuf in
            wayLons.withUnsafeBufferPointer { lonBuf in
                wayLats.withUnsafeBufferPointer { latBuf in
                    output.ways.add(
                        id: String(id), line: line, byteOffset: offset, blob: blob, tags: tags, refs: refBuf,
                        locations: hasLocations ? (lonBuf, latBuf) : nil)
                }
            }
        }
    }
}
