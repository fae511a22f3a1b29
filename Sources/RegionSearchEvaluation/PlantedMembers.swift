import Foundation
import RegionSearchIngest

/// The planted POIs of a synthetic city: the generator's `truth_members.csv` (`id,cluster_id`
/// with a header, RFC 4180 quoting), as read for POI-level recall and precision.
public struct PlantedMembers: Sendable {
    public var path: String
    /// POI ids, in file order.
    public var ids: [String]
    /// The cluster of each id (as text; only reported).
    var clusterIDs: [String]

    public init(path: String, ids: [String], clusterIDs: [String]) {
        self.path = path
        self.ids = ids
        self.clusterIDs = clusterIDs
    }

    /// Reads a members file (gzip recognised by its magic bytes).
    public static func read(path: String) throws -> PlantedMembers {
        let bytes = try ByteReader(path: path).readAll()
        return try PlantedMembers(path: path, bytes: bytes)
    }

    /// Parses members CSV text. The header must name an `id` column (a `cluster_id` column is
    /// optional); every record needs as many fields as the header and a non-empty id. Records are
    /// split by ingest's delimited tokenizer (``DelimitedFieldReader``); empty lines (and lines
    /// holding only `""`) are skipped.
    public init(path: String, bytes: [UInt8]) throws(EvaluateError) {
        self.path = path
        ids = []
        clusterIDs = []
        let records: DelimitedFieldReader
        do {
            records = try DelimitedFieldReader(contents: bytes, path: path)
        } catch {
            throw EvaluateError.unreadable(path: path, reason: "\(error)")
        }
        /// The next record's line and fields; a rejected record stops the file.
        func next() throws(EvaluateError) -> (UInt64, [String])? {
            let record: DelimitedFieldReader.Record?
            do {
                record = try records.next()
            } catch {
                throw EvaluateError.unreadable(path: path, reason: "\(error)")
            }
            switch record {
            case nil: return nil
            case .fields(let line, let fields)?: return (line, fields)
            case .rejected(let r)?: throw EvaluateError.badRecord(path: path, line: r.line, reason: r.reason)
            }
        }
        guard let (headerLine, header) = try next() else {
            throw EvaluateError.badRecord(
                path: path, line: 1, reason: "empty file; expected a header line 'id,cluster_id'")
        }
        let names = header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let idColumn = names.firstIndex(of: "id") else {
            throw EvaluateError.badRecord(
                path: path, line: headerLine,
                reason: "the header has no 'id' column (found: \(header.joined(separator: ",")))")
        }
        let clusterColumn = names.firstIndex(of: "cluster_id")
        while let (line, fields) = try next() {
            if fields.count == 1 && fields[0].isEmpty { continue }  // a lone `""`, like an empty line
            guard fields.count == header.count else {
                throw EvaluateError.badRecord(
                    path: path, line: line, reason: "\(fields.count) fields, expected \(header.count) as in the header")
            }
            let id = fields[idColumn].trimmingCharacters(in: .whitespaces)
            guard !id.isEmpty else { throw EvaluateError.badRecord(path: path, line: line, reason: "empty id") }
            ids.append(id)
            clusterIDs.append(clusterColumn.map { fields[$0] } ?? "")
        }
    }

    public var count: Int { ids.count }

    /// Several members files as one (rows in order; `path` names them all joined by " + ").
    public static func concatenating(_ files: [PlantedMembers]) -> PlantedMembers {
        if files.count == 1 { return files[0] }
        return PlantedMembers(
            path: files.map(\.path).joined(separator: " + "), ids: files.flatMap(\.ids),
            clusterIDs: files.flatMap(\.clusterIDs))
    }
}
