import RegionSearchCore

/// Reads POIs from an OpenStreetMap XML file (`<osm>` with `<node>`, `<way>`, `<relation>`
/// children; plain or gzip-compressed).
///
/// The rules are those of ``OSMPBFReader`` (see ``OSMOptions`` and ``OSMWayGeometry``), and the
/// records are the same for the same data: POI nodes first, in file order, then POI ways in file
/// order. A record's `line` is the line of the element's start tag, its `byteOffset` the offset of
/// its `<` in the (decompressed) text.
///
/// Memory stays bounded by the POIs: the first pass yields POI nodes and keeps only POI ways
/// (tags and node refs); when there are such ways, the file is opened a second time (a stream
/// can be read only once) and read up to its last node to pick up the coordinates of just the
/// nodes those ways need. Input must therefore be a file, not a pipe, when it has POI ways.
///
/// Elements marked deleted (`visible="false"`, `action="delete"`) are counted but skipped.
/// Malformed XML (mismatched or unclosed tags, bad attributes, unknown entities) and files whose
/// root element is not `<osm>` are ``InputError``s naming line and byte offset; an unusable POI
/// (bad id, missing or invalid coordinates, invalid UTF-8) is a rejected record.
final class OSMXMLReader: RecordSource {
    public let path: String
    public let options: OSMOptions
    /// Elements seen so far; complete once ``next()`` has returned nil.
    public private(set) var counts = OSMElementCounts()

    private let reader: ByteReader
    private let tokenizer: XMLTokenizer
    private let rules: OSMTagRules
    private var collector = OSMTagCollector()
    private var pending = OSMPendingWays()
    private enum Phase {
        case scanning
        case ways(next: Int)
        case finished
    }
    private var phase = Phase.scanning
    /// Start offset of the last `<node>`, where the second pass may stop.
    private var lastNodeOffset: UInt64?

    private enum Kind {
        case none, node, way, relation
    }
    /// The top-level element being read.
    private var kind = Kind.none
    private var elementLine: UInt64 = 0
    private var elementOffset: UInt64 = 0
    private var elementDeleted = false
    private var idText: [UInt8] = []
    private var latText: [UInt8]?
    private var lonText: [UInt8]?
    private var refs: [Int64] = []
    private var badRef: String?

    private static let osmName = Array("osm".utf8)
    private static let nodeName = Array("node".utf8)
    private static let wayName = Array("way".utf8)
    private static let relationName = Array("relation".utf8)
    private static let tagName = Array("tag".utf8)
    private static let ndName = Array("nd".utf8)
    private static let idKey = Array("id".utf8)
    private static let latKey = Array("lat".utf8)
    private static let lonKey = Array("lon".utf8)
    private static let kKey = Array("k".utf8)
    private static let vKey = Array("v".utf8)
    private static let refKey = Array("ref".utf8)
    private static let visibleKey = Array("visible".utf8)
    private static let actionKey = Array("action".utf8)

    /// Bytes of (decompressed) input consumed by the main (first) pass.
    public var bytesRead: UInt64 { reader.bytesDelivered }

    /// Reads up to the root element (so a file that is not OSM XML fails here).
    public init(reader: ByteReader, options: OSMOptions) throws {
        self.reader = reader
        self.options = options
        path = reader.path
        rules = OSMTagRules(options: options)
        tokenizer = XMLTokenizer(reader: reader)
        try OSMXMLReader.expectRoot(tokenizer)
    }

    private static func expectRoot(_ tokenizer: XMLTokenizer) throws {
        guard try tokenizer.next() == .start else { throw tokenizer.malformed("no root element") }
        guard tokenizer.nameIs(osmName) else {
            let name = String(decoding: tokenizer.name, as: UTF8.self)
            let what =
                name == "osmChange"
                ? "an OSM change file (osmChange), not a data file" : "root element is <\(name)>, expected <osm>"
            throw InputError.unsupported(path: tokenizer.path, reason: "not an OSM XML file: \(what)")
        }
    }

