/// A malformed protocol-buffers message (what was wrong, and where in the message).
struct ProtobufError: Error, CustomStringConvertible {
    var message: String
    /// Byte position inside the message being decoded.
    var position: Int
    var description: String { "\(message) at message byte \(position)" }
}

/// Protocol-buffers wire types (https://protobuf.dev/programming-guides/encoding/).
enum WireType: Int {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// Hand-written decoder of the protocol-buffers wire format over a borrowed byte range.
///
/// Every read is bounds-checked and reports a ``ProtobufError`` instead of trapping, so damaged
/// input can never crash the reader; lengths are validated against the bytes that remain before
/// anything is sliced, so no read can allocate more than its input.
struct ProtobufCursor {
    private let base: UnsafePointer<UInt8>?
    private(set) var position: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        position = 0
        end = bytes.count
    }

    var isAtEnd: Bool { position >= end }

    func error(_ message: String) -> ProtobufError { ProtobufError(message: message, position: position) }

    /// A base-128 varint (at most 10 bytes).
    @inline(__always)
    mutating func varint() throws(ProtobufError) -> UInt64 {
        guard position < end, let p = base else { throw error("truncated varint") }
        let first = p[position]
        if first < 0x80 {
            position += 1
            return UInt64(first)
        }
        return try slowVarint(p)
    }

    private mutating func slowVarint(_ p: UnsafePointer<UInt8>) throws(ProtobufError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var i = position
        while true {
            guard i < end else { throw error("truncated varint") }
            let byte = p[i]
            i += 1
            if shift == 63 && byte > 1 { throw error("varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        position = i
        return result
    }

    /// A zigzag-encoded signed varint (`sint32`/`sint64`).
    @inline(__always)
    mutating func signedVarint() throws(ProtobufError) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    /// A plain `int32`/`int64` varint (two's complement).
    @inline(__always)
    mutating func int64() throws(ProtobufError) -> Int64 { Int64(bitPattern: try varint()) }

    /// The next field key: field number and wire type.
    mutating func fieldKey() throws(ProtobufError) -> (field: Int, wireType: WireType) {
        let key = try varint()
        guard let wire = WireType(rawValue: Int(key & 7)) else { throw error("invalid wire type \(key & 7)") }
        let field = key >> 3
        guard field >= 1, field <= 0x1FFF_FFFF else { throw error("invalid field number \(field)") }
        return (Int(field), wire)
    }

    /// A length-delimited payload, as a borrowed slice of the message.
    mutating func bytes() throws(ProtobufError) -> UnsafeRawBufferPointer {
        let length = try varint()
        guard length <= UInt64(end - position) else {
            throw error("length \(length) runs past the end of the message (\(end - position) bytes left)")
        }
        let start = position
        position += Int(length)
        return UnsafeRawBufferPointer(start: base.map { UnsafeRawPointer($0 + start) }, count: Int(length))
    }

    /// Skips a field's value of the given wire type. Groups are deprecated and not used by OSM.
    mutating func skip(_ wire: WireType) throws(ProtobufError) {
        switch wire {
        case .varint: _ = try varint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try bytes()
        case .startGroup, .endGroup: throw error("unsupported group field")
        }
    }

    private mutating func advance(_ n: Int) throws(ProtobufError) {
        guard end - position >= n else { throw error("truncated fixed-size field") }
        position += n
    }

    /// Requires `wire` for `field`, for messages whose schema is known.
    func expect(_ wire: WireType, _ actual: WireType, field: Int, in message: String) throws(ProtobufError) {
        if wire != actual {
            throw error("\(message) field \(field) has wire type \(actual.rawValue), expected \(wire.rawValue)")
        }
    }
}
