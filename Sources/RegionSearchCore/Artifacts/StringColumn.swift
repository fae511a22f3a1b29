/// Many strings stored as one UTF-8 byte array plus `count + 1` offsets, so a column of a
/// million names is two allocations instead of a million.
public struct StringColumn: Equatable, Sendable {
    /// `offsets[i]..<offsets[i+1]` are the bytes of string `i`; `offsets[0] == 0`.
    public var offsets: [UInt64]
    public var bytes: [UInt8]

    public init() {
        offsets = [0]
        bytes = []
    }

    public init(offsets: [UInt64], bytes: [UInt8]) {
        self.offsets = offsets
        self.bytes = bytes
    }

    public init<S: Sequence>(_ strings: S) where S.Element == String {
        self.init()
        for s in strings { append(s) }
    }

    public var count: Int { offsets.count - 1 }

    public mutating func reserve(strings: Int, bytes byteCount: Int) {
        offsets.reserveCapacity(strings + 1)
        bytes.reserveCapacity(byteCount)
    }

    public mutating func append(_ s: String) {
        bytes.append(contentsOf: s.utf8)
        offsets.append(UInt64(bytes.count))
    }

    public mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: utf8)
        offsets.append(UInt64(bytes.count))
    }

    public mutating func append<C: Collection>(utf8: C) where C.Element == UInt8 {
        bytes.append(contentsOf: utf8)
        offsets.append(UInt64(bytes.count))
    }

    /// Byte range of string `i`.
    @inline(__always)
    public func range(_ i: Int) -> Range<Int> { Int(offsets[i])..<Int(offsets[i + 1]) }

    /// String `i` (stored bytes are valid UTF-8; invalid bytes would be repaired).
    public subscript(i: Int) -> String {
        let r = range(i)
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[r]), as: UTF8.self) }
    }

    /// Calls `body` with the bytes of string `i` without copying.
    @inline(__always)
    public func withUTF8<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let r = range(i)
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[r])) }
    }

    /// A new column holding the strings at `indices`, in that order.
    func gathered(_ indices: [Int]) -> StringColumn {
        var out = StringColumn()
        var total = 0
        for i in indices { total += range(i).count }
        out.reserve(strings: indices.count, bytes: total)
        bytes.withUnsafeBufferPointer { b in
            for i in indices { out.append(utf8: UnsafeBufferPointer(rebasing: b[range(i)])) }
        }
        return out
    }
}