    public func next() throws -> ReadResult? {
        while true {
            switch phase {
            case .scanning:
                switch try tokenizer.next() {
                case .start:
                    if tokenizer.depth == 1 {
                        beginElement()
                        if tokenizer.isSelfClosing, let result = finishElement() { return result }
                    } else if tokenizer.depth == 2 && kind != .none {
                        try readChild()
                    }
                case .end:
                    if tokenizer.depth == 1 && kind != .none, let result = finishElement() { return result }
                case .endOfInput:
                    try gatherWayNodes()
                    phase = .ways(next: 0)
                }
            case .ways(let index):
                guard index < pending.ways.count else {
                    phase = .finished
                    return nil
                }
                phase = .ways(next: index + 1)
                let result = pending.result(index)
                if case .rejected = result { counts.rejectedWays += 1 }
                return result
            case .finished:
                return nil
            }
        }
    }

    private static func isDeleted(_ tokenizer: XMLTokenizer) -> Bool {
        if let v = tokenizer.attribute(visibleKey), v.elementsEqual("false".utf8) { return true }
        if let a = tokenizer.attribute(actionKey), a.elementsEqual("delete".utf8) { return true }
        return false
    }

    private func beginElement() {
        if tokenizer.nameIs(OSMXMLReader.nodeName) {
            kind = .node
        } else if tokenizer.nameIs(OSMXMLReader.wayName) {
            kind = .way
        } else if tokenizer.nameIs(OSMXMLReader.relationName) {
            kind = .relation
        } else {
            kind = .none
            return
        }
        elementLine = tokenizer.tokenLine
        elementOffset = tokenizer.tokenOffset
        elementDeleted = OSMXMLReader.isDeleted(tokenizer)
        idText.removeAll(keepingCapacity: true)
        if let id = tokenizer.attribute(OSMXMLReader.idKey) { idText.append(contentsOf: id) }
        latText = tokenizer.attribute(OSMXMLReader.latKey).map { Array($0) }
        lonText = tokenizer.attribute(OSMXMLReader.lonKey).map { Array($0) }
        collector.reset()
        refs.removeAll(keepingCapacity: true)
        badRef = nil
    }

    /// `<tag k v/>` of any element, `<nd ref/>` of a way.
    private func readChild() throws {
        if tokenizer.nameIs(OSMXMLReader.tagName) {
            guard let key = tokenizer.attribute(OSMXMLReader.kKey), let value = tokenizer.attribute(OSMXMLReader.vKey)
            else {
                throw tokenizer.malformed("<tag> without a k or v attribute")
            }
            let role = rules.role(of: key)
            if role.isRelevant { collector.add(role: role, key: key, value: value) }
        } else if kind == .way && tokenizer.nameIs(OSMXMLReader.ndName) {
            let ref = tokenizer.attribute(OSMXMLReader.refKey)
            if let ref, let id = parseOSMId(ref) {
                refs.append(id)
            } else if badRef == nil {
                badRef = ref.map { String(decoding: $0, as: UTF8.self) } ?? "(missing)"
            }
        }
    }

    /// Ends the current top-level element; returns a record for a POI node.
    private func finishElement() -> ReadResult? {
        let finished = kind
        kind = .none
        switch finished {
        case .none:
            return nil
        case .relation:
            counts.relations += 1
            if elementDeleted { counts.deleted += 1 }
            return nil
        case .node:
            counts.nodes += 1
            lastNodeOffset = elementOffset
            if elementDeleted {
                counts.deleted += 1
                return nil
            }
            guard collector.isPOI else { return nil }
            counts.poiNodes += 1
            return nodeResult()
        case .way:
            counts.ways += 1
            if elementDeleted {
                counts.deleted += 1
                return nil
            }
            guard collector.isPOI else { return nil }
            counts.poiWays += 1
            let id = idText.withUnsafeBytes { parseOSMId($0) }
            var problem: String?
            if id == nil {
                problem = "missing or invalid way id \"\(String(decoding: idText, as: UTF8.self))\""
            } else if let badRef {
                problem = "invalid node ref \"\(badRef)\""
            }
            let idString = id.map { String($0) } ?? String(decoding: idText, as: UTF8.self)
            refs.withUnsafeBufferPointer { refBuf in
                pending.add(
                    id: idString, line: elementLine, byteOffset: elementOffset, tags: collector, refs: refBuf,
                    locations: nil, problem: problem)
            }
            return nil
        }
    }

