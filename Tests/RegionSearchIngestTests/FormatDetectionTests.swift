import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// Binary inputs are told by their magic bytes, read through OGR or refused by name — never read
/// as CSV — and no control character of an input reaches a message.
final class FormatDetectionTests: XCTestCase {
    let scratch = IngestScratch()

    private func opened(_ path: String, _ extra: String = "") throws -> OpenedInput {
        try OpenedInput.open(spec(#"{"path": "\#(path)"\#(extra)}"#))
    }

    func testGDALFormatsAreDetectedByTheirBytesAndReadThroughOGR() throws {
        let source = scratch.write(OGRInputTests.points, name: "p.geojson")
        // Names without their extension: the bytes decide.
        let cases: [(String, [String], SniffedFormat)] = [
            ("gpkg", ["-f", "GPKG"], .geoPackage),
            ("sqlite", ["-f", "SQLite"], .sqlite),
            ("fgb", ["-f", "FlatGeobuf"], .flatGeobuf),
            ("kml", ["-f", "KML"], .kml),
            ("gpx", ["-f", "GPX", "-dsco", "GPX_USE_EXTENSIONS=YES"], .gpx),
            ("gml", ["-f", "GML"], .gml),
        ]
        for (name, options, sniffed) in cases {
            let made = scratch.path("p." + name)
            try GIS.ogr2ogr(options + [made, source])
            let plain = scratch.path("no-extension-" + name)
            try FileManager.default.copyItem(atPath: made, toPath: plain)
            XCTAssertEqual(FormatSniffer.sniff(scratch.read(plain).prefix(4096)), sniffed, name)
            let input = try opened(plain)
            XCTAssertEqual(input.format, .ogr, name)
            if name != "gpx" {  // GPX's first layer is its (empty) waypoints list of another name
                XCTAssertEqual(try readAll(input.source).compactMap { $0.record }.count, 4, name)
            }
        }
        // A Shapefile's .shp and a zipped Shapefile.
        try GIS.ogr2ogr(["-f", "ESRI Shapefile", scratch.path("s.shp"), source])
        XCTAssertEqual(FormatSniffer.sniff(scratch.read(scratch.path("s.shp"))), .shapefileMain)
        XCTAssertEqual(try opened(scratch.path("s.shp")).format, .ogr)
        try GIS.ogr2ogr(["-f", "ESRI Shapefile", scratch.path("z.shp.zip"), source])
        XCTAssertEqual(FormatSniffer.sniff(scratch.read(scratch.path("z.shp.zip"))), .zip)
        XCTAssertEqual(try readAll(try opened(scratch.path("z.shp.zip")).source).count, 4)
        try GIS.ogr2ogr(["-f", "MapInfo File", scratch.path("m.tab"), source])
        XCTAssertEqual(FormatSniffer.sniff(scratch.read(scratch.path("m.tab"))), .mapInfo)
    }

    func testWhatNoReaderTakesIsRefusedByName() throws {
        let text = Array("id,name,lon,lat\n1,a,24.9,60.1\n".utf8)
        let cases: [([UInt8], String)] = [
            (
                [0x42, 0x5A, 0x68, 0x39] + [UInt8](repeating: 7, count: 60),
                "bzip2-compressed data; decompress it first"
            ),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00] + [UInt8](repeating: 7, count: 60), "xz-compressed"),
            ([0x28, 0xB5, 0x2F, 0xFD] + [UInt8](repeating: 7, count: 60), "zstd-compressed"),
            (
                Array("PAR1".utf8) + [UInt8](repeating: 7, count: 60),
                "a Parquet file, which this GDAL (3.6) cannot read"
            ),
            ([0xFF, 0xFE] + text.flatMap { [$0, 0] }, "UTF-16 LE text (byte-order mark FF FE); convert it to UTF-8"),
            ([0xFE, 0xFF] + text.flatMap { [0, $0] }, "UTF-16 BE text"),
            ([0xFF, 0xFE, 0, 0] + text.flatMap { [$0, 0, 0, 0] }, "UTF-32 LE text"),
            ([0, 1, 2, 3, 200, 201, 0, 9] + [UInt8](repeating: 0, count: 100), "binary data of an unknown format"),
            // UTF-16 without a byte-order mark: a NUL in every other byte.
            (text.flatMap { [$0, 0] }, "binary data of an unknown format"),
        ]
        // One damaged record's NUL in the first 4 KB leaves text text (the reader rejects that record).
        var damaged = Array(("id,name,lon,lat\n" + String(repeating: "1,a,24.9,60.1\n", count: 300)).utf8)
        damaged[40] = 0
        XCTAssertEqual(FormatSniffer.sniff(Array(damaged.prefix(4096))), .text(.utf8))
        for (bytes, expected) in cases {
            let path = scratch.write(bytes, name: "refused-\(expected.prefix(8)).csv")
            XCTAssertThrowsError(try opened(path), expected) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertEqual((error as? ExitCoded)?.exitStatus, .inputData)
            }
        }
    }

    func testABinaryFileGivenAsCSVIsRefusedWithItsFormat() throws {
        let source = scratch.write(OGRInputTests.points, name: "q.geojson")
        let gpkg = scratch.path("q.gpkg")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, source])
        XCTAssertThrowsError(try opened(gpkg, #", "format": "csv", "columns": {"lon": "x", "lat": "y"}"#)) { error in
            XCTAssertEqual(
                "\(error)",
                "\(gpkg): the file is a GeoPackage (SQLite) file, not delimited text; give \"format\": \"ogr\" "
                    + "or leave the format to detection")
        }
    }

    func testControlCharactersOfAnInputNeverReachAMessage() throws {
        let path = scratch.write("i\u{1B}[2Jd,na\u{07}me,lon,lat\n1,a,24.9,60.1\n", name: "controls.csv")
        XCTAssertThrowsError(try opened(path, #", "columns": {"id": "zz"}"#)) { error in
            let text = "\(error)"
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, text)
            XCTAssertTrue(text.contains(#"'i\x1b[2Jd', 'na\x07me'"#), text)
        }
        XCTAssertEqual(PrintableText.of("a\tb\u{0}c\u{85}d"), "a\\tb\\x00c\\x85d")
        XCTAssertEqual(PrintableText.of(bytes: [0x61, 0xFF, 0x62]), "a\\xffb")
        XCTAssertEqual(PrintableText.of("美食 Кафе"), "美食 Кафе")
        XCTAssertEqual(PrintableText.of(String(repeating: "x", count: 10), limit: 4), "xxxx…")
    }
}
