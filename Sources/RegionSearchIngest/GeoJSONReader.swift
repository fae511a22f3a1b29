import Foundation
import RegionSearchCore

/// Streams features from GeoJSON: a FeatureCollection (read feature by feature, never whole), a
/// top-level array of features, a single Feature, GeoJSON text sequences (RFC 8142, each text
/// after an RS byte) and newline-delimited GeoJSON (one feature per line). These are one reader:
/// the input is read as a series of top-level JSON values, and each value is a collection
/// (whose `features` array is streamed), an array of features, or a feature.
///
/// Each feature becomes a record: its geometry gives the point (see ``RepresentativePoint``),
/// its properties the name and keywords (see ``InputSpec/Columns``: property names; the id
/// defaults to the feature's `id` member, then to the `id` property). A feature that is not
/// valid JSON, not a Feature, or whose geometry has no usable point is rejected with its text.
///
/// Malformed input outside features: at the top level, the text up to the end of the line is
/// rejected and reading resumes on the next line (so a truncated line of newline-delimited
/// GeoJSON costs one record); a text cut short by an RS byte is rejected up to the RS; a broken
/// FeatureCollection envelope (after its features began) stops the file with an error that
/// gives the line. Once it has resynchronised at a line end, a file without RS bytes is read as
/// newline-delimited: a top-level object must end on the line where it starts (each broken line
/// costs its own length, not a rescan of the rest of the file).
public final class GeoJSONReader: RecordSource, RecordSourceDiagnostics {
    public let path: String
    public let spec: InputSpec
    /// Top-level values read, by kind, for the log ("1 FeatureCollection", "1200 Features").
    private(set) var collectionsSeen = 0
    private(set) var topLevelFeatures = 0
    /// Non-fatal oddities (a `crs` member naming another CRS), for the log.
    private var oddities: [String] = []
    /// Oddities, and each property named in `columns` that no feature has (a misspelt name).
    var warnings: [String] {
        var out = oddities
        guard featuresRead > 0 else { return out }
        for (role, key) in namedProperties where !seenProperties.contains(key) {
            let seen = propertySample.isEmpty ? "" : "; properties seen: " + propertySample.joined(separator: ", ")
            out.append(
                "columns.\(role) names the property \"\(key)\", which no feature has (check its spelling)\(seen)")
        }
        return out
    }
    /// Properties named in the spec's columns: (column role, property name).
    private let namedProperties: [(String, String)]
    private var seenProperties: Set<String> = []
    private var propertySample: [String] = []
    private var featuresRead = 0

    private let maxRecordBytes: Int
    private var splitter: KeywordSplitter
    private let idKey: String?
    private let nameKey: String
    private let keywordKeys: [(key: String, split: InputSpec.KeywordSplit, separator: [UInt8])]?
    private let guessedKeywordKeys: [String]
    private let separator: [UInt8]

    /// The input; its fields go by these names below.
    private var window: ByteWindow
    private var buf: UnsafeMutablePointer<UInt8> { window.bytes }
    private var base: UInt64 { window.base }
    private var pos: Int {
        get { window.pos }
        set { window.pos = newValue }
    }
    private var end: Int { window.end }
    private var eof: Bool { window.atEOF }
    /// Bytes from this absolute offset on are kept in the buffer on refills.
    private var keepAbs: UInt64 = 0
    private var countedAbs: UInt64 = 0
    private var countedLine: UInt64 = 1

    private enum State { case top, members, array, finished }
    private var state = State.top
    private var objectStartAbs: UInt64 = 0
    private var objectLine: UInt64 = 1
    private var members: [(String, JSONValue)] = []
    /// The geometry of the top-level object being read, when it took the fast path.
    private var objectShape: RepresentativePoint.Shape?
    /// Stands for a geometry read as a shape in a feature's members.
    static let shapePlaceholder = JSONValue.object([("type", .string("(read as positions)"))])
    private var firstMember = true
    private var sawFeatures = false
    private var arrayInObject = false
    private var firstElement = true

