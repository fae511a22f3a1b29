import Foundation
import RegionSearchCore

/// The engine of ``DelimitedReader``: buffering, record scanning, header and column
/// resolution, and filling ``RecordBatch``es. It is a struct so that its hot loops run on
/// local state (no reference counting, no dynamic exclusivity checks).
struct DelimitedParser {
    let spec: InputSpec
    let path: String
    var delimiter: UInt8 = 0x2C
    var hasHeader = false
    var headerFields: [String] = []
    var headerText: String?
    var expectedFieldCount = 0
    var columns = DelimitedReader.ResolvedColumns()
    // The same as plain integers (-1: none), read per record without copying `columns`.
    private var idColumn = -1
    private var nameColumn = -1
    private var keywordColumns: [Int] = []
    private var tagsColumn = -1
    private var lonColumn = -1
    private var latColumn = -1
    private var coordinatesColumn = -1
    private var wktColumn = -1
    var guessedColumns: [String] = []
    var blankLines = 0
    /// Set by ``prepareFields()``.
    private var allFields = false

    private let maxRecordBytes: Int
    private let quote: UInt16  // 0x100 when quoting is off: never equal to a byte
    private let trim: Bool
    private let order: InputSpec.CoordinateOrder
    private var splitter: KeywordSplitter
    /// Whether some missing-value marker reads as a number (then markers are checked first).
    private let numericMarkers: Bool

    /// The input: bytes buf[0..<end]; the next record starts at pos; buf[0] is at absolute
    /// offset `base` of the (decompressed) input. The window's fields go by these names below.
    private var window: ByteWindow
    private var buf: UnsafeMutablePointer<UInt8> { window.bytes }
    private var pos: Int {
        get { window.pos }
        set { window.pos = newValue }
    }
    private var end: Int { window.end }
    private var base: UInt64 { window.base }
    private var eof: Bool { window.atEOF }
    private var line: UInt64 = 1
    private var skipToLineEnd = false

    /// 1 for bytes that end an unquoted field: the delimiter, LF, CR.
    private let stops: UnsafeMutablePointer<UInt8>

    // Fields of the record being scanned: content ranges into buf and kinds.
    private var fieldStart: UnsafeMutablePointer<Int>
    private var fieldEnd: UnsafeMutablePointer<Int>
    private var fieldKind: UnsafeMutablePointer<UInt8>
    private var fieldCapacity = 64
    private var fieldCount = 0
    private static let kindPlain: UInt8 = 0
    private static let kindQuoted: UInt8 = 1
    /// The range is the raw field from its opening quote; it must be unescaped.
    private static let kindEscaped: UInt8 = 2

    // Results of the last scan.
    private var scanStart = 0
    private var scanRecordEnd = 0
    private var scanNext = 0
    private var scanLines: UInt64 = 0
    private var scanOpenQuote = -1

    /// Raw text ranges (into buf) of the records of the last batch.
    private(set) var rawStart: [Int] = []
    private(set) var rawEnd: [Int] = []

    /// Unescaped field content (heap memory, so reading it never conflicts with `self`).
    private var scratch: UnsafeMutablePointer<UInt8>
    private var scratchCapacity = 4096

    private static let initialCapacity = 1 << 20

    init(reader: ByteReader, spec: InputSpec) {
        self.init(window: ByteWindow(reader: reader, capacity: Self.initialCapacity), path: reader.path, spec: spec)
    }

    /// A parser over text already in memory.
    init(contents: [UInt8], path: String, spec: InputSpec) {
        self.init(window: ByteWindow(contents: contents), path: path, spec: spec)
    }

    private init(window: ByteWindow, path: String, spec: InputSpec) {
        self.window = window
        self.spec = spec
        self.path = path
        maxRecordBytes = spec.maxRecordBytes ?? InputSpec.defaultMaxRecordBytesDelimited
        quote = spec.quote.map { UInt16($0) } ?? 0x100
        trim = spec.trim
        order = spec.coordinateOrder
        splitter = KeywordSplitter(missingValues: spec.missingValues)
        numericMarkers = spec.missingValues.contains {
            var m = $0
            return m.withUTF8 { DecimalParser.parse($0) } != nil
        }
        stops = .allocate(capacity: 256)
        stops.initialize(repeating: 0, count: 256)
        fieldStart = .allocate(capacity: fieldCapacity)
        fieldEnd = .allocate(capacity: fieldCapacity)
        fieldKind = .allocate(capacity: fieldCapacity)
        scratch = .allocate(capacity: scratchCapacity)
    }

    /// Frees the buffers (called by the owning reader's deinit).
    func deallocate() {
        window.deallocate()
        stops.deallocate()
        fieldStart.deallocate()
        fieldEnd.deallocate()
        fieldKind.deallocate()
        scratch.deallocate()
    }

