import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchModel

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
    /// The POIs' names, when the source has them (`pois.rsa` and ingested inputs; empty for POIs
    /// added by ``append(id:keywordText:lon:lat:)``).
    public var names = StringColumn()
    /// The key table of the keyword text (``POITable/keywordKeys``), for `key=value` keywords.
    public var keywordKeys: [String] = []
    /// Records left out (bad or missing coordinates, reader rejects), with the first reasons.
    public var skipped = 0
    var skipNotes: [String] = []
    /// How the input's columns were mapped (for reports).
    var columnNotes: [String] = []

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
        names = table.names
        keywordKeys = table.keywordKeys
    }

    /// Loads POIs from a `pois.rsa` artifact, or from any input the ingest stage reads (the
    /// generator's CSV, other delimited text, GeoJSON, OSM), recognised by content, not by name.
    ///
    /// Inputs other than artifacts go through ingest itself (``OpenedInput``, ``IngestDriver``)
    /// with its default column guesses (for the generator's CSV: keywords from `category`), its
    /// coordinate rules and keyword normalisation, so the keyword text is exactly what the
    /// pipeline matches. Every record is kept as its own POI (duplicate ids included, as
    /// evaluate.py does); rejected records are counted with their most common reasons.
    public static func load(path: String) throws -> EvaluationPOIs {
        if try isArtifact(path) {
            let file = try ArtifactFile(path: path, expected: .pois)
            return EvaluationPOIs(table: try POITable(artifact: file), path: path)
        }
        var settings = IngestSettings()
        settings.duplicates = .keepAll
        return try load(specs: [InputSpec(path: path)], settings: settings)
    }

    /// Loads POIs through ingest from input specs (as in a manifest's `inputs` or ingest's
    /// `--input-spec`) with the given ingest settings; several inputs form one POI set, in order.
    public static func load(specs: [InputSpec], settings: IngestSettings) throws -> EvaluationPOIs {
        let inputs = try specs.map { try OpenedInput.open($0) }
        // The rejects file is scratch: evaluation reports counts and reasons, not the records.
        let scratch = NSTemporaryDirectory() + "regionsearch-evaluate-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let rejects = try RejectsWriter(path: scratch + "/rejects.txt", style: RejectsWriter.style(for: inputs))
        defer { rejects.discard() }
        let result = try IngestDriver(settings: settings).run(inputs, rejects: rejects)
        // As ingest refuses it: densities and maps from no POIs say nothing (exit 0 and "read 0").
        guard result.table.count > 0 else {
            let top = result.total.sortedReasons.prefix(3).map { "\($0.0) \(groupedCount($0.1))" }
            throw EvaluateError.unreadable(
                path: specs.map(\.path).joined(separator: " + "),
                reason: result.total.read == 0
                    ? "holds no POIs (no records)"
                    : "holds no POIs: all \(groupedCount(result.total.read)) records were rejected ("
                        + top.joined(separator: ", ") + ")")
        }
        var pois = EvaluationPOIs(table: result.table, path: specs.map(\.path).joined(separator: " + "))
        pois.skipped = result.total.rejected
        pois.skipNotes = result.total.sortedReasons.prefix(5).map { "\(groupedCount($0.1)) record(s): \($0.0)" }
        for input in inputs {
            if let reader = input.source as? DelimitedReader, !reader.guessedColumns.isEmpty {
                pois.columnNotes.append(
                    (inputs.count > 1 ? "\(input.spec.path): " : "") + "columns guessed from the header: "
                        + reader.guessedColumns.joined(separator: ", "))
            }
        }
        return pois
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
        i.notes = columnNotes + skipNotes.map { "skipped " + $0 }
        return i
    }
}