    private var lastStartAbs: UInt64 = 0
    private var lastEndAbs: UInt64 = 0
    /// Set once the reader has resynchronised at a line end after a malformed top-level value
    /// in a file without RS bytes: from then on the file is read as newline-delimited GeoJSON,
    /// and a top-level object's members must end on the line where they start. Without this,
    /// a file whose every line leaves a `[` open would rescan the rest of the file for each
    /// line (quadratic: a 56 MB file took minutes).
    private var lineDelimited = false
    /// An RS byte was seen between top-level values: RS, not lines, delimits the texts.
    private var sawRecordSeparator = false
    /// Bytes given to the extent scanner (tests check that it stays linear in the input).
    private(set) var scannedBytes: UInt64 = 0

    public init(reader: ByteReader, spec: InputSpec) throws {
        window = ByteWindow(reader: reader, capacity: 1 << 20)
        self.spec = spec
        path = reader.path
        maxRecordBytes = spec.maxRecordBytes ?? InputSpec.defaultMaxRecordBytesGeoJSON
        splitter = KeywordSplitter(missingValues: spec.missingValues)
        func key(_ ref: InputSpec.ColumnRef?) -> String? {
            if case .name(let n)? = ref { return n }
            return nil
        }
        idKey = key(spec.columns.id)
        nameKey = key(spec.columns.name) ?? "name"
        keywordKeys = spec.columns.keywords.map { cols in
            cols.compactMap { k in
                key(k.column).map {
                    ($0, k.split ?? spec.keywordSplit, Array((k.separator ?? spec.keywordSeparator).utf8))
                }
            }
        }
        guessedKeywordKeys = DelimitedParser.guessNames.first { $0.key == "keywords" }!.names
        var named: [(String, String)] = []
        if let k = key(spec.columns.id) { named.append(("id", k)) }
        if let k = key(spec.columns.name) { named.append(("name", k)) }
        for k in keywordKeys ?? [] where !named.contains(where: { $0.1 == k.key }) { named.append(("keywords", k.key)) }
        namedProperties = named
        separator = Array(spec.keywordSeparator.utf8)
    }

    deinit { window.deallocate() }

    public var bytesRead: UInt64 { window.absolutePosition }

    private var absPos: UInt64 { window.absolutePosition }

    // MARK: - Buffer

    /// Drops the bytes before `keepAbs` (counting their lines first), grows the window when it
    /// is full, and reads more; a byte-order mark at the start of the input is skipped.
    private func refill() throws {
        if eof { return }
        let keep = Int(min(keepAbs, absPos) - base)
        if keep > 0 { lineNumber(at: base + UInt64(keep)) }  // count lines in the bytes about to go
        let n: Int
        do {
            // On a copy: an access to `window` that lasts through the read would cost every
            // other access to it a dynamic exclusivity check.
            var w = window
            defer { window = w }
            n = try w.refill(keepingFrom: keep)
        }
        if n > 0 && pos == 0 && window.startsWithByteOrderMark { pos = 3 }
    }

    /// Whether at least one byte is available at `pos`.
    private func have() throws -> Bool {
        while pos >= end {
            if eof { return false }
            try refill()
        }
        return true
    }

    /// Skips JSON white space (and, at the top level, RS bytes).
    private func skipSpace(recordSeparators: Bool) throws {
        while try have() {
            let c = buf[pos]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || (recordSeparators && c == 0x1E) {
                if c == 0x1E { sawRecordSeparator = true }
                pos += 1
            } else {
                return
            }
        }
    }

    /// The 1-based line of an absolute offset (offsets must be asked in increasing order).
    @discardableResult
    private func lineNumber(at a: UInt64) -> UInt64 {
        if a > countedAbs {
            countedLine += window.newlines(from: Int(countedAbs - base), to: Int(a - base))
            countedAbs = a
        }
        return countedLine
    }

    private func text(_ from: UInt64, _ to: UInt64) -> String {
        window.text(from: Int(from - base), to: Int(to - base))
    }

    // MARK: - Values

    private enum ValueProblem: Error {
        /// The value's extent is known but it is not valid JSON.
        case bad(reason: String, end: UInt64)
        /// The input ended inside the value.
        case truncated
        /// An RS byte cut the value short at this offset.
        case interrupted(at: UInt64)
        /// No JSON value starts here.
        case notAValue
    }

    /// Finds the extent of the value at `pos` and parses it; advances past it.
    /// How the bytes of a value are parsed once its extent is known.
    private enum ParseMode {
        /// As JSON.
        case plain
        /// A feature: a geometry object is read straight into a shape (``FeatureBytes``).
        case feature
        /// A geometry object read straight into a shape (``GeometryBytes``).
        case geometry
    }