    var bytesRead: UInt64 { window.absolutePosition }

    // MARK: - Setup

    /// Reads the first record to sniff the delimiter, decide about the header and resolve
    /// the columns.
    mutating func prepare() throws {
        try prepareScanning()

        // Scan the first non-blank record without consuming it.
        var firstCount: Int?
        while true {
            skipBlankLines()
            if pos >= end && eof { break }
            if pos >= end {
                try refill()
                continue
            }
            let status = scanRecord(from: pos)
            if status == .needMore && end - pos < maxRecordBytes && !eof {
                try refill()
                continue
            }
            if status == .complete {
                if isBlankRecord {
                    blankLines += 1
                    consumeScanned()
                    continue
                }
                firstCount = fieldCount
            }
            break
        }
        guard let first = firstCount else {
            if pos >= end && eof { return }  // empty input: no records
            throw try unreadableFirstRecord()
        }
        let names = (0..<first).map { fieldString($0) }
        let header: Bool
        switch spec.header {
        case .present: header = true
        case .absent: header = false
        case .auto: header = looksLikeHeader(fieldCount: first)
        }
        expectedFieldCount = first
        if header {
            hasHeader = true
            headerFields = names
            headerText = rawText(scanStart, scanRecordEnd)
            consumeScanned()
            try resolveColumns(header: names, fieldCount: first)
        } else {
            try resolveColumns(header: nil, fieldCount: first)
        }
    }

    /// The first record, which could not be scanned (a quoted field still open after
    /// `max_record_bytes` or at the end of the input, or no line end within `max_record_bytes`),
    /// as a reject: its line, byte offset and first ``FirstRecordError/excerptBytes`` bytes, and
    /// its line's length in the reason. To measure that length it reads on to the line's end
    /// keeping nothing (the whole file was read once already, to hash it), so memory stays
    /// bounded by the window whatever the line's size.
    private mutating func unreadableFirstRecord() throws -> FirstRecordError {
        let start = pos
        let offset = base + UInt64(start)
        let raw = Self.excerpt(
            UnsafeBufferPointer(start: buf + start, count: end - start), limit: FirstRecordError.excerptBytes)
        let quoteAt = scanOpenQuote >= 0 ? base + UInt64(scanOpenQuote) : nil
        let hitLimit = end - start >= maxRecordBytes
        var length: UInt64 = 0
        var lineEnds = false
        while true {
            if let nl = memchr(buf + pos, 0x0A, end - pos) {
                length += UInt64(nl.assumingMemoryBound(to: UInt8.self) - (buf + pos))
                lineEnds = true
                break
            }
            length += UInt64(end - pos)
            pos = end
            if eof { break }
            try refill()
        }
        let reason: String
        if let quoteAt {
            reason =
                "unterminated quote: the quoted field opened at byte \(quoteAt) is not closed "
                + (hitLimit ? "within max_record_bytes (\(maxRecordBytes))" : "before the end of the input")
        } else {
            reason =
                "record too long: its line is \(groupedCount(Int(length))) bytes"
                + (lineEnds ? "" : " (no line end before the end of the input)")
                + ", more than max_record_bytes (\(maxRecordBytes))"
        }
        return .unreadable(
            path: spec.displayPath, record: RejectedRecord(line: line, byteOffset: offset, reason: reason, raw: raw))
    }

    /// Prepares for ``DelimitedFieldReader``: every field of every record is kept, whatever their
    /// number (as keyword fields whose column is the field's index); no header, no column mapping.
    mutating func prepareFields() throws {
        try prepareScanning()
        allFields = true
    }

    /// Skips a byte-order mark and settles the delimiter (given, or sniffed from the first line).
    private mutating func prepareScanning() throws {
        try refill()
        if window.startsWithByteOrderMark { pos = 3 }
        // Make sure the first line is in the buffer for sniffing.
        while !eof, memchr(buf + pos, 0x0A, end - pos) == nil, end - pos < maxRecordBytes { try refill() }
        delimiter = spec.delimiter ?? sniffDelimiter()
        // InputSpec refuses a quote equal to a delimiter given; a sniffed one is known only here
        // (`--quote ,` on a comma-separated file split every record with an empty field wrongly).
        if UInt16(delimiter) == quote {
            throw UsageError(
                "\(spec.context).quote: the quote character '\(String(UnicodeScalar(delimiter)))' is also the "
                    + "delimiter (found in the first line); give another quote character, or the delimiter")
        }
        stops[Int(delimiter)] = 1
        stops[0x0A] = 1
        stops[0x0D] = 1
    }

