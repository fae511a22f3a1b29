#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sliding window that the streaming readers — delimited text (``DelimitedParser``), GeoJSON
/// (``GeoJSONReader``) and OSM XML (``XMLTokenizer``) — read their input through.
///
/// `bytes[0..<end]` holds the input bytes `base..<base + end` (decompressed); `pos` is the
/// reader's position in the window. ``refill(keepingFrom:)`` compacts (drops the bytes before a
/// point the reader no longer needs and moves the rest to the front), doubles the window when it
/// is full, and reads once more. What differs between the readers stays with them: how they count
/// lines, where they look for a byte-order mark, and how long a record or markup may grow before
/// they give up (they check that before asking for more).
///
/// A struct, so the readers' hot loops work on plain stored fields; the owner calls
/// ``deallocate()`` once. A class that holds one refills a copy and stores it back (see
/// ``XMLTokenizer``): a mutating call on the stored property would keep an access to it open
/// through the read, and then every access to the window would need a dynamic exclusivity check.
struct ByteWindow {
    /// The window's memory; valid until the next refill.
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// End of the valid bytes.
    private(set) var end = 0
    /// Input offset of `bytes[0]`.
    private(set) var base: UInt64 = 0
    /// The reader's position: it moves this itself; refills shift it with the bytes.
    var pos = 0
    /// Whether a read returned no bytes: nothing follows `end`.
    private(set) var atEOF = false
    /// nil when the whole input was given at creation.
    private let reader: ByteReader?

    /// A window over `reader`, starting with room for `capacity` bytes; nothing is read yet.
    init(reader: ByteReader, capacity: Int) {
        self.reader = reader
        self.capacity = max(1, capacity)
        bytes = .allocate(capacity: self.capacity)
    }

    /// A window holding all of `contents` (at the end of input from the start).
    init(contents: [UInt8]) {
        reader = nil
        capacity = max(1, contents.count)
        bytes = .allocate(capacity: capacity)
        contents.withUnsafeBufferPointer { if let p = $0.baseAddress { bytes.update(from: p, count: $0.count) } }
        end = contents.count
        atEOF = true
    }

    /// Frees the memory (called once, by the owner).
    func deallocate() { bytes.deallocate() }

    /// Input offset of `pos`.
    @inline(__always)
    var absolutePosition: UInt64 { base + UInt64(pos) }

    /// Drops the bytes before `keep` (at most `pos`), moving the rest to the front, doubles the
    /// window when it is still full, and reads once into the free space. Returns the bytes read:
    /// 0 at the end of the input (then ``atEOF`` is set; once it is, nothing moves any more).
    @discardableResult
    mutating func refill(keepingFrom keep: Int) throws -> Int {
        assert(0 <= keep && keep <= pos && pos <= end, "keep \(keep), pos \(pos), end \(end)")
        if atEOF { return 0 }
        if keep > 0 {
            let n = end - keep
            if n > 0 { memmove(bytes, bytes + keep, n) }
            base += UInt64(keep)
            pos -= keep
            end = n
        }
        if end == capacity {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: bytes, count: end)
            bytes.deallocate()
            bytes = bigger
            capacity *= 2
        }
        guard let reader else {
            atEOF = true
            return 0
        }
        let n = try reader.read(into: UnsafeMutableRawBufferPointer(start: bytes + end, count: capacity - end))
        if n == 0 { atEOF = true }
        end += n
        return n
    }

    /// ``refill(keepingFrom:)`` keeping the bytes from `pos` on.
    @discardableResult
    mutating func refill() throws -> Int { try refill(keepingFrom: pos) }

    /// Whether the window holds the start of the input and it begins with a UTF-8 byte-order mark.
    var startsWithByteOrderMark: Bool {
        base == 0 && end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// Line feeds in `bytes[from..<to]`.
    func newlines(from: Int, to: Int) -> UInt64 {
        var n: UInt64 = 0
        var p = bytes + from
        var left = to - from
        while left > 0, let hit = memchr(p, 0x0A, left) {
            let h = hit.assumingMemoryBound(to: UInt8.self)
            n += 1
            left -= h - p + 1
            p = h + 1
        }
        return n
    }

    /// `bytes[from..<to]` as text (invalid UTF-8 repaired).
    func text(from: Int, to: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: bytes + from, count: to - from), as: UTF8.self)
    }
}