    /// Features and geometries at least this long are read with their geometry as positions.
    static let positionsThreshold = 1 << 16

    /// The shape of the last value read in mode `.feature` or `.geometry`, when its geometry
    /// took the fast path (the JSON value then lacks it).
    private var parsedShape: RepresentativePoint.Shape?

    private func readValue(_ mode: ParseMode = .plain) throws -> Result<JSONValue, ValueProblem> {
        let startAbs = absPos
        let savedKeep = keepAbs
        keepAbs = min(keepAbs, startAbs)
        defer { keepAbs = savedKeep }
        var scanner = JSONExtentScanner()
        var from = pos
        // A member of a top-level object (not a collection's envelope) in a file read as lines.
        let bounded = lineDelimited && !sawRecordSeparator && state == .members && !sawFeatures
        while true {
            var to = end
            var atEOF = eof
            if bounded, from < end, let nl = memchr(buf + from, 0x0A, end - from) {
                to = nl.assumingMemoryBound(to: UInt8.self) - buf
                atEOF = true
            }
            let result = scanner.scan(buf, from: from, to: to, atEOF: atEOF)
            if case .complete(let e) = result {
                scannedBytes &+= UInt64(max(0, e - from))
            } else {
                scannedBytes &+= UInt64(max(0, to - from))
            }
            switch result {
            case .complete(let e):
                let s = Int(startAbs - base)
                pos = e
                let bytes = UnsafeBufferPointer(start: buf + s, count: e - s)
                parsedShape = nil
                // Small values parse faster as a JSON tree; only large ones (where the tree would
                // cost many times their size) take the positions path.
                switch bytes.count < Self.positionsThreshold ? .plain : mode {
                case .plain: break
                case .geometry:
                    if let shape = GeometryBytes.shape(bytes) {
                        parsedShape = shape
                        return .success(.null)
                    }
                case .feature:
                    if let (members, shape) = FeatureBytes.parse(bytes) {
                        parsedShape = shape
                        return .success(.object(members))
                    }
                }
                do {
                    // A number beyond a double's range is valid JSON: ±infinity here, refused
                    // only where a value is used (makeRecord), not in a property nobody reads.
                    return .success(try JSONParser.parse(bytes: bytes, saturating: true))
                } catch {
                    let line = lineNumber(at: startAbs) + UInt64(error.line - 1)
                    return .failure(
                        .bad(
                            reason: "invalid JSON at line \(line), column \(error.column): \(error.reason)",
                            end: base + UInt64(e)))
                }
            case .needMore(let resume):
                if base + UInt64(end) - startAbs > UInt64(maxRecordBytes) {
                    throw InputError.unsupported(
                        path: path,
                        reason:
                            "a JSON value starting at line \(lineNumber(at: startAbs)) (byte \(startAbs)) is longer "
                            + "than max_record_bytes (\(maxRecordBytes)); raise max_record_bytes if the file is valid"
                    )
                }
                let before = base
                try refill()
                from = resume - Int(base - before)
            case .truncated:
                pos = to
                return .failure(.truncated)
            case .interrupted(let at):
                pos = at
                return .failure(.interrupted(at: base + UInt64(at)))
            case .invalid:
                return .failure(.notAValue)
            }
        }
    }

    // MARK: - Records

    public func next() throws -> ReadResult? {
        while true {
            switch state {
            case .finished:
                if let f = fatal {
                    fatal = nil
                    throw f
                }
                return nil
            case .top:
                keepAbs = absPos
                try skipSpace(recordSeparators: true)
                keepAbs = absPos
                guard try have() else {
                    state = .finished
                    return nil
                }
                let c = buf[pos]
                if c == UInt8(ascii: "{") {
                    objectStartAbs = absPos
                    objectLine = lineNumber(at: objectStartAbs)
                    members.removeAll(keepingCapacity: true)
                    objectShape = nil
                    firstMember = true
                    sawFeatures = false
                    pos += 1
                    state = .members
                } else if c == UInt8(ascii: "[") {
                    pos += 1
                    arrayInObject = false
                    firstElement = true
                    state = .array
                } else {
                    return try rejectRestOfLine(
                        from: absPos, reason: "expected a GeoJSON object, found '\(Self.printable(c))'")
                }
            case .members:
                if let result = try nextMember() { return result }
            case .array:
                if let result = try nextElement() { return result }
            }
        }
    }