    /// Picks the delimiter among `,` tab `|` `;` that occurs most often, outside quotes, in the
    /// first line (ties: in that order).
    private func sniffDelimiter() -> UInt8 {
        let candidates: [UInt8] = [0x2C, 0x09, 0x7C, 0x3B]
        var counts = [Int](repeating: 0, count: 4)
        var inQuote = false
        var i = pos
        while i < end {
            let c = buf[i]
            if UInt16(c) == quote {
                inQuote.toggle()
            } else if !inQuote && (c == 0x0A || c == 0x0D) {
                break
            } else if !inQuote, let k = candidates.firstIndex(of: c) {
                counts[k] += 1
            }
            i += 1
        }
        var best = 0
        for k in 1..<4 where counts[k] > counts[best] { best = k }
        return candidates[best]
    }

    /// `header: auto`: names in the column mapping (given, or to be guessed) need a header; with
    /// only indexes, the first record is a header when its coordinate fields are text that does
    /// not read as coordinates: both of lon and lat (a record whose longitude alone is garbled,
    /// `116.4x`, is a record to reject, not a header to drop uncounted), or the one coordinates
    /// or WKT field.
    private mutating func looksLikeHeader(fieldCount: Int) -> Bool {
        let c = spec.columns
        if c.all.contains(where: { if case .name = $0.1 { return true } else { return false } }) { return true }
        if !c.hasCoordinates { return true }
        func textual(_ ref: InputSpec.ColumnRef?, _ parses: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
            guard case .index(let i)? = ref, i < fieldCount else { return false }
            let v = field(i).trimmingASCIIWhitespace()
            return !splitter.isMissing(v) && !parses(v)
        }
        let number: (UnsafeBufferPointer<UInt8>) -> Bool = { DecimalParser.parse($0) != nil }
        return (textual(c.lon, number) && textual(c.lat, number))
            || textual(c.coordinates, { Self.parsePair($0) != nil })
            || textual(c.wkt, { if case .invalid = WKTPoint.parse($0) { return false } else { return true } })
    }

    // MARK: - Column resolution

    /// Header names tried, in order, when a column is not given (compared case-insensitively).
    static let guessNames: [(key: String, names: [String])] = [
        ("id", ["id", "poi_id", "osm_id", "uid", "fid", "gid", "objectid"]),
        ("name", ["name", "title", "poi_name", "名称"]),
        ("lon", ["lon", "lng", "long", "longitude", "longitude_deg", "x"]),
        ("lat", ["lat", "latitude", "latitude_deg", "y"]),
        ("coordinates", ["coordinates", "coords", "lonlat", "location"]),
        ("wkt", ["wkt", "geometry", "geom", "the_geom"]),
        (
            "keywords",
            ["category", "categories", "rubrics", "type", "types", "kind", "class", "tags", "keywords", "amenity"]
        ),
    ]

