import RegionSearchCore

/// Streams records from delimited text (CSV, TSV, pipe- or semicolon-separated…).
///
/// Parsing follows RFC 4180 with the usual real-world allowances:
/// - any single-byte delimiter; records end at LF, CRLF or a lone CR; a UTF-8 byte-order mark
///   is skipped; empty lines (and, with `trim`, lines of blanks) are skipped and counted;
/// - a field that starts with the quote character (after blanks, with `trim`) is quoted: it
///   may hold delimiters, line breaks and doubled quotes (`""` → `"`). Text after the closing
///   quote is kept (`"ab"c` → `abc`); a quote inside an unquoted field is ordinary text;
/// - a quoted field still open at the end of the file, or after `max_record_bytes`, is a stray
///   quote: the record is rejected from its start to the end of the line holding that quote,
///   and reading resumes on the next line, so one bad quote costs one line, not the file;
/// - records with a different number of fields than the header (or, without a header, than
///   the first record) are rejected, as are records that are not valid UTF-8 (the reason gives
///   the absolute byte offset of the first bad byte).
///
/// Columns are mapped by header name or 0-based index (see ``InputSpec/Columns``); missing
/// ones are guessed from the header. The reader works on bytes in a reusable buffer and fills
/// ``RecordBatch``es without a String per field, so memory does not grow with the file.
public final class DelimitedReader: RecordSource, RecordSourceDiagnostics, RecordBatchSource {
    /// Column positions after resolving names against the header.
    public struct ResolvedColumns: Sendable {
        public var id: Int?
        public var name: Int?
        public var keywords: [(index: Int, split: InputSpec.KeywordSplit, separator: [UInt8])] = []
        public var lon: Int?
        public var lat: Int?
        public var coordinates: Int?
        public var wkt: Int?
        /// The `columns.tags` column (label tags, ``LabelTags``).
        public var tags: Int?
    }

    private var parser: DelimitedParser
    private let splitter: KeywordSplitter
    /// One-record batch behind `next()`.
    private var single = RecordBatch()

    /// Opens delimited text. Reads the first record to sniff the delimiter (when not given),
    /// decide about the header and resolve the columns.
    ///
    /// - Throws: ``InputError`` when the input cannot be read; `UsageError` when a named column
    ///   is not in the header or the columns cannot be resolved.
    public init(reader: ByteReader, spec: InputSpec) throws {
        parser = DelimitedParser(reader: reader, spec: spec)
        splitter = KeywordSplitter(missingValues: spec.missingValues)
        // On failure the object is fully initialised, so deinit frees the buffers.
        try parser.prepare()
    }

    deinit { parser.deallocate() }

    public var path: String { parser.path }
    public var spec: InputSpec { parser.spec }
    /// The delimiter in use (given or sniffed).
    public var delimiter: UInt8 { parser.delimiter }
    /// Whether the first record was taken as a header.
    public var hasHeader: Bool { parser.hasHeader }
    /// Header field names (empty without a header).
    var headerFields: [String] { parser.headerFields }
    /// The header line as it appears in the file, for the rejects file.
    var headerText: String? { parser.headerText }
    /// Fields every record must have.
    var expectedFieldCount: Int { parser.expectedFieldCount }
    public var columns: ResolvedColumns { parser.columns }
    /// Which columns were guessed from the header, as "key='name'" (for the log).
    public var guessedColumns: [String] { parser.guessedColumns }
    /// Empty (or blank) lines skipped; they are not records.
    public var blankLines: Int { parser.blankLines }

    public var bytesRead: UInt64 { parser.bytesRead }

    /// Header names tried, in order, when a column is not given (compared case-insensitively).
    static var guessNames: [(key: String, names: [String])] { DelimitedParser.guessNames }

    func nextBatch(_ batch: inout RecordBatch, limit: Int) throws -> Bool {
        try parser.fill(&batch, limit: limit)
    }

    func recordText(inLastBatch k: Int) -> String {
        parser.rawText(parser.rawStart[k], parser.rawEnd[k])
    }

    var keywordSplitRules: [(split: InputSpec.KeywordSplit, separator: [UInt8])] {
        parser.columns.keywords.map { ($0.split, $0.separator) }
    }

    /// The header names of the keyword columns (nil for every column without a header line).
    var keywordKeys: [String?] {
        let header = parser.headerFields
        return parser.columns.keywords.map { $0.index < header.count ? header[$0.index] : nil }
    }

    var missingValues: [String] { parser.spec.missingValues }

    public func next() throws -> ReadResult? {
        guard try parser.fill(&single, limit: 1) else { return nil }
        if single.isRejected(0) { return .rejected(single.rejected[0]) }
        let e = single.entries[0]
        let rules = keywordSplitRules
        let record = single.withBytes { f -> RawRecord in
            func value(_ r: RecordBatch.FieldRef) -> String {
                let v = f[r].trimmingASCIIWhitespace()
                return splitter.isMissing(v) ? "" : String(decoding: v, as: UTF8.self)
            }
            var keywords: [String] = []
            var keys: [String] = []
            let columnKeys = keywordKeys
            for kf in single.keywordFields {
                let rule = rules[Int(kf.column)]
                let key = Int(kf.column) < columnKeys.count ? columnKeys[Int(kf.column)] ?? "" : ""
                splitter.split(
                    f[kf.ref], mode: rule.split, separator: rule.separator, key: key, into: &keywords, keys: &keys)
            }
            return RawRecord(
                id: value(e.id), name: value(e.name), keywords: keywords, keywordKeys: keys, lon: e.lon, lat: e.lat,
                line: e.line, byteOffset: e.byteOffset)
        }
        return .record(record)
    }

    func lastRecordText() -> String { single.count > 0 ? recordText(inLastBatch: 0) : "" }

    func lastCoordinateText() -> String? { single.count > 0 ? single.coordinateText(0) : nil }

    /// A one-line description of the column mapping, for the log.
    public var mappingDescription: String {
        let headerFields = self.headerFields
        func name(_ i: Int?) -> String {
            guard let i else { return "-" }
            return i < headerFields.count ? "'\(PrintableText.of(headerFields[i], limit: 60))'" : "#\(i)"
        }
        let c = columns
        var parts = ["id=\(name(c.id))", "name=\(name(c.name))"]
        parts.append(
            "keywords=[" + c.keywords.map { "\(name($0.index)) \($0.split.rawValue)" }.joined(separator: ", ") + "]")
        if c.lon != nil { parts.append("lon=\(name(c.lon)) lat=\(name(c.lat))") }
        if c.coordinates != nil {
            parts.append("coordinates=\(name(c.coordinates)) (\(spec.coordinateOrder.rawValue))")
        }
        if c.wkt != nil { parts.append("wkt=\(name(c.wkt))") }
        return parts.joined(separator: " ")
    }
}