    /// Handles one member of a top-level object; returns a result when the object was a
    /// feature (or had to be rejected).
    private func nextMember() throws -> ReadResult? {
        keepAbs = sawFeatures ? absPos : objectStartAbs
        try skipSpace(recordSeparators: false)
        guard try have() else { return try envelopeProblem("the file ends inside a JSON object") }
        var c = buf[pos]
        if c == UInt8(ascii: "}") {
            pos += 1
            state = .top
            return finishObject()
        }
        if !firstMember {
            guard c == UInt8(ascii: ",") else { return try envelopeProblem("expected ',' or '}' after a member") }
            pos += 1
            try skipSpace(recordSeparators: false)
            guard try have() else { return try envelopeProblem("the file ends inside a JSON object") }
            c = buf[pos]
        }
        firstMember = false
        guard c == UInt8(ascii: "\"") else { return try envelopeProblem("expected a member name") }
        guard case .success(let keyValue) = try readValue(), let key = keyValue.stringValue else {
            return try envelopeProblem("invalid member name")
        }
        try skipSpace(recordSeparators: false)
        guard try have(), buf[pos] == UInt8(ascii: ":") else {
            return try envelopeProblem("expected ':' after \"\(key)\"")
        }
        pos += 1
        try skipSpace(recordSeparators: false)
        guard try have() else { return try envelopeProblem("the file ends inside a JSON object") }
        // A `features` array makes the object a collection, unless its `type` already said it
        // is a Feature (a foreign member then, read with the rest of the feature).
        let declaredType = key == "features" ? members.first(where: { $0.0 == "type" })?.1.stringValue : nil
        if key == "features" && buf[pos] == UInt8(ascii: "[") && !sawFeatures && declaredType != "Feature" {
            pos += 1
            sawFeatures = true
            collectionsSeen += 1
            arrayInObject = true
            firstElement = true
            state = .array
            return nil
        }
        let geometryObject = key == "geometry" && !sawFeatures && buf[pos] == UInt8(ascii: "{")
        switch try readValue(geometryObject ? .geometry : .plain) {
        case .success(let v):
            if key == "crs" { checkCRS(v) }
            if geometryObject, let shape = parsedShape {
                objectShape = shape
                members.append((key, Self.shapePlaceholder))
                return nil
            }
            if !sawFeatures || key == "type" { members.append((key, v)) }
            return nil
        case .failure(let problem):
            switch problem {
            case .bad(let reason, _): return try envelopeProblem("member \"\(key)\": \(reason)")
            default: return try envelopeProblem("invalid value of member \"\(key)\"")
            }
        }
    }

    /// A syntax error in a top-level object. Before a `features` array was found the object
    /// is taken for a feature: its text up to the end of its first line is rejected and reading
    /// resumes on the next line. Inside a FeatureCollection's envelope it is fatal.
    private func envelopeProblem(_ reason: String) throws -> ReadResult? {
        if sawFeatures {
            fatal = InputError.unsupported(
                path: path,
                reason:
                    "malformed GeoJSON FeatureCollection at line \(lineNumber(at: absPos)) (byte \(absPos)): \(reason)")
            state = .finished
            return nil
        }
        state = .top
        pos = Int(objectStartAbs - base)
        countedAbs = objectStartAbs  // line counting restarts from the object
        countedLine = objectLine
        return try rejectRestOfLine(from: objectStartAbs, reason: "malformed GeoJSON: \(reason)", line: objectLine)
    }

    private var fatal: InputError?

