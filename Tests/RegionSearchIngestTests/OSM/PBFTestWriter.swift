import CZlib
import Foundation

/// Protocol-buffers encoder for building PBF test files (independent of the reader's decoder).
struct ProtobufWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func key(_ field: Int, _ wire: Int) { varint(UInt64(field << 3 | wire)) }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    mutating func uint(_ field: Int, _ v: UInt64) {
        key(field, 0)
        varint(v)
    }

    mutating func int(_ field: Int, _ v: Int64) {
        key(field, 0)
        varint(UInt64(bitPattern: v))
    }

    mutating func sint(_ field: Int, _ v: Int64) {
        key(field, 0)
        varint(ProtobufWriter.zigzag(v))
    }

    mutating func data(_ field: Int, _ payload: [UInt8]) {
        key(field, 2)
        varint(UInt64(payload.count))
        bytes += payload
    }

    mutating func string(_ field: Int, _ s: String) { data(field, Array(s.utf8)) }

    mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        data(field, inner.bytes)
    }

    mutating func packedUInt(_ field: Int, _ values: [UInt64]) {
        var inner = ProtobufWriter()
        for v in values { inner.varint(v) }
        data(field, inner.bytes)
    }

    mutating func packedSInt(_ field: Int, _ values: [Int64]) {
        packedUInt(field, values.map { ProtobufWriter.zigzag($0) })
    }

    /// Delta-codes then zigzag-packs.
    mutating func packedDelta(_ field: Int, _ values: [Int64]) {
        var deltas: [Int64] = []
        var previous: Int64 = 0
        for v in values {
            deltas.append(v - previous)
            previous = v
        }
        packedSInt(field, deltas)
    }
}

/// A node, way or relation for hand-made PBF files.
struct TestNode {
    var id: Int64
    var lat: Double
    var lon: Double
    var tags: [(String, String)] = []
    /// Extra tags as raw bytes (to write invalid UTF-8).
    var byteTags: [([UInt8], [UInt8])] = []

    /// All tags as bytes.
    var allTags: [([UInt8], [UInt8])] { tags.map { (Array($0.0.utf8), Array($0.1.utf8)) } + byteTags }
}

struct TestWay {
    var id: Int64
    var refs: [Int64]
    var tags: [(String, String)] = []
    /// (lat, lon) per ref, written as `LocationsOnWays`.
    var locations: [(Double, Double)]? = nil
}

/// Builds OSM PBF files from nodes, ways and relations, blob by blob.
struct PBFTestWriter {
    enum Group {
        case dense([TestNode])
        case nodes([TestNode])
        case ways([TestWay])
        case relations([Int64])
    }

    enum Compression {
        case raw
        case zlib
        /// Writes the payload under another Blob field number (4 = LZMA, 6 = LZ4, 7 = ZSTD).
        case field(Int)
    }

    var granularity: Int64 = 100
    var latOffset: Int64 = 0
    var lonOffset: Int64 = 0
    var bytes: [UInt8] = []
    /// File offset of every blob written so far.
    private(set) var blobOffsets: [UInt64] = []

    /// Appends a framed blob.
    mutating func blob(type: String, payload: [UInt8], compression: Compression) {
        blobOffsets.append(UInt64(bytes.count))
        var blob = ProtobufWriter()
        switch compression {
        case .raw:
            blob.data(1, payload)
        case .zlib:
            var size = compressBound(uLong(payload.count))
            var out = [UInt8](repeating: 0, count: Int(size))
            let rc = compress(&out, &size, payload, uLong(payload.count))
            precondition(rc == Z_OK)
            blob.int(2, Int64(payload.count))
            blob.data(3, Array(out[0..<Int(size)]))
        case .field(let number):
            blob.int(2, Int64(payload.count))
            blob.data(number, payload)
        }
        var header = ProtobufWriter()
        header.string(1, type)
        header.int(3, Int64(blob.bytes.count))
        let n = header.bytes.count
        bytes += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
        bytes += header.bytes
        bytes += blob.bytes
    }

    mutating func header(
        features: [String] = ["OsmSchema-V0.6", "DenseNodes"], optional: [String] = [],
        compression: Compression = .zlib
    ) {
        var h = ProtobufWriter()
        for f in features { h.string(4, f) }
        for f in optional { h.string(5, f) }
        h.string(16, "RegionSearch tests")
        blob(type: "OSMHeader", payload: h.bytes, compression: compression)
    }

    private func raw(_ degrees: Double, offset: Int64) -> Int64 {
        (Int64((degrees * 1e9).rounded()) - offset) / granularity
    }

    /// A PrimitiveBlock payload holding `groups`.
    func block(_ groups: [Group]) -> [UInt8] {
        var strings: [[UInt8]] = [[]]
        func index(_ s: [UInt8]) -> UInt64 {
            if let i = strings.firstIndex(of: s) { return UInt64(i) }
            strings.append(s)
            return UInt64(strings.count - 1)
        }
        func index(_ s: String) -> UInt64 { index(Array(s.utf8)) }
        var encodedGroups: [[UInt8]] = []
        for group in groups {
            var g = ProtobufWriter()
            switch group {
            case .dense(let nodes):
                g.message(2) { d in
                    d.packedDelta(1, nodes.map { $0.id })
                    d.packedDelta(8, nodes.map { raw($0.lat, offset: latOffset) })
                    d.packedDelta(9, nodes.map { raw($0.lon, offset: lonOffset) })
                    if nodes.contains(where: { !$0.allTags.isEmpty }) {
                        var kv: [UInt64] = []
                        for n in nodes {
                            for (k, v) in n.allTags { kv += [index(k), index(v)] }
                            kv.append(0)
                        }
                        d.packedUInt(10, kv)
                    }
                }
            case .nodes(let nodes):
                for n in nodes {
                    g.message(1) { m in
                        m.sint(1, n.id)
                        if !n.allTags.isEmpty {
                            m.packedUInt(2, n.allTags.map { index($0.0) })
                            m.packedUInt(3, n.allTags.map { index($0.1) })
                        }
                        m.sint(8, raw(n.lat, offset: latOffset))
                        m.sint(9, raw(n.lon, offset: lonOffset))
                    }
                }
            case .ways(let ways):
                for w in ways {
                    g.message(3) { m in
                        m.int(1, w.id)
                        if !w.tags.isEmpty {
                            m.packedUInt(2, w.tags.map { index($0.0) })
                            m.packedUInt(3, w.tags.map { index($0.1) })
                        }
                        m.packedDelta(8, w.refs)
                        if let locations = w.locations {
                            m.packedDelta(9, locations.map { raw($0.0, offset: latOffset) })
                            m.packedDelta(10, locations.map { raw($0.1, offset: lonOffset) })
                        }
                    }
                }
            case .relations(let ids):
                for id in ids {
                    g.message(4) { m in
                        m.int(1, id)
                        m.packedSInt(8, [1])
                        m.packedUInt(10, [0])
                    }
                }
            }
            encodedGroups.append(g.bytes)
        }
        var b = ProtobufWriter()
        b.message(1) { t in for s in strings { t.data(1, s) } }
        for g in encodedGroups { b.data(2, g) }
        if granularity != 100 { b.int(17, granularity) }
        if latOffset != 0 { b.int(19, latOffset) }
        if lonOffset != 0 { b.int(20, lonOffset) }
        return b.bytes
    }

    mutating func data(_ groups: [Group], compression: Compression = .zlib) {
        blob(type: "OSMData", payload: block(groups), compression: compression)
    }
}
