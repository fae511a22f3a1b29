import RegionSearchCore

/// Writes rejected records, in the format family of the inputs, atomically.
///
/// - Delimited text (when every input is delimited text with the same delimiter and the same
///   header line, or all without one): one line per reject with the leading fields
///   `source_file`, `line`, `byte_offset`, `reason` (quoted RFC 4180-style when needed), then
///   the record exactly as in the input — or, when it would leave a quote open (an unterminated
///   quoted field, a record cut to its first 1,000 bytes), as one quoted field, so the file
///   reads back record by record. A header line `source_file,line,byte_offset,reason,`
///   followed by the input's header line (or `record` without one) precedes the first reject.
/// - Otherwise (GeoJSON, OSM, or inputs of mixed kinds): newline-delimited JSON, one object
///   `{"source_file","line","byte_offset","reason","raw"}` per reject.
///
/// The file is always written, and is empty when nothing was rejected.
///
/// **Cap.** A small input can hold millions of bad lines (a 40 KB gzip of 20 M one-byte lines
/// wrote a 1.4 GB file, each reject copied with its location and reason), so the file holds at
/// most ``maxRows`` rejects and ``maxBytes`` bytes: whole lines, in input order; a reject that does
/// not fit is not written but counted (``notWritten``) like every other, and the stage reports
/// both numbers. The counts in the POI table's metadata and the reject-ratio check see every
/// reject.
public final class RejectsWriter {
    /// At most this many rejects are written.
    public static let maxRows = 100_000
    /// The rejects file stays within this many bytes (64 MiB).
    public static let maxBytes = 64 << 20
    public enum Style: Equatable {
        case delimited(delimiter: UInt8, header: String?)
        case ndjson
    }

    public let path: String
    public let style: Style
    /// Rejects written to the file.
    public private(set) var count = 0
    /// Rejects counted but not written, once a cap was reached.
    public private(set) var notWritten = 0
    private var bytes = 0
    private let rowLimit: Int
    private let byteLimit: Int
    private let file: AtomicFile
    private var line: [UInt8] = []

    /// `maxRows` and `maxBytes` default to the caps (tests give smaller ones).
    public init(
        path: String, style: Style, maxRows: Int = RejectsWriter.maxRows, maxBytes: Int = RejectsWriter.maxBytes
    )
        throws
    {
        self.path = path
        self.style = style
        rowLimit = maxRows
        byteLimit = maxBytes
        file = try AtomicFile(path: path)
    }

    /// The style for a set of inputs (see the type's documentation).
    public static func style(for inputs: [OpenedInput]) -> Style {
        guard let first = inputs.first, first.family == .delimited, let d = first.delimiter else { return .ndjson }
        for i in inputs where i.family != .delimited || i.delimiter != d || i.headerText != first.headerText {
            return .ndjson
        }
        return .delimited(delimiter: d, header: first.headerText)
    }

    public func write(sourceFile: String, _ r: RejectedRecord) throws {
        if count >= rowLimit || bytes >= byteLimit {
            notWritten += 1
            return
        }
        line.removeAll(keepingCapacity: true)
        switch style {
        case .delimited(let d, let header):
            if count == 0 {
                for f in ["source_file", "line", "byte_offset", "reason"] {
                    line.append(contentsOf: f.utf8)
                    line.append(d)
                }
                line.append(contentsOf: (header ?? "record").utf8)
                line.append(0x0A)
            }
            appendField(sourceFile, delimiter: d)
            line.append(d)
            line.append(contentsOf: String(r.line).utf8)
            line.append(d)
            line.append(contentsOf: String(r.byteOffset).utf8)
            line.append(d)
            appendField(r.reason, delimiter: d)
            line.append(d)
            if Self.readsBack(r.raw) {
                line.append(contentsOf: r.raw.utf8)
            } else {
                // An open quote (an unterminated quoted field, or a record cut to its excerpt)
                // would swallow the next rejects as one field: kept whole as one quoted field.
                appendField(r.raw, delimiter: d, always: true)
            }
            line.append(0x0A)
        case .ndjson:
            let object = JSONValue.object([
                ("source_file", .string(sourceFile)), ("line", .number(Double(r.line))),
                ("byte_offset", .number(Double(r.byteOffset))), ("reason", .string(r.reason)), ("raw", .string(r.raw)),
            ])
            line.append(contentsOf: object.serialized().utf8)
            line.append(0x0A)
        }
        guard bytes + line.count <= byteLimit else {
            notWritten += 1
            return
        }
        try file.write(line)
        bytes += line.count
        count += 1
    }

    /// "rejects: 100,000 written to PATH (the cap; 20,871,520 more counted, not written)".
    public var report: String {
        var s = "rejects: \(groupedCount(count)) written to \(path)"
        if notWritten > 0 {
            s +=
                " — the file's cap (\(groupedCount(rowLimit)) rejects, \(byteLimit >> 20) MiB) was reached; "
                + "\(groupedCount(notWritten)) more counted, not written"
        }
        return s
    }

    /// Whether a record's text, written as it is, ends where it ends when read back: no quote
    /// left open (RFC 4180 `"`, the default quote) and no line break outside quotes.
    static func readsBack(_ raw: String) -> Bool {
        var inQuote = false
        for b in raw.utf8 {
            if b == 0x22 {
                inQuote.toggle()
            } else if !inQuote && (b == 0x0A || b == 0x0D) {
                return false
            }
        }
        return !inQuote
    }

    /// Quotes a field when it holds the delimiter, a quote, a line break or edge blanks (or
    /// `always`).
    private func appendField(_ s: String, delimiter: UInt8, always: Bool = false) {
        let bytes = Array(s.utf8)
        let needsQuotes =
            always || bytes.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
            || bytes.first == 0x20 || bytes.last == 0x20
        if !needsQuotes {
            line.append(contentsOf: bytes)
            return
        }
        line.append(0x22)
        for b in bytes {
            if b == 0x22 { line.append(0x22) }
            line.append(b)
        }
        line.append(0x22)
    }

    /// Makes the file visible under its name.
    public func commit() throws { try file.commit() }

    /// Drops the temporary file (on failure before anything was decided).
    public func discard() { file.discard() }
}