    /// The end of a top-level object: a collection is done; anything else is a feature.
    private func finishObject() -> ReadResult? {
        if sawFeatures {
            if let t = members.first(where: { $0.0 == "type" })?.1.stringValue, t != "FeatureCollection" {
                if t == "Feature" {
                    // Its `features` came before its `type`: the elements were read, the
                    // feature itself cannot be (its other members were not kept). Say so.
                    return .rejected(
                        RejectedRecord(
                            line: objectLine, byteOffset: objectStartAbs,
                            reason:
                                "a Feature with a \"features\" member before its \"type\": its features were read, "
                                + "the feature itself was not; put \"type\" first or remove \"features\"",
                            raw: ""))
                }
                oddities.append("a top-level object of type \"\(t)\" has a features array; its features were read")
            }
            return nil
        }
        topLevelFeatures += 1
        lastStartAbs = objectStartAbs
        lastEndAbs = absPos
        let shape = objectShape
        objectShape = nil
        return makeRecord(.object(members), shape: shape, line: objectLine, offset: objectStartAbs, topLevel: true)
    }

    /// The next element of a features array (or of a top-level array).
    private func nextElement() throws -> ReadResult? {
        keepAbs = absPos
        try skipSpace(recordSeparators: false)
        guard try have() else { return arrayProblem("the file ends inside the features array") }
        var c = buf[pos]
        if c == UInt8(ascii: "]") {
            pos += 1
            if arrayInObject {
                state = .members
                firstMember = false
            } else {
                state = .top
            }
            return nil
        }
        if !firstElement {
            guard c == UInt8(ascii: ",") else { return arrayProblem("expected ',' or ']' between features") }
            pos += 1
            try skipSpace(recordSeparators: false)
            guard try have() else { return arrayProblem("the file ends inside the features array") }
            c = buf[pos]
        }
        firstElement = false
        let startAbs = absPos
        let line = lineNumber(at: startAbs)
        keepAbs = startAbs
        lastStartAbs = startAbs
        switch try readValue(c == UInt8(ascii: "{") ? .feature : .plain) {
        case .success(let v):
            lastEndAbs = absPos
            return makeRecord(v, shape: parsedShape, line: line, offset: startAbs, topLevel: !arrayInObject)
        case .failure(let problem):
            switch problem {
            case .bad(let reason, let e):
                lastEndAbs = e
                return .rejected(
                    RejectedRecord(line: line, byteOffset: startAbs, reason: reason, raw: text(startAbs, e)))
            case .truncated:
                lastEndAbs = absPos
                state = .finished
                return .rejected(
                    RejectedRecord(
                        line: line, byteOffset: startAbs, reason: "truncated feature: the file ends inside it",
                        raw: text(startAbs, min(absPos, startAbs + 100_000))))
            case .interrupted(let at):
                lastEndAbs = at
                state = .top
                return .rejected(
                    RejectedRecord(
                        line: line, byteOffset: startAbs,
                        reason: "truncated feature: cut short by a record separator (RS)",
                        raw: text(startAbs, at)))
            case .notAValue:
                return arrayProblem("expected a feature, found '\(Self.printable(c))'")
            }
        }
    }

    private func arrayProblem(_ reason: String) -> ReadResult? {
        fatal = InputError.unsupported(
            path: path, reason: "malformed GeoJSON at line \(lineNumber(at: absPos)) (byte \(absPos)): \(reason)")
        state = .finished
        return nil
    }

    /// Rejects the text from `startAbs` to the end of its line (or the next RS) and resumes after it.
    private func rejectRestOfLine(from startAbs: UInt64, reason: String, line: UInt64? = nil) throws -> ReadResult {
        let recordLine = line ?? lineNumber(at: startAbs)
        lineDelimited = true
        keepAbs = startAbs
        var i = Int(startAbs - base)
        while true {
            while i < end && buf[i] != 0x0A && buf[i] != 0x1E { i += 1 }
            if i < end || eof { break }
            if base + UInt64(end) - startAbs > UInt64(maxRecordBytes) { break }
            let before = base
            try refill()
            i -= Int(base - before)
        }
        let stop = base + UInt64(i)
        lastStartAbs = startAbs
        lastEndAbs = stop
        pos = i
        state = .top
        return .rejected(
            RejectedRecord(line: recordLine, byteOffset: startAbs, reason: reason, raw: text(startAbs, stop)))
    }

    private func checkCRS(_ v: JSONValue) {
        guard let name = v["properties"]?["name"]?.stringValue else { return }
        let ok = [
            "urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84", "EPSG:4326", "urn:ogc:def:crs:EPSG::4326",
        ]
        if !ok.contains(name) {
            oddities.append(
                "the file declares crs \"\(name)\"; coordinates are read as lon/lat in the input's crs setting (\(spec.crs.rawValue))"
            )
        }
    }

