/// Reads delimited text as plain records of text fields, with ``DelimitedReader``'s tokenizer
/// (RFC 4180 quoting with doubled quotes and line breaks inside quotes, LF, CRLF or lone CR
/// record ends, a UTF-8 byte-order mark skipped, empty lines skipped) but without its POI column
/// mapping: for files that are not POIs, such as the evaluator's planted-members file.
///
/// Fields are returned as they are (not trimmed); records may have any number of fields. A
/// record that is not valid UTF-8, or whose quoted field is never closed, comes back as a
/// rejection (reading goes on after it, as in ``DelimitedReader``).
public final class DelimitedFieldReader {
    public enum Record {
        /// The fields of a record and the line it starts on.
        case fields(line: UInt64, [String])
        case rejected(RejectedRecord)
    }

    private var parser: DelimitedParser
    private var batch = RecordBatch()
    private var cursor = 0

    /// Reads text already in memory; `path` names it in rejections.
    public convenience init(contents: [UInt8], path: String, delimiter: UInt8 = 0x2C, quote: UInt8? = 0x22) throws {
        self.init(parser: DelimitedParser(contents: contents, path: path, spec: Self.spec(path, delimiter, quote)))
        try parser.prepareFields()
    }

    /// Streams a file (gzip recognised by its magic bytes).
    public convenience init(reader: ByteReader, delimiter: UInt8 = 0x2C, quote: UInt8? = 0x22) throws {
        self.init(parser: DelimitedParser(reader: reader, spec: Self.spec(reader.path, delimiter, quote)))
        try parser.prepareFields()
    }

    private init(parser: DelimitedParser) { self.parser = parser }

    deinit { parser.deallocate() }

    private static func spec(_ path: String, _ delimiter: UInt8, _ quote: UInt8?) -> InputSpec {
        var spec = InputSpec(path: path)
        spec.delimiter = delimiter
        spec.quote = quote
        spec.trim = false
        spec.missingValues = []
        return spec
    }

    /// The next record, or nil at the end of the input.
    public func next() throws -> Record? {
        if cursor == batch.count {
            guard try parser.fill(&batch, limit: 4096) else { return nil }
            cursor = 0
        }
        let k = cursor
        cursor += 1
        let e = batch.entries[k]
        if e.rejectSlot >= 0 { return .rejected(batch.rejected[Int(e.rejectSlot)]) }
        let fields = batch.withBytes { f in
            batch.keywordRange(k).map { String(decoding: f[batch.keywordFields[$0].ref], as: UTF8.self) }
        }
        return .fields(line: e.line, fields)
    }
}
