import RegionSearchCore

/// Records in columns: the fast path between a reader and the ingest driver, with no String
/// or array per record.
///
/// A delimited-text batch holds one copy of the raw bytes of its records (`text`) and, per
/// record, references to the fields that matter; fields that had to be unescaped live in
/// `extra`. Keyword fields are split and normalised by the consumer. Rejected records keep
/// their slot, so the order of accepted and rejected records is preserved.
struct RecordBatch {
    /// A byte range in `text`, or in `extra` when `start` is negative (`~start`..<`end`).
    struct FieldRef: Sendable {
        public var start: Int32
        public var end: Int32
        public static let empty = FieldRef(start: 0, end: 0)
    }

    /// A keyword field and the index of its split rule in the source's keyword columns; -1
    /// means the field is one value already (split by the reader). A field with a split rule
    /// takes the key of its column (``RecordBatchSource/keywordKeys``); one of column -1 has
    /// `key`, an index into the batch's ``keyNames`` (-1: none).
    struct KeywordField: Sendable {
        public var ref: FieldRef
        public var column: Int32
        public var key: Int32 = -1
    }

    public struct Entry: Sendable {
        /// The id and name, trimmed; empty when missing.
        public var id: FieldRef
        public var name: FieldRef
        /// ``ShortHash`` of the id bytes (0 for an empty id), computed by the reading side.
        var idHash: UInt64
        /// End of this record's fields in `keywordFields` (start: the previous entry's end).
        var keywordEnd: Int32
        /// -1 for a usable record, else the index of its entry in `rejected`.
        var rejectSlot: Int32
        /// As given by the reader (converted to WGS84 after validation); NaN when missing.
        public var lon: Double
        public var lat: Double
        public var line: UInt64
        public var byteOffset: UInt64
        /// Label tags as hstore text (``LabelTags``); empty when none.
        public var tags: FieldRef = .empty
    }

    public var entries: [Entry] = []
    var keywordFields: [KeywordField] = []
    public var text: [UInt8] = []
    public var extra: [UInt8] = []
    public var rejected: [RejectedRecord] = []
    /// Coordinate text of records whose coordinates could not be read (record index, text).
    var coordinateTexts: [(Int, String)] = []
    /// The keys of the batch's keyword values (``KeywordField/key``), raw, in order of first use.
    var keyNames: [String] = []
    private var keyLookup: [String: Int32] = [:]
    private var lastKey: Int32 = -1

    public init() {}

    public var count: Int { entries.count }