    private mutating func resolveColumns(header: [String]?, fieldCount: Int) throws {
        let at = "\(spec.context).columns"
        let path = self.path
        // The one column of `found` (nil when none). Two columns of one name are refused: reading
        // the first would drop the other's values.
        func only(_ found: [Int], named name: String, key: String, anyCase: Bool) throws -> Int? {
            guard found.count > 1 else { return found.first }
            throw UsageError(
                "\(at).\(key): \(found.count) columns of '\(path)' are named '\(PrintableText.of(name, limit: 60))' "
                    + "(\(anyCase ? "any case; " : "")0-based indices \(found.map(String.init).joined(separator: ", "))); "
                    + "give the one to read by its index")
        }
        func resolve(_ ref: InputSpec.ColumnRef, key: String) throws -> Int {
            switch ref {
            case .index(let i):
                if i >= fieldCount {
                    throw UsageError(
                        "\(at).\(key): column index \(i) (0-based) but '\(path)' has \(fieldCount) columns")
                }
                return i
            case .name(let n):
                guard let header else {
                    throw UsageError(
                        "\(at).\(key): column '\(n)' is given by name, but '\(path)' has no header line (use a "
                            + "0-based index, or header: true)"
                    )
                }
                if let i = try only(header.indices.filter { header[$0] == n }, named: n, key: key, anyCase: false) {
                    return i
                }
                let folded = header.enumerated().filter { $0.element.lowercased() == n.lowercased() }
                if folded.count == 1 { return folded[0].offset }
                let hint =
                    closestMatch(n, in: header).map { " (did you mean '\(PrintableText.of($0, limit: 60))'?)" } ?? ""
                let list = header.prefix(40).map { "'\(PrintableText.of($0, limit: 60))'" }.joined(separator: ", ")
                throw UsageError(
                    "\(at).\(key): no column named '\(n)' in the header of '\(path)'\(hint); columns: \(list)")
            }
        }
        var guessed: [String] = []
        func guess(_ key: String) throws -> Int? {
            guard let header, let names = Self.guessNames.first(where: { $0.key == key })?.names else { return nil }
            let lowered = header.map { $0.lowercased() }
            for n in names {
                if let i = try only(lowered.indices.filter { lowered[$0] == n }, named: n, key: key, anyCase: true) {
                    guessed.append("\(key)='\(PrintableText.of(header[i], limit: 60))'")
                    return i
                }
            }
            return nil
        }
        let c = spec.columns
        var r = DelimitedReader.ResolvedColumns()
        r.id = try c.id.map { try resolve($0, key: "id") } ?? (try guess("id"))
        r.name = try c.name.map { try resolve($0, key: "name") } ?? (try guess("name"))
        r.tags = try c.tags.map { try resolve($0, key: "tags") }
        if let ks = c.keywords {
            for (i, k) in ks.enumerated() {
                r.keywords.append(
                    (
                        try resolve(k.column, key: "keywords[\(i)]"), k.split ?? spec.keywordSplit,
                        Array((k.separator ?? spec.keywordSeparator).utf8)
                    ))
            }
        } else if let i = try guess("keywords") {
            r.keywords.append((i, spec.keywordSplit, Array(spec.keywordSeparator.utf8)))
        }
        if c.hasCoordinates {
            r.lon = try c.lon.map { try resolve($0, key: "lon") }
            r.lat = try c.lat.map { try resolve($0, key: "lat") }
            r.coordinates = try c.coordinates.map { try resolve($0, key: "coordinates") }
            r.wkt = try c.wkt.map { try resolve($0, key: "wkt") }
        } else {
            let lon = try guess("lon")
            let lat = lon != nil ? try guess("lat") : nil
            if let lon, let lat {
                r.lon = lon
                r.lat = lat
            } else if let i = try guess("coordinates") {
                r.coordinates = i
            } else if let i = try guess("wkt") {
                r.wkt = i
            } else {
                let list = (header ?? []).prefix(40).map { "'\(PrintableText.of($0, limit: 60))'" }.joined(
                    separator: ", ")
                throw UsageError(
                    "\(at): cannot tell which columns of '\(path)' hold the coordinates; give columns.lon and "
                        + "columns.lat (or columns.coordinates or columns.wkt)"
                        + (header != nil ? "; columns: \(list)" : " as 0-based indexes (the file has no header line)"))
            }
        }
        columns = r
        guessedColumns = guessed
        idColumn = r.id ?? -1
        nameColumn = r.name ?? -1
        keywordColumns = r.keywords.map { $0.index }
        tagsColumn = r.tags ?? -1
        lonColumn = r.lon ?? -1
        latColumn = r.lat ?? -1
        coordinatesColumn = r.coordinates ?? -1
        wktColumn = r.wkt ?? -1
    }

    // MARK: - Buffer

    /// Drops the consumed bytes, grows the window when it is full, and reads more.
    private mutating func refill() throws { try window.refill() }

    private mutating func skipBlankLines() {
        while pos < end {
            let c = buf[pos]
            if c == 0x0A {
                pos += 1
            } else if c == 0x0D {
                if pos + 1 < end && buf[pos + 1] == 0x0A {
                    pos += 2
                } else if pos + 1 < end || eof {
                    pos += 1
                } else {
                    return
                }
            } else {
                return
            }
            line += 1
            blankLines += 1
        }
    }

    // MARK: - Scanning

    enum ScanStatus { case complete, needMore, unterminatedQuote }

    @inline(__always)
    private func isBlank(_ c: UInt8) -> Bool { c == 0x20 || (c == 0x09 && delimiter != 0x09) }

    @inline(__always)
    private static func isBlank(_ c: UInt8, tabs: Bool) -> Bool { c == 0x20 || (tabs && c == 0x09) }

    @inline(__always)
    private mutating func addField(_ start: Int, _ end: Int, _ kind: UInt8) {
        if fieldCount == fieldCapacity { growFields() }
        fieldStart[fieldCount] = start
        fieldEnd[fieldCount] = end
        fieldKind[fieldCount] = kind
        fieldCount += 1
    }

    private mutating func growFields() {
        let n = fieldCapacity * 2
        let s = UnsafeMutablePointer<Int>.allocate(capacity: n)
        let e = UnsafeMutablePointer<Int>.allocate(capacity: n)
        let k = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        s.update(from: fieldStart, count: fieldCount)
        e.update(from: fieldEnd, count: fieldCount)
        k.update(from: fieldKind, count: fieldCount)
        fieldStart.deallocate()
        fieldEnd.deallocate()
        fieldKind.deallocate()
        fieldStart = s
        fieldEnd = e
        fieldKind = k
        fieldCapacity = n
    }

    /// A record made of one empty unquoted field: an empty or blank line.
    private var isBlankRecord: Bool {
        fieldCount == 1 && fieldStart[0] == fieldEnd[0] && fieldKind[0] == Self.kindPlain
    }