    private static func printable(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    // MARK: - Feature → record

    /// GeoJSON geometry types: a bare geometry outside a collection is read as a feature without
    /// properties, as GDAL reads it.
    static let geometryTypes: Set<String> = [
        "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection",
    ]

    private func makeRecord(
        _ feature: JSONValue, shape: RepresentativePoint.Shape? = nil, line: UInt64, offset: UInt64,
        topLevel: Bool = false
    ) -> ReadResult {
        func reject(_ reason: String) -> ReadResult {
            .rejected(RejectedRecord(line: line, byteOffset: offset, reason: reason, raw: lastRecordText()))
        }
        guard feature.objectValue != nil else {
            return reject("expected a GeoJSON Feature object, found \(feature.typeName)")
        }
        guard let type = feature["type"]?.stringValue else { return reject("not a GeoJSON Feature: no \"type\"") }
        if topLevel && Self.geometryTypes.contains(type) {
            return makeRecord(
                .object([("type", .string("Feature")), ("geometry", feature), ("properties", .null)]), line: line,
                offset: offset)
        }
        guard type == "Feature" else { return reject("not a GeoJSON Feature: type \"\(type)\"") }
        guard let geometry = feature["geometry"], geometry != .null else { return reject("feature has no geometry") }
        let point: (Double, Double)
        switch shape.map({ RepresentativePoint.of($0) }) ?? RepresentativePoint.of(geometry) {
        case .point(let lon, let lat): point = (lon, lat)
        case .failure(let reason): return reject(reason)
        }
        let properties = feature["properties"] ?? .null
        featuresRead += 1
        if let members = properties.objectValue {
            // The names seen, for the hint of a misspelt column: the first features suffice.
            if featuresRead <= 64 && propertySample.count < 12 {
                for (k, _) in members where propertySample.count < 12 && !propertySample.contains(k) {
                    propertySample.append(k)
                }
            }
            if seenProperties.count < namedProperties.count {
                for (_, key) in namedProperties where properties[key] != nil { seenProperties.insert(key) }
            }
        }
        // The members this record uses: a number beyond a double's range in one of them cannot
        // be read (an id or keyword would be "inf"); in any other member it does not matter.
        var used: [(String, JSONValue?)] = [(nameKey, properties[nameKey])]
        if let idKey {
            used.append((idKey, properties[idKey]))
        } else {
            used += [("id", feature["id"]), ("id", properties["id"])]
        }
        for k in keywordKeys ?? [] { used.append((k.key, properties[k.key])) }
        for (key, value) in used where value.map(Self.holdsNonFinite) ?? false {
            return reject("number out of range: property \"\(key)\" holds a number beyond ±1.8e308")
        }
        var id = ""
        if let idKey {
            id = idText(properties[idKey], path: ["properties", idKey])
        } else {
            id = idText(feature["id"], path: ["id"])
            if id.isEmpty { id = idText(properties["id"], path: ["properties", "id"]) }
        }
        let name = scalarText(properties[nameKey])
        var keywords: [String] = []
        // The property each value came from: its key for key=value queries.
        var keys: [String] = []
        if let keywordKeys {
            for k in keywordKeys {
                appendKeywords(
                    properties[k.key], key: k.key, split: k.split, separator: k.separator, to: &keywords, keys: &keys)
            }
        } else if let members = properties.objectValue {
            // The first guessed key present (by the guess list's order), case-insensitively.
            var best: (rank: Int, key: String, value: JSONValue)?
            for (key, value) in members where value != .null {
                let rank =
                    guessedKeywordKeys.firstIndex(of: key)
                    ?? (key.utf8.contains { $0 >= 0x41 && $0 <= 0x5A }
                        ? guessedKeywordKeys.firstIndex(of: key.lowercased()) : nil)
                if let rank, best == nil || rank < best!.rank { best = (rank, key, value) }
            }
            if let best, !Self.holdsNonFinite(best.value) {
                appendKeywords(
                    best.value, key: best.key, split: spec.keywordSplit, separator: separator, to: &keywords,
                    keys: &keys)
            }
        }
        return .record(
            RawRecord(
                id: id, name: name, keywords: keywords, keywordKeys: keys, lon: point.0, lat: point.1, line: line,
                byteOffset: offset))
    }

    /// Whether a value is or holds a number read as ±infinity (beyond a double's range).
    static func holdsNonFinite(_ v: JSONValue) -> Bool {
        switch v {
        case .number(let d): return !d.isFinite
        case .array(let items): return items.contains(where: holdsNonFinite)
        case .object(let members): return members.contains { holdsNonFinite($0.1) }
        default: return false
        }
    }

    /// An id as text. A number beyond 2^53 is not exact as a double (9007199254740993 and …992
    /// are the same double), so its literal is taken from the feature's text instead.
    private func idText(_ v: JSONValue?, path: [String]) -> String {
        if case .number(let d)? = v, abs(d) >= 9_007_199_254_740_992,
            let literal = Self.numberLiteral(in: lastRecordText(), path: path)
        {
            return literal
        }
        return scalarText(v)
    }

    /// The literal text of an integer member (`path`: member names from the top-level object)
    /// in JSON `text`; nil when it is not there or not an integer literal.
    static func numberLiteral(in text: String, path: [String]) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            func skip(_ i: inout Int) {
                while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
            }
            var i = 0
            var level = 0
            while true {
                skip(&i)
                guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
                i += 1
                var found = false
                while !found {
                    skip(&i)
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
                    guard let (key, afterKey) = try? JSONParser.parsePrefix(bytes: bytes, from: i) else { return nil }
                    i = afterKey
                    skip(&i)
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                    i += 1
                    skip(&i)
                    if key.stringValue == path[level] {
                        found = true
                    } else {
                        guard let (_, afterValue) = try? JSONParser.parsePrefix(bytes: bytes, from: i) else {
                            return nil
                        }
                        i = afterValue
                        skip(&i)
                        guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
                        i += 1
                    }
                }
                level += 1
                if level == path.count { break }
            }
            var j = i
            if j < bytes.count, bytes[j] == UInt8(ascii: "-") { j += 1 }
            let digits = j
            while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9") { j += 1 }
            guard j > digits else { return nil }
            if j < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[j]) {
                return nil
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<j]), as: UTF8.self)
        }
    }

    /// A property value as text: strings as they are (missing markers → ""), numbers in
    /// shortest form, booleans as true/false, arrays and objects as compact JSON.
    private func scalarText(_ v: JSONValue?) -> String {
        guard let v else { return "" }
        switch v {
        case .null: return ""
        case .string(var s):
            // nil: keep the string as it is (nothing to trim).
            let trimmed: String? = s.withUTF8 { b in
                let t = b.trimmingASCIIWhitespace()
                if splitter.isMissing(t) { return "" }
                return t.count == b.count ? nil : String(decoding: t, as: UTF8.self)
            }
            return trimmed ?? s
        case .number(let d): return JSONValue.formatNumber(d)
        case .bool(let b): return b ? "true" : "false"
        default: return v.serialized()
        }
    }

    /// Keyword values of one property, with their keys (the property name `key`, or an hstore
    /// tag's key): a string is split like a delimited field; each string or number of an array
    /// is one keyword; numbers and booleans give their text; objects and nested arrays are not
    /// keywords.
    private func appendKeywords(
        _ v: JSONValue?, key: String, split: InputSpec.KeywordSplit, separator: [UInt8], to out: inout [String],
        keys: inout [String]
    ) {
        guard let v else { return }
        switch v {
        case .string(var s):
            s.withUTF8 { splitter.split($0, mode: split, separator: separator, key: key, into: &out, keys: &keys) }
        case .number, .bool:
            out.append(scalarText(v))
            keys.append(key)
        case .array(let items):
            for item in items {
                switch item {
                case .string(var s):
                    s.withUTF8 {
                        splitter.split($0, mode: .plain, separator: separator, key: key, into: &out, keys: &keys)
                    }
                case .number, .bool:
                    out.append(scalarText(item))
                    keys.append(key)
                default: continue
                }
            }
        default:
            return
        }
    }

    // MARK: - Diagnostics

    func lastRecordText() -> String {
        guard lastStartAbs >= base, lastEndAbs >= lastStartAbs, lastEndAbs <= base + UInt64(end) else { return "" }
        return text(lastStartAbs, lastEndAbs)
    }

    func lastCoordinateText() -> String? { nil }

}