    public mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        keywordFields.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
        extra.removeAll(keepingCapacity: true)
        rejected.removeAll(keepingCapacity: true)
        coordinateTexts.removeAll(keepingCapacity: true)
        keyNames.removeAll(keepingCapacity: true)
        keyLookup.removeAll(keepingCapacity: true)
        lastKey = -1
    }

    /// The index of `key` in ``keyNames`` (added when new); -1 for "" (no key).
    mutating func keyIndex(_ key: String) -> Int32 {
        if key.isEmpty { return -1 }
        // Consecutive values mostly share their key (one property, one tag): skip the hashing.
        if lastKey >= 0, keyNames[Int(lastKey)] == key { return lastKey }
        if let i = keyLookup[key] {
            lastKey = i
            return i
        }
        let i = Int32(keyNames.count)
        keyNames.append(key)
        keyLookup[key] = i
        lastKey = i
        return i
    }

    /// Stores bytes in `extra` and returns their reference.
    @inline(__always)
    mutating func addExtra(_ bytes: UnsafeBufferPointer<UInt8>) -> FieldRef {
        let start = extra.count
        extra.append(contentsOf: bytes)
        return FieldRef(start: ~Int32(start), end: Int32(extra.count))
    }

    mutating func addExtra(_ s: String) -> FieldRef {
        var s = s
        return s.withUTF8 { addExtra($0) }
    }

    /// Appends a record given as a ``RawRecord`` (its keyword values are final; id and name
    /// are trimmed).
    public mutating func append(_ r: RawRecord) {
        var idText = r.id
        var nameText = r.name
        let (id, hash) = idText.withUTF8 { b -> (FieldRef, UInt64) in
            let t = b.trimmingASCIIWhitespace()
            return (addExtra(t), t.isEmpty ? 0 : ShortHash.hash(t))
        }
        let name = nameText.withUTF8 { addExtra($0.trimmingASCIIWhitespace()) }
        for (j, k) in r.keywords.enumerated() {
            let key = j < r.keywordKeys.count ? keyIndex(r.keywordKeys[j]) : -1
            keywordFields.append(KeywordField(ref: addExtra(k), column: -1, key: key))
        }
        entries.append(
            Entry(
                id: id, name: name, idHash: hash, keywordEnd: Int32(keywordFields.count), rejectSlot: -1, lon: r.lon,
                lat: r.lat,
                line: r.line, byteOffset: r.byteOffset, tags: r.labelTags.isEmpty ? .empty : addExtra(r.labelTags)))
    }

    /// Appends a record the reader rejected.
    public mutating func append(rejected r: RejectedRecord) {
        entries.append(
            Entry(
                id: .empty, name: .empty, idHash: 0, keywordEnd: Int32(keywordFields.count),
                rejectSlot: Int32(rejected.count),
                lon: .nan, lat: .nan, line: r.line, byteOffset: r.byteOffset))
        rejected.append(r)
    }

    /// Marks record k as rejected (by the driver's validation).
    mutating func reject(_ k: Int, _ r: RejectedRecord) {
        entries[k].rejectSlot = Int32(rejected.count)
        rejected.append(r)
    }

    @inline(__always)
    func isRejected(_ k: Int) -> Bool { entries[k].rejectSlot >= 0 }

    /// The first text value of record k that holds a NUL byte ("id", "name", "keyword" or
    /// "tags"), or nil.
    func fieldWithNUL(_ k: Int) -> String? {
        withBytes { bytes in
            let e = entries[k]
            if bytes[e.id].contains(0) { return "id" }
            if bytes[e.name].contains(0) { return "name" }
            for f in keywordRange(k) where bytes[keywordFields[f].ref].contains(0) { return "keyword" }
            return bytes[e.tags].contains(0) ? "tags" : nil
        }
    }

    /// Range of record k's fields in `keywordFields`.
    @inline(__always)
    func keywordRange(_ k: Int) -> Range<Int> {
        (k == 0 ? 0 : Int(entries[k - 1].keywordEnd))..<Int(entries[k].keywordEnd)
    }

    /// The coordinate text recorded for record k, if any.
    func coordinateText(_ k: Int) -> String? {
        for (i, t) in coordinateTexts where i == k { return t }
        return nil
    }

    /// Calls `body` with resolvers for field references (valid inside `body` only).
    @inline(__always)
    public func withBytes<R>(_ body: (FieldResolver) throws -> R) rethrows -> R {
        try text.withUnsafeBufferPointer { t in
            try extra.withUnsafeBufferPointer { x in try body(FieldResolver(text: t, extra: x)) }
        }
    }

    /// Turns ``FieldRef``s into bytes.
    struct FieldResolver {
        let text: UnsafeBufferPointer<UInt8>
        let extra: UnsafeBufferPointer<UInt8>

        @inline(__always)
        public subscript(_ r: FieldRef) -> UnsafeBufferPointer<UInt8> {
            if r.start >= 0 {
                return UnsafeBufferPointer(
                    start: text.baseAddress.map { $0 + Int(r.start) }, count: Int(r.end - r.start))
            }
            let s = Int(~r.start)
            return UnsafeBufferPointer(start: extra.baseAddress.map { $0 + s }, count: Int(r.end) - s)
        }
    }
}

/// A reader that can fill a ``RecordBatch`` directly (the fast path of the ingest driver).
protocol RecordBatchSource: RecordSource {
    /// Clears `batch` and fills it with up to `limit` records; false when the input had no more
    /// records.
    func nextBatch(_ batch: inout RecordBatch, limit: Int) throws -> Bool
    /// The input text of record `k` of the last batch (valid until the next call).
    func recordText(inLastBatch k: Int) -> String
    /// How the keyword fields of column index `c` (``RecordBatch/KeywordField/column``) are split.
    var keywordSplitRules: [(split: InputSpec.KeywordSplit, separator: [UInt8])] { get }
    /// The key (column name) of the values of column index `c`; nil or a missing entry: none.
    var keywordKeys: [String?] { get }
    /// Values that mean "missing" in this input.
    var missingValues: [String] { get }
}

extension RecordBatchSource {
    /// No keys unless the source names them.
    var keywordKeys: [String?] { [] }
}

extension StringColumn {
    /// Removes all strings, keeping the capacity.
    public mutating func removeAll() {
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Drops the strings from index `n` on.
    mutating func truncate(to n: Int) {
        guard n < count else { return }
        bytes.removeSubrange(Int(offsets[n])...)
        offsets.removeSubrange((n + 1)...)
    }
}
