/// One record read from an input file, before validation and normalisation.
///
/// Readers (CSV, GeoJSON, OSM, …) only split the input into records and pick out fields; the
/// ingest driver validates coordinates, converts coordinate systems, normalises keywords and
/// applies the duplicate policy, so every format gets the same rules.
public struct RawRecord {
    public var id: String
    public var name: String
    /// Raw keyword values (one per category level, tag or list item); ingest normalises them.
    public var keywords: [String]
    /// The key each keyword value came from (OSM tag key, GeoJSON property, column name), by
    /// position in ``keywords``; "" or a missing entry means none. Keys make `key=value`
    /// queries possible (see ``KeywordMatcher``).
    public var keywordKeys: [String]
    /// Longitude and latitude as given; NaN when missing or not a number.
    public var lon: Double
    public var lat: Double
    /// 1-based line number (text formats) or element ordinal (binary formats).
    public var line: UInt64
    /// Offset of the record's first byte in the (decompressed) input.
    public var byteOffset: UInt64
    /// The tags region labels need, as hstore text (``LabelTags``); "" for none.
    var labelTags: String = ""

    /// The first text value that holds a NUL character ("id", "name", "keyword", "keyword's key" or
    /// "tags"), or nil.
    var fieldWithNUL: String? {
        if id.utf8.contains(0) { return "id" }
        if name.utf8.contains(0) { return "name" }
        if keywords.contains(where: { $0.utf8.contains(0) }) { return "keyword" }
        if keywordKeys.contains(where: { $0.utf8.contains(0) }) { return "keyword's key" }
        return labelTags.utf8.contains(0) ? "tags" : nil
    }

    public init(
        id: String, name: String, keywords: [String], keywordKeys: [String] = [], lon: Double, lat: Double,
        line: UInt64, byteOffset: UInt64, labelTags: String = ""
    ) {
        self.labelTags = labelTags
        self.id = id
        self.name = name
        self.keywords = keywords
        self.keywordKeys = keywordKeys
        self.lon = lon
        self.lat = lat
        self.line = line
        self.byteOffset = byteOffset
    }
}

/// A record that a reader could not turn into a ``RawRecord`` (or that ingest refused).
public struct RejectedRecord: Sendable {
    public var line: UInt64
    public var byteOffset: UInt64
    /// Why, in a few words ("wrong column count: 5, expected 7", "invalid UTF-8 at byte 1234").
    public var reason: String
    /// The record as it appeared in the input (or a faithful description for binary formats).
    public var raw: String

    public init(line: UInt64, byteOffset: UInt64, reason: String, raw: String) {
        self.line = line
        self.byteOffset = byteOffset
        self.reason = reason
        self.raw = raw
    }
}

/// What a reader yields for each record.
public enum ReadResult {
    case record(RawRecord)
    case rejected(RejectedRecord)
}

/// Streams the records of one input file.
public protocol RecordSource: AnyObject {
    /// The next record (accepted or rejected), or nil at the end of the input. Throws only for
    /// problems that stop the whole file (unreadable, damaged compression, unknown format).
    func next() throws -> ReadResult?
    /// Input bytes consumed so far (decompressed), for progress and throughput.
    var bytesRead: UInt64 { get }
}
