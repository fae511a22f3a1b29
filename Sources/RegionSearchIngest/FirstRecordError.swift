import RegionSearchCore

/// Delimited text whose first record cannot be read: a line longer than `max_record_bytes` with
/// no line end (a minified blob or binary text given as CSV), or a quote that is never closed.
/// Neither a header nor the columns can be known from it, so the input is refused (exit status
/// 3); but the record is a reject like every other, so it is not lost with the message: the
/// reader hands it over (``unreadable(path:record:)``: its line, byte offset, length and first
/// ``excerptBytes`` bytes), and the ingest stage writes it to the rejects file, counts it and
/// throws ``kept(path:record:rejects:)``, which says where it is.
public enum FirstRecordError: Error, CustomStringConvertible, ExitCoded {
    /// The reader's refusal; the record is not written anywhere yet.
    case unreadable(path: String, record: RejectedRecord)
    /// The same refusal once the record is in the rejects file `rejects`.
    case kept(path: String, record: RejectedRecord, rejects: String)

    /// The bytes of the record a reject keeps (a bounded excerpt: the record may be gigabytes).
    public static let excerptBytes = 1000

    /// The input (as displayed: a connection string's password masked).
    public var path: String {
        switch self {
        case .unreadable(let path, _), .kept(let path, _, _): return path
        }
    }

    /// The rejected first record.
    public var record: RejectedRecord {
        switch self {
        case .unreadable(_, let record), .kept(_, let record, _): return record
        }
    }

    public var description: String {
        let r = record
        var text = "\(path): cannot read the first record (line \(r.line), byte \(r.byteOffset)): \(r.reason). "
        if case .kept(_, _, let rejects) = self {
            text +=
                "The record is kept in \(rejects) (its line, byte offset and first "
                + "\(groupedCount(Self.excerptBytes)) bytes) and counted as rejected; nothing after it was read. "
        }
        if r.reason.hasPrefix("unterminated quote") {
            return text
                + "Close the quote in the file, or read it without quoting (\"quote\": \"\"); raise max_record_bytes "
                + "if a quoted field really is that long"
        }
        return text
            + "Is the file a binary or a minified blob rather than delimited text? Give the right file or its "
            + "\"format\", or raise max_record_bytes (at most 1 GiB) if its records really are this long"
    }

    public var exitStatus: ExitStatus { .inputData }
}
