import Foundation
import RegionSearchCore
import RegionSearchGDAL
import XCTest

/// GDAL's own tools and a read-back through the GDAL API, for checking what the writers wrote
/// and for making inputs in other formats.
enum GIS {
    /// The repository root (this file is Tests/RegionSearchTestSupport/GISTestSupport.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The embedded default input.
    static var defaultData: String { repository + "/data/helsinki-center-pois.geojsonseq" }

    /// The columns of pipelines/default.json.
    static let defaultKeywordColumns = [
        "amenity", "shop", "cuisine", "tourism", "leisure", "office", "craft", "historic", "healthcare", "sport",
        "public_transport",
    ]

    /// Runs a program to completion; stdout and stderr together.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "/gis-run-" + UUID().uuidString
        defer { unlink(log) }
        let termination = try ChildProcess(executable: program, arguments: arguments, output: .file(log)).wait()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if case .exited(let code) = termination { return (code, text) }
        return (-1, text)
    }

    /// `ogr2ogr ARGS…`, failing the test when it fails.
    static func ogr2ogr(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let (status, output) = try run("/usr/bin/ogr2ogr", ["-q"] + arguments)
        XCTAssertEqual(status, 0, "ogr2ogr \(arguments): \(output)", file: file, line: line)
    }

    /// `ogrinfo ARGS…` output.
    static func ogrinfo(_ arguments: [String]) throws -> String {
        try run("/usr/bin/ogrinfo", ["-ro"] + arguments).output
    }

    /// A layer read back through the GDAL API.
    struct Layer {
        var name: String
        var declaredGeometryType: String
        var fields: [FieldDefinition]
        var features: [Feature]

        struct Feature {
            var fid: Int64
            var values: [FieldValue]
            var geometry: ReadGeometry
            var geometryType: String?

            /// The value of field `name`.
            func value(_ name: String, in layer: Layer) -> FieldValue? {
                layer.fields.firstIndex { $0.name == name }.map { values[$0] }
            }
        }
    }

    /// Reads a layer (by name, else the first) with every feature.
    static func read(_ path: String, layer name: String? = nil) throws -> Layer {
        let ds = try GDALDataset(openingVector: path)
        let layer = try name.map { try ds.layer(named: $0) } ?? ds.layer(at: 0)
        var features: [Layer.Feature] = []
        try layer.forEachFeature { f in
            features.append(
                .init(
                    fid: f.fid, values: f.values, geometry: f.geometry(transform: nil), geometryType: f.geometryTypeName
                ))
        }
        return Layer(
            name: layer.name, declaredGeometryType: layer.declaredGeometryType, fields: layer.fields, features: features
        )
    }

    /// A fresh temporary directory.
    static func directory(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "/rs-gis-\(name)-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The coordinates of a GeoJSON geometry object (all positions, in order).
    static func positions(_ g: JSONValue?) -> [[Double]] {
        guard let g else { return [] }
        if let c = g["coordinates"] { return flatten(c) }
        return (g["geometries"]?.arrayValue ?? []).flatMap { positions($0) }
    }

    private static func flatten(_ v: JSONValue) -> [[Double]] {
        guard let a = v.arrayValue else { return [] }
        if let x = a.first?.doubleValue, a.count >= 2, let y = a[1].doubleValue { return [[x, y]] }
        return a.flatMap(flatten)
    }
}