    /// Splits the record starting at `start` into fields. On `.complete`, `scanRecordEnd` is the
    /// end of its last field (before the terminator) and `scanNext` the start of the next record.
    private mutating func scanRecord(from start: Int) -> ScanStatus {
        let b = buf
        let e = end
        let delim = delimiter
        let stops = self.stops
        let trim = self.trim
        let quote = self.quote
        let atEOF = eof
        let tabs = delim != 0x09
        let delimMask = UInt64(delim) &* 0x0101_0101_0101_0101
        var i = start
        var lines: UInt64 = 0
        fieldCount = 0
        scanOpenQuote = -1
        scanStart = start
        while true {
            if trim { while i < e && Self.isBlank(b[i], tabs: tabs) { i += 1 } }
            let fieldBegin = i
            var kind = Self.kindPlain
            var contentStart = i
            var contentEnd: Int
            if i < e && UInt16(b[i]) == quote {
                let q = b[i]
                scanOpenQuote = i
                i += 1
                contentStart = i
                var escaped = false
                while true {
                    while i < e && b[i] != q {
                        if b[i] == 0x0A { lines += 1 }
                        i += 1
                    }
                    if i >= e { return atEOF ? .unterminatedQuote : .needMore }
                    if i + 1 < e && b[i + 1] == q {
                        escaped = true
                        i += 2
                        continue
                    }
                    if i + 1 >= e && !atEOF { return .needMore }
                    break
                }
                contentEnd = i
                i += 1  // past the closing quote
                scanOpenQuote = -1
                var j = i
                if trim { while j < e && Self.isBlank(b[j], tabs: tabs) { j += 1 } }
                var fieldStop = i
                if j >= e || b[j] == delim || b[j] == 0x0A || b[j] == 0x0D {
                    if j >= e && !atEOF { return .needMore }
                    i = j
                    kind = escaped ? Self.kindEscaped : Self.kindQuoted
                } else {
                    // Text after the closing quote: keep it (lenient), unescape later.
                    while i < e && stops[Int(b[i])] == 0 { i += 1 }
                    if i >= e && !atEOF { return .needMore }
                    fieldStop = i
                    if trim {
                        while fieldStop > fieldBegin && Self.isBlank(b[fieldStop - 1], tabs: tabs) { fieldStop -= 1 }
                    }
                    kind = Self.kindEscaped
                }
                if kind == Self.kindEscaped {
                    contentStart = fieldBegin
                    contentEnd = fieldStop
                }
            } else {
                // Eight bytes at a time while they are in the buffer: find the first byte
                // equal to the delimiter, LF or CR (the lowest flagged byte is exact).
                while i + 8 <= e {
                    let w = UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
                    let m =
                        Self.zeroBytes(w ^ delimMask) | Self.zeroBytes(w ^ 0x0A0A_0A0A_0A0A_0A0A)
                        | Self.zeroBytes(w ^ 0x0D0D_0D0D_0D0D_0D0D)
                    if m != 0 {
                        i += m.trailingZeroBitCount >> 3
                        break
                    }
                    i += 8
                }
                while i < e && stops[Int(b[i])] == 0 { i += 1 }
                if i >= e && !atEOF { return .needMore }
                contentEnd = i
                if trim {
                    while contentEnd > contentStart && Self.isBlank(b[contentEnd - 1], tabs: tabs) { contentEnd -= 1 }
                }
            }
            addField(contentStart, contentEnd, kind)
            if i >= e {
                scanRecordEnd = i
                scanNext = i
                scanLines = lines + 1
                return .complete
            }
            let c = b[i]
            if c == delim {
                i += 1
                continue
            }
            scanRecordEnd = i
            if c == 0x0D {
                if i + 1 < e {
                    scanNext = b[i + 1] == 0x0A ? i + 2 : i + 1
                } else if atEOF {
                    scanNext = i + 1
                } else {
                    return .needMore
                }
            } else {
                scanNext = i + 1
            }
            scanLines = lines + 1
            return .complete
        }
    }

    /// High bit set in each byte of `w` that is zero (exact for the lowest such byte).
    @inline(__always)
    private static func zeroBytes(_ w: UInt64) -> UInt64 {
        (w &- 0x0101_0101_0101_0101) & ~w & 0x8080_8080_8080_8080
    }

    private mutating func consumeScanned() {
        pos = scanNext
        line += scanLines
    }

    // MARK: - Fields

    /// The content of field `i` (unescaped into `scratch` when needed; valid until the next
    /// call for an escaped field).
    @inline(__always)
    private mutating func field(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        let s = fieldStart[i]
        let e = fieldEnd[i]
        if fieldKind[i] != Self.kindEscaped { return UnsafeBufferPointer(start: buf + s, count: e - s) }
        return unescape(s, e)
    }

