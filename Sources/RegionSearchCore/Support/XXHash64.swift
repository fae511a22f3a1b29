/// Streaming XXH64 (Yann Collet's xxHash, 64-bit variant).
///
/// Used for artifact checksums and for the content hashes that key cached stage runs. It is not a
/// cryptographic hash: it detects corruption and edits, not tampering. Content keys combine two
/// seeds (``ContentHash``) so accidental collisions are out of reach in practice.
public struct XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private let seed: UInt64
    private var v1: UInt64
    private var v2: UInt64
    private var v3: UInt64
    private var v4: UInt64
    private var totalLength: UInt64 = 0
    /// Bytes not yet consumed as a full 32-byte stripe.
    private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var pendingCount = 0

    /// Starts a hash with the given seed.
    public init(seed: UInt64 = 0) {
        self.seed = seed
        v1 = seed &+ Self.prime1 &+ Self.prime2
        v2 = seed &+ Self.prime2
        v3 = seed
        v4 = seed &- Self.prime1
    }

    @inline(__always)
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        var acc = acc &+ input &* prime2
        acc = (acc << 31) | (acc >> 33)
        return acc &* prime1
    }

    @inline(__always)
    private static func mergeRound(_ acc: UInt64, _ val: UInt64) -> UInt64 {
        let val = round(0, val)
        var acc = acc ^ val
        acc = acc &* prime1 &+ prime4
        return acc
    }

    @inline(__always)
    private static func load64(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Feeds bytes into the hash.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        var p = base
        var remaining = buffer.count
        totalLength &+= UInt64(remaining)

        if pendingCount > 0 {
            let take = min(32 - pendingCount, remaining)
            withUnsafeMutableBytes(of: &pending) { dst in
                dst.baseAddress!.advanced(by: pendingCount).copyMemory(from: p, byteCount: take)
            }
            pendingCount += take
            p += take
            remaining -= take
            if pendingCount < 32 { return }
            withUnsafeBytes(of: &pending) { stripe in
                let s = stripe.baseAddress!
                v1 = Self.round(v1, Self.load64(s, 0))
                v2 = Self.round(v2, Self.load64(s, 8))
                v3 = Self.round(v3, Self.load64(s, 16))
                v4 = Self.round(v4, Self.load64(s, 24))
            }
            pendingCount = 0
        }
        var a = v1
        var b = v2
        var c = v3
        var d = v4
        while remaining >= 32 {
            a = Self.round(a, Self.load64(p, 0))
            b = Self.round(b, Self.load64(p, 8))
            c = Self.round(c, Self.load64(p, 16))
            d = Self.round(d, Self.load64(p, 24))
            p += 32
            remaining -= 32
        }
        v1 = a
        v2 = b
        v3 = c
        v4 = d
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { dst in
                dst.baseAddress!.copyMemory(from: p, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    /// Feeds a string's UTF-8 bytes.
    public mutating func update(_ string: String) {
        var s = string
        s.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Feeds an integer as 8 little-endian bytes.
    public mutating func update(_ value: UInt64) {
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { update($0) }
    }

    /// The hash of everything fed so far (the state is not consumed).
    public func finalize() -> UInt64 {
        var h: UInt64
        if totalLength >= 32 {
            h =
                ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57))
                &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            h = Self.mergeRound(h, v1)
            h = Self.mergeRound(h, v2)
            h = Self.mergeRound(h, v3)
            h = Self.mergeRound(h, v4)
        } else {
            h = seed &+ Self.prime5
        }
        h &+= totalLength
        var tail = pending
        let count = pendingCount
        withUnsafeBytes(of: &tail) { raw in
            let p = raw.baseAddress!
            var i = 0
            while i + 8 <= count {
                let k1 = Self.round(0, Self.load64(p, i))
                h ^= k1
                h = ((h << 27) | (h >> 37)) &* Self.prime1 &+ Self.prime4
                i += 8
            }
            if i + 4 <= count {
                let w = UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt32.self)))
                h ^= w &* Self.prime1
                h = ((h << 23) | (h >> 41)) &* Self.prime2 &+ Self.prime3
                i += 4
            }
            while i < count {
                let byte = UInt64(p.load(fromByteOffset: i, as: UInt8.self))
                h ^= byte &* Self.prime5
                h = ((h << 11) | (h >> 53)) &* Self.prime1
                i += 1
            }
        }
        h ^= h >> 33
        h &*= Self.prime2
        h ^= h >> 29
        h &*= Self.prime3
        h ^= h >> 32
        return h
    }

    /// One-shot hash of a buffer.
    public static func hash(_ buffer: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var h = XXHash64(seed: seed)
        h.update(buffer)
        return h.finalize()
    }
}

/// A 128-bit content hash (two XXH64 lanes with different seeds), printed as 32 hex digits.
public struct ContentHash: Hashable, Comparable, CustomStringConvertible, Sendable {
    var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses 32 lowercase or uppercase hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 32, let h = UInt64(hex.prefix(16), radix: 16),
            let l = UInt64(hex.suffix(16), radix: 16)
        else { return nil }
        high = h
        low = l
    }

    public var description: String { hex64(high) + hex64(low) }

    public static func < (a: ContentHash, b: ContentHash) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }
}

/// Incrementally computes a ``ContentHash``.
public struct ContentHasher {
    private var a = XXHash64(seed: 0)
    private var b = XXHash64(seed: 0x5253_4841_5348_3132)  // "RSHASH12"

    public init() {}

    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        // Both lanes take each 32 KiB piece while it is in the L1/L2 cache: one pass over memory
        // instead of two (the same hashes: XXH64 does not depend on how its input is split).
        let piece = 1 << 15
        var offset = 0
        while offset < buffer.count {
            let part = UnsafeRawBufferPointer(rebasing: buffer[offset..<min(buffer.count, offset + piece)])
            a.update(part)
            b.update(part)
            offset += piece
        }
    }

    /// Feeds a large buffer with the two lanes on two threads at once (the same hash as
    /// ``update(_:)-(UnsafeRawBufferPointer)``: each lane is XXH64, bound by one multiplier per
    /// core). For top-level hashing of whole files (the runner's inputs); not from inside another
    /// parallel loop.
    public mutating func updateLanesInParallel(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count >= 1 << 20, Parallel.threadCount > 1 else {
            update(buffer)
            return
        }
        var lanes = [a, b]
        lanes.withUnsafeMutableBufferPointer { lanes in
            let lanes = lanes
            Parallel.forEach(2) { lanes[$0].update(buffer) }
        }
        a = lanes[0]
        b = lanes[1]
    }

    public mutating func update(_ string: String) {
        a.update(string)
        b.update(string)
        // A separator so that ("ab","c") and ("a","bc") differ.
        a.update(UInt64(0xFF))
        b.update(UInt64(0xFF))
    }

    public func finalize() -> ContentHash { ContentHash(high: a.finalize(), low: b.finalize()) }
}

/// Formats a 64-bit value as 16 lowercase hex digits.
public func hex64(_ value: UInt64) -> String {
    let s = String(value, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}
