import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGDAL
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Manifests with other outputs and inputs for the end-to-end format tests, and GDAL's view of
/// what a run wrote.
extension PipelineFixture {
    /// Rewrites the manifest with `output` (and `poi_output`) as given, the fixture's CSV input
    /// unless `input` is given, and extra stage sections.
    func writeManifest(
        output: JSONValue, poiOutput: JSONValue? = nil, input: JSONValue? = nil, keywords: [String] = ["cafe"],
        sections: [(String, JSONValue)] = []
    ) throws {
        var members: [(String, JSONValue)] = [
            ("name", .string("test")),
            (
                "inputs",
                .array([input ?? .object([("path", .string("../data/city.csv")), ("format", .string("csv"))])])
            ),
            ("work_dir", .string("../work")),
            ("output", output),
            ("keywords", .array(keywords.map { .string($0) })),
        ]
        if let poiOutput { members.append(("poi_output", poiOutput)) }
        members += sections
        try JSONValue.object(members).serialized(pretty: true).write(
            toFile: manifestPath, atomically: true, encoding: .utf8)
    }

    /// The regions the latest run published: the lineage step's GeoJSON (the hulls stage's with
    /// stable ids, labels and change), from which every format is written.
    func regionsArtifact() throws -> JSONValue {
        let step = try XCTUnwrap(FileSystem.list(work.lineage).first(where: { !$0.hasPrefix(".") }))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: work.lineage + "/" + step + "/regions.geojson"))
        return try JSONParser.parse(String(decoding: bytes, as: UTF8.self))
    }

    /// Runs and fails the test unless the run succeeds.
    @discardableResult
    func runOK(_ options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let r = try run(options)
        XCTAssertEqual(r.status, 0, r.output, file: file, line: line)
        return r
    }
}

/// A layer as GDAL reads it back.
struct ReadBack {
    var declaredGeometryType: String
    var fieldNames: [String]
    var rows: [[String: FieldValue]]

    init(_ path: String, layer: String? = nil) throws {
        let ds = try GDALDataset(openingVector: path)
        let l = try layer.map { try ds.layer(named: $0) } ?? ds.layer(at: 0)
        declaredGeometryType = l.declaredGeometryType
        fieldNames = l.fields.map(\.name)
        var rows: [[String: FieldValue]] = []
        let names = fieldNames
        try l.forEachFeature { f in
            var row: [String: FieldValue] = [:]
            for (i, n) in names.enumerated() { row[n] = f.value(at: i) }
            rows.append(row)
        }
        self.rows = rows
    }

    /// Rows by region_id.
    var byRegion: [Int64: [String: FieldValue]] {
        var out: [Int64: [String: FieldValue]] = [:]
        for r in rows { if case .integer(let id)? = r["region_id"] { out[id] = r } }
        return out
    }
}