    /// Unescapes a raw quoted field `"..""..."tail` into `scratch`.
    private mutating func unescape(_ s: Int, _ e: Int) -> UnsafeBufferPointer<UInt8> {
        if e - s > scratchCapacity {
            scratch.deallocate()
            scratchCapacity = max(e - s, scratchCapacity * 2)
            scratch = .allocate(capacity: scratchCapacity)
        }
        let q = UInt8(truncatingIfNeeded: quote)
        var n = 0
        var i = s
        var inQuote = false
        var opened = false
        while i < e {
            let c = buf[i]
            if c == q && quote < 0x100 {
                if !opened {
                    opened = true
                    inQuote = true
                } else if inQuote {
                    if i + 1 < e && buf[i + 1] == q {
                        scratch[n] = q
                        n += 1
                        i += 1
                    } else {
                        inQuote = false
                    }
                } else {
                    scratch[n] = c
                    n += 1
                }
            } else {
                scratch[n] = c
                n += 1
            }
            i += 1
        }
        return UnsafeBufferPointer(start: scratch, count: n)
    }

    private mutating func fieldString(_ i: Int) -> String {
        String(decoding: field(i).trimmingASCIIWhitespace(), as: UTF8.self)
    }

    /// A reference to field `i`'s content for the batch: into the chunk copy, or into `extra`
    /// for an unescaped field.
    @inline(__always)
    private mutating func fieldRef(_ i: Int, _ batch: inout RecordBatch) -> RecordBatch.FieldRef {
        let s = fieldStart[i]
        let e = fieldEnd[i]
        if fieldKind[i] != Self.kindEscaped {
            return RecordBatch.FieldRef(start: Int32(s - chunkStart), end: Int32(e - chunkStart))
        }
        return batch.addExtra(unescape(s, e))
    }

    /// A reference to field `i` trimmed (empty when it is a missing-value marker) and, when
    /// asked, the hash of its bytes (for the id table, computed on the reading thread).
    @inline(__always)
    private mutating func valueRef(_ i: Int, _ batch: inout RecordBatch, hash: Bool) -> (RecordBatch.FieldRef, UInt64) {
        let v = field(i).trimmingASCIIWhitespace()
        if splitter.isMissing(v) { return (.empty, 0) }
        let h = hash ? ShortHash.hash(v) : 0
        if fieldKind[i] != Self.kindEscaped {
            let s = v.baseAddress! - UnsafePointer(buf) - chunkStart
            return (RecordBatch.FieldRef(start: Int32(s), end: Int32(s + v.count)), h)
        }
        return (batch.addExtra(v), h)
    }

    // MARK: - Coordinates

    /// Reads lon/lat from the mapped coordinate fields. NaN marks a missing or unreadable
    /// value; the text of unreadable ones is returned for the reject reason.
    private mutating func readCoordinates() -> (Double, Double, String?) {
        if lonColumn >= 0 && latColumn >= 0 {
            let lonField = lonColumn
            let latField = latColumn
            var lon = Double.nan
            var lat = Double.nan
            var bad: String?
            // Numbers first (unless a marker is a number, like -999): most fields then skip
            // the marker check.
            let lv = field(lonField).trimmingASCIIWhitespace()
            if !(numericMarkers && splitter.isMissing(lv)) {
                if let d = DecimalParser.parse(lv) {
                    lon = d
                } else if !splitter.isMissing(lv) {
                    bad = "lon=\"\(Self.excerpt(lv))\""
                }
            }
            let av = field(latField).trimmingASCIIWhitespace()
            if !(numericMarkers && splitter.isMissing(av)) {
                if let d = DecimalParser.parse(av) {
                    lat = d
                } else if !splitter.isMissing(av) {
                    bad = (bad.map { $0 + " " } ?? "") + "lat=\"\(Self.excerpt(av))\""
                }
            }
            return (lon, lat, bad)
        }
        if coordinatesColumn >= 0 {
            let v = field(coordinatesColumn).trimmingASCIIWhitespace()
            if splitter.isMissing(v) { return (.nan, .nan, nil) }
            guard let (x, y) = Self.parsePair(v) else { return (.nan, .nan, "coordinates=\"\(Self.excerpt(v))\"") }
            return order == .lonLat ? (x, y, nil) : (y, x, nil)
        }
        if wktColumn >= 0 {
            let v = field(wktColumn).trimmingASCIIWhitespace()
            if splitter.isMissing(v) { return (.nan, .nan, nil) }
            switch WKTPoint.parse(v) {
            case .point(let x, let y): return (x, y, nil)
            case .empty: return (.nan, .nan, nil)
            case .invalid: return (.nan, .nan, "wkt=\"\(Self.excerpt(v))\"")
            }
        }
        return (.nan, .nan, nil)
    }

