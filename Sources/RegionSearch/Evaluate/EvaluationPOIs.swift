/// The POIs an evaluation tests against region polygons: position, id, and the normalised
/// keyword text that ``KeywordMatcher`` runs on.
///
/// The keyword text is the POI's *keyword fields only* — for the generator's CSV that is the
/// `category` column, NFKC + case-folded by ``KeywordText`` — not the name. (evaluate.py matches
/// the keyword as a plain substring of `name + category`; see docs/EVALUATE.md for the effect.)
public struct EvaluationPOIs: Sendable {
    public var path: String
    public var lon: [Double] = []
    public var lat: [Double] = []
    public var ids = StringColumn()
    /// Normalised keyword values joined by ``KeywordText/separator``.
    public var keywordText = StringColumn()
    /// Records left out (bad or missing coordinates, reader rejects), with the first reasons.
    public var skipped = 0
    public var skipNotes: [String] = []

    public init(path: String) { self.path = path }

    public var count: Int { lon.count }

    /// Appends one POI; `keywordText` must already be normalised.
    public mutating func append(id: String, keywordText text: String, lon x: Double, lat y: Double) {
        lon.append(x)
        lat.append(y)
        ids.append(id)
        keywordText.append(text)
    }

    /// The POIs of a `pois` artifact (the `keywords` column, as ingest built it).
    public init(table: POITable, path: String) {
        self.path = path
        lon = table.lon
        lat = table.lat
        ids = table.ids
        keywordText = table.keywords
    }

    /// Reads every record of a reader; records with a missing or out-of-range position and
    /// records the reader rejects are skipped, counted, and the first few reasons kept.
    public init(source: RecordSource, path: String) throws {
        self.path = path
        var normalizer = KeywordNormalizer()
        while let result = try source.next() {
            switch result {
            case let .record(r):
                guard r.lon.isFinite, r.lat.isFinite, abs(r.lon) <= 180, abs(r.lat) <= 90 else {
                    skip("line \(r.line): longitude/latitude missing or out of range (\(r.lon), \(r.lat))")
                    continue
                }
                append(id: r.id, keywordText: normalizer.join(r.keywords), lon: r.lon, lat: r.lat)
            case let .rejected(r):
                skip("line \(r.line): \(r.reason)")
            }
        }
    }

    private mutating func skip(_ note: String) {
        skipped += 1
        if skipNotes.count < 5 { skipNotes.append(note) }
    }

    /// Loads POIs from a `pois.rsa` artifact or from delimited text / GeoJSON through the
    /// ingest readers (recognised by content, not by name).
    public static func load(path: String) throws -> EvaluationPOIs {
        if try isArtifact(path) {
            let file = try ArtifactFile(path: path, expected: .pois)
            return EvaluationPOIs(table: try POITable(artifact: file), path: path)
        }
        return try EvaluationPOIs(source: openRecordSource(path), path: path)
    }

    /// Whether the file starts with the artifact magic bytes.
    static func isArtifact(_ path: String) throws -> Bool {
        let reader = try ByteReader(path: path)
        if reader.isGzip { return false }
        var head = [UInt8](repeating: 0, count: ArtifactFormat.magic.count)
        let n = try head.withUnsafeMutableBytes { try reader.read(into: $0) }
        return n == head.count && head == ArtifactFormat.magic
    }

    /// The summary for reports.
    var input: EvaluationInput {
        var i = EvaluationInput(role: "pois", path: path, count: count)
        i.skipped = skipped
        i.notes = skipNotes.map { "skipped " + $0 }
        return i
    }
}

/// Interim until the ingest readers are merged.
func openRecordSource(_ path: String) throws -> RecordSource {
    throw ToolFailure("\(path): POI text input needs the ingest readers", status: .inputData)
}