    private func nodeResult() -> ReadResult {
        let id = idText.withUnsafeBytes { parseOSMId($0) }
        let lat = latText.flatMap { $0.withUnsafeBufferPointer { DecimalParser.parse($0) } }
        let lon = lonText.flatMap { $0.withUnsafeBufferPointer { DecimalParser.parse($0) } }
        func show(_ value: Double?, _ text: [UInt8]?) -> String {
            if let value { return "\(value)" }
            return text.map { "\"\(String(decoding: $0, as: UTF8.self))\"" } ?? "(missing)"
        }
        let idString = id.map { String($0) } ?? String(decoding: idText, as: UTF8.self)
        func reject(_ reason: String) -> ReadResult {
            counts.rejectedNodes += 1
            let raw =
                "node/\(idString) \(collector.tagDescription) at lat \(show(lat, latText)), lon \(show(lon, lonText))"
            return .rejected(RejectedRecord(line: elementLine, byteOffset: elementOffset, reason: reason, raw: raw))
        }
        guard let id else { return reject("missing or invalid node id \"\(idString)\"") }
        guard let lat, let lon else {
            return reject("missing or invalid coordinates: lat \(show(lat, latText)), lon \(show(lon, lonText))")
        }
        guard OSMCoordinates.isValid(lon: lon, lat: lat) else {
            return reject("invalid coordinates: lat \(lat), lon \(lon)")
        }
        switch collector.nameAndKeywords() {
        case .failure(let problem):
            return reject(problem.reason)
        case .success(let v):
            return .record(
                RawRecord(
                    id: "node/\(id)", name: v.name, keywords: v.keywords, keywordKeys: v.keys, lon: lon, lat: lat,
                    line: elementLine, byteOffset: elementOffset, labelTags: v.labelTags))
        }
    }

    /// Second pass: coordinates of the nodes that POI ways reference, read from a fresh reader
    /// up to the last node.
    private func gatherWayNodes() throws {
        pending.prepareLookup()
        guard pending.needsNodes, let lastNodeOffset else { return }
        let again: ByteReader
        do {
            again = try ByteReader(path: path)
        } catch {
            throw InputError.unsupported(
                path: path,
                reason:
                    "cannot reopen the file for the second pass that finds the nodes of POI ways (\(error)); OSM XML "
                    + "with ways must be read from a file, not a pipe"
            )
        }
        let second = XMLTokenizer(reader: again)
        try OSMXMLReader.expectRoot(second)
        var nodesSeen = 0
        scan: while true {
            switch try second.next() {
            case .start:
                guard second.depth == 1, second.nameIs(OSMXMLReader.nodeName) else { continue }
                nodesSeen += 1
                if !OSMXMLReader.isDeleted(second), let idBytes = second.attribute(OSMXMLReader.idKey),
                    let id = parseOSMId(idBytes), let index = pending.neededIndex(id)
                {
                    let lat = second.attribute(OSMXMLReader.latKey).flatMap {
                        DecimalParser.parse($0.assumingMemoryBound(to: UInt8.self))
                    }
                    let lon = second.attribute(OSMXMLReader.lonKey).flatMap {
                        DecimalParser.parse($0.assumingMemoryBound(to: UInt8.self))
                    }
                    pending.setCoordinates(index, lon: lon ?? .nan, lat: lat ?? .nan)
                }
                if second.tokenOffset >= lastNodeOffset { break scan }
            case .end:
                continue
            case .endOfInput:
                break scan
            }
        }
        guard nodesSeen == counts.nodes else {
            throw InputError.unsupported(
                path: path,
                reason:
                    "the file changed while it was read (\(counts.nodes) nodes in the first pass, \(nodesSeen) in "
                    + "the second)"
            )
        }
    }
}

/// Parses a decimal OSM id (negative ids occur in unsaved JOSM edits); nil unless the whole text
/// is a 64-bit integer.
func parseOSMId(_ bytes: UnsafeRawBufferPointer) -> Int64? {
    var i = 0
    let n = bytes.count
    var negative = false
    if n > 0 && bytes[0] == UInt8(ascii: "-") {
        negative = true
        i = 1
    }
    guard i < n else { return nil }
    var value: Int64 = 0
    while i < n {
        let d = bytes[i] &- UInt8(ascii: "0")
        guard d < 10 else { return nil }
        let (times10, o1) = value.multipliedReportingOverflow(by: 10)
        let (sum, o2) =
            negative ? times10.subtractingReportingOverflow(Int64(d)) : times10.addingReportingOverflow(Int64(d))
        guard !o1, !o2 else { return nil }
        value = sum
        i += 1
    }
    return value
}