    static func excerpt(_ v: UnsafeBufferPointer<UInt8>, limit: Int = 60) -> String {
        if v.count <= limit { return String(decoding: v, as: UTF8.self) }
        var cut = limit
        while cut > 0 && v[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: v[0..<cut]), as: UTF8.self) + "…"
    }

    /// Two numbers separated by a comma, semicolon or blanks, optionally in brackets:
    /// `120.1,30.2`, `120.1 30.2`, `[120.1, 30.2]`, `(120.1;30.2)`.
    static func parsePair(_ v: UnsafeBufferPointer<UInt8>) -> (Double, Double)? {
        var lo = 0
        var hi = v.count
        if hi >= 2,
            (v[0] == UInt8(ascii: "[") && v[hi - 1] == UInt8(ascii: "]"))
                || (v[0] == UInt8(ascii: "(") && v[hi - 1] == UInt8(ascii: ")"))
        {
            lo = 1
            hi -= 1
        }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
        while lo < hi && isSpace(v[lo]) { lo += 1 }
        var i = lo
        while i < hi && !isSpace(v[i]) && v[i] != UInt8(ascii: ",") && v[i] != UInt8(ascii: ";") { i += 1 }
        guard let a = DecimalParser.parse(UnsafeBufferPointer(rebasing: v[lo..<i])) else { return nil }
        while i < hi && isSpace(v[i]) { i += 1 }
        if i < hi && (v[i] == UInt8(ascii: ",") || v[i] == UInt8(ascii: ";")) { i += 1 }
        while i < hi && isSpace(v[i]) { i += 1 }
        var j = hi
        while j > i && isSpace(v[j - 1]) { j -= 1 }
        guard i < j, let b = DecimalParser.parse(UnsafeBufferPointer(rebasing: v[i..<j])) else { return nil }
        return (a, b)
    }

    // MARK: - Batches

    /// Fills `batch` with up to `limit` records. A batch only holds records that are entirely
    /// in the buffer, so their raw text stays available until the next call; the buffer is
    /// refilled only while the batch is still empty. Returns false at the end of the input.
    mutating func fill(_ batch: inout RecordBatch, limit: Int) throws -> Bool {
        batch.removeAll()
        rawStart.removeAll(keepingCapacity: true)
        rawEnd.removeAll(keepingCapacity: true)
        chunkStart = -1
        while batch.count < limit && (chunkStart < 0 || pos - chunkStart < Self.chunkBytes) {
            if skipToLineEnd {
                if let nl = memchr(buf + pos, 0x0A, end - pos) {
                    pos = nl.assumingMemoryBound(to: UInt8.self) - buf + 1
                    skipToLineEnd = false
                    continue
                }
                pos = end
                if eof { break }
                if batch.count > 0 { break }
                try refill()
                chunkStart = -1
                continue
            }
            skipBlankLines()
            if pos >= end {
                if eof || batch.count > 0 { break }
                try refill()
                chunkStart = -1
                continue
            }
            if chunkStart < 0 { chunkStart = pos }
            switch scanRecord(from: pos) {
            case .needMore:
                if batch.count > 0 { break }
                if end - pos >= maxRecordBytes {
                    rejectOverlong(&batch)
                    continue
                }
                try refill()
                chunkStart = -1
            case .unterminatedQuote:
                rejectUnterminatedQuote(&batch)
                continue
            case .complete:
                if isBlankRecord {
                    blankLines += 1
                    consumeScanned()
                    continue
                }
                makeRecord(&batch)
                continue
            }
            if batch.count > 0 { break }  // .needMore with records in the batch
        }
        if chunkStart >= 0 && pos > chunkStart {
            batch.text.append(contentsOf: UnsafeBufferPointer(start: buf + chunkStart, count: pos - chunkStart))
        }
        return batch.count > 0
    }

    /// A batch covers at most about this many input bytes.
    private static let chunkBytes = 1 << 18
    /// Where the records of the current batch start in `buf` (-1 before the first).
    private var chunkStart = -1

    /// The input text `buf[s..<e]`.
    func rawText(_ s: Int, _ e: Int) -> String { window.text(from: s, to: e) }

    private mutating func reject(
        _ batch: inout RecordBatch, start: Int, end: Int, line: UInt64, reason: String, raw: String? = nil
    ) {
        rawStart.append(start)
        rawEnd.append(end)
        batch.append(
            rejected: RejectedRecord(
                line: line, byteOffset: base + UInt64(start), reason: reason, raw: raw ?? rawText(start, end)))
    }

    /// A quoted field never closed: reject from the record start to the end of the line that
    /// holds the opening quote, and resume after it.
    private mutating func rejectUnterminatedQuote(_ batch: inout RecordBatch) {
        let start = pos
        let q = max(scanOpenQuote, pos)
        var lineEnd = q
        while lineEnd < end && buf[lineEnd] != 0x0A && buf[lineEnd] != 0x0D { lineEnd += 1 }
        let newlines = window.newlines(from: start, to: lineEnd)
        reject(
            &batch, start: start, end: lineEnd, line: line,
            reason: "unterminated quote: the quoted field opened at byte \(base + UInt64(q)) is not closed")
        line += newlines + 1
        if lineEnd < end {
            pos = lineEnd + 1
            if buf[lineEnd] == 0x0D && pos < end && buf[pos] == 0x0A { pos += 1 }
        } else {
            pos = end
            skipToLineEnd = !eof  // the line goes on in the next chunk
        }
    }

    /// A record whose quoted field runs over line ends and leaves it with the wrong column count:
    /// most likely a stray quote (`"Joe's 5,…` never closed), which joined every line up to the
    /// next quote into one record. Taken whole, thousands of good records would be lost as one
    /// reject; so the line holding the opening quote (the record's first line: a line end outside
    /// quotes ends a record) is rejected alone and reading resumes on the next line, where the
    /// joined lines are read as records again.
    private mutating func rejectRunawayQuote(_ batch: inout RecordBatch) {
        let start = pos
        // The first line feed (the record holds one: it runs over lines); a carriage return inside
        // the quoted field is its text, one just before the line feed the line's end.
        var lineEnd = start
        while buf[lineEnd] != 0x0A { lineEnd += 1 }
        let textEnd = lineEnd > start && buf[lineEnd - 1] == 0x0D ? lineEnd - 1 : lineEnd
        reject(
            &batch, start: start, end: textEnd, line: line,
            reason: "unterminated quote: a quoted field opens on this line and is closed only \(scanLines - 1) "
                + "line(s) later, leaving \(fieldCount) columns where \(expectedFieldCount) are expected; "
                + "the line is rejected and reading goes on at the next")
        line += 1
        pos = lineEnd + 1
    }

    /// A record longer than `max_record_bytes`.
    private mutating func rejectOverlong(_ batch: inout RecordBatch) {
        if scanOpenQuote >= 0 {
            rejectUnterminatedQuote(&batch)
            return
        }
        let start = pos
        let shown = min(end, start + 1000)
        reject(
            &batch, start: start, end: shown, line: line,
            reason: "record too long: more than max_record_bytes (\(maxRecordBytes)); its first 1000 bytes kept here",
            raw: Self.excerpt(UnsafeBufferPointer(start: buf + start, count: end - start), limit: 1000))
        line += 1
        pos = end
        skipToLineEnd = true
    }

    private mutating func makeRecord(_ batch: inout RecordBatch) {
        if fieldCount != expectedFieldCount && !allFields && scanLines > 1 {
            rejectRunawayQuote(&batch)
            return
        }
        let start = pos
        let recordEnd = scanRecordEnd
        let recordLine = line
        consumeScanned()
        let offset = base + UInt64(start)
        if let bad = UTF8Check.firstInvalid(buf + start, count: recordEnd - start) {
            reject(
                &batch, start: start, end: recordEnd, line: recordLine,
                reason: "invalid UTF-8: first bad byte at offset \(offset + UInt64(bad))")
            return
        }
        if fieldCount != expectedFieldCount && !allFields {
            reject(
                &batch, start: start, end: recordEnd, line: recordLine,
                reason: "wrong column count: \(fieldCount), expected \(expectedFieldCount)")
            return
        }
        rawStart.append(start)
        rawEnd.append(recordEnd)
        let (id, idHash) = idColumn >= 0 ? valueRef(idColumn, &batch, hash: true) : (.empty, 0)
        let name = nameColumn >= 0 ? valueRef(nameColumn, &batch, hash: false).0 : .empty
        if allFields {
            for i in 0..<fieldCount {
                batch.keywordFields.append(RecordBatch.KeywordField(ref: fieldRef(i, &batch), column: Int32(i)))
            }
        } else {
            for c in 0..<keywordColumns.count {
                batch.keywordFields.append(
                    RecordBatch.KeywordField(ref: fieldRef(keywordColumns[c], &batch), column: Int32(c)))
            }
        }
        let tags = tagsColumn >= 0 ? fieldRef(tagsColumn, &batch) : .empty
        let (lon, lat, bad) = readCoordinates()
        if let bad { batch.coordinateTexts.append((batch.count, bad)) }
        batch.entries.append(
            RecordBatch.Entry(
                id: id, name: name, idHash: idHash, keywordEnd: Int32(batch.keywordFields.count), rejectSlot: -1,
                lon: lon, lat: lat,
                line: recordLine, byteOffset: offset, tags: tags))
    }
}
