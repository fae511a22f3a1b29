import RegionSearchCore

/// Writes rejected records, in the format family of the inputs, atomically.
///
/// - Delimited text (when every input is delimited text with the same delimiter and the same
///   header line, or all without one): one line per reject with the leading fields
///   `source_file`, `line`, `byte_offset`, `reason` (quoted RFC 4180-style when needed), then
///   the record exactly as in the input. A header line `source_file,line,byte_offset,reason,`
///   followed by the input's header line (or `record` without one) precedes the first reject.
/// - Otherwise (GeoJSON, OSM, or inputs of mixed kinds): newline-delimited JSON, one object
///   `{"source_file","line","byte_offset","reason","raw"}` per reject.
///
/// The file is always written, and is empty when nothing was rejected.
public final class RejectsWriter {
    public enum Style: Equatable {
        case delimited(delimiter: UInt8, header: String?)
        case ndjson
    }

    public let path: String
    public let style: Style
    public private(set) var count = 0
    private let file: AtomicFile
    private var line: [UInt8] = []

    public init(path: String, style: Style) throws {
        self.path = path
        self.style = style
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
            line.append(contentsOf: r.raw.utf8)
            line.append(0x0A)
        case .ndjson:
            let object = JSONValue.object([
                ("source_file", .string(sourceFile)), ("line", .number(Double(r.line))),
                ("byte_offset", .number(Double(r.byteOffset))), ("reason", .string(r.reason)), ("raw", .string(r.raw)),
            ])
            line.append(contentsOf: object.serialized().utf8)
            line.append(0x0A)
        }
        try file.write(line)
        count += 1
    }

    /// Quotes a field when it holds the delimiter, a quote, a line break or edge blanks.
    private func appendField(_ s: String, delimiter: UInt8) {
        let bytes = Array(s.utf8)
        let needsQuotes =
            bytes.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
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
