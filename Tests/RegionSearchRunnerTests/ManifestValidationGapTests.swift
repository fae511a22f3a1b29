import XCTest

@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Values that passed the manifest check and failed only later (exit 7, "Argument list too
/// long"), or silently meant something else: each is now exit 2 before anything runs.
final class ManifestValidationGapTests: XCTestCase, ManifestParsing {
    private func manifest(keywords: String = #"["cafe"]"#, _ sections: String = "") -> String {
        """
        {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o.geojson",
         "keywords": \(keywords)\(sections)}
        """
    }

    /// A manifest saved as UTF-16 read as "unexpected character '\\xff'": it is named UTF-16 now.
    func testAUTF16ManifestIsNamedForWhatItIs() throws {
        for bom: [UInt8] in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            var bytes = bom
            for unit in manifest().utf16 {
                let (hi, lo) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
                bytes += bom[0] == 0xFF ? [lo, hi] : [hi, lo]
            }
            XCTAssertThrowsError(try Manifest(bytes: bytes, file: "m.json", directory: "/base")) { error in
                XCTAssertTrue("\(error)".contains("UTF-16 text"), "\(error)")
                XCTAssertTrue("\(error)".contains("save it as UTF-8"), "\(error)")
            }
        }
    }

    func testBadBboxIsRefused() {
        XCTAssertTrue(message(manifest(#", "ingest": {"bbox": "1,2,3"}"#)).contains("ingest.bbox: expected west,south"))
        XCTAssertTrue(message(manifest(#", "ingest": {"bbox": "0,10,1,5"}"#)).contains("is north of north"))
    }

    func testWildcardOnlyKeywordsAreRefused() {
        for k in [#""*""#, #"" * ""#, #""**""#] {
            let m = message(manifest(keywords: "[\"cafe\", \(k)]"))
            XCTAssertTrue(m.contains("keywords[1]"), m)
        }
        XCTAssertEqual(try parse(manifest(keywords: #"["cafe*"]"#)).keywords, ["cafe*"])
    }

    func testControlCharactersInAKeywordAreRefused() {
        let m = message(manifest(keywords: #"["caf\u0000e"]"#))
        XCTAssertTrue(m.contains("pipelines/x.json:2:15: keywords[0]: holds the control character U+0000"), m)
        XCTAssertTrue(message(manifest(keywords: #"["a\tb"]"#)).contains("U+0009"))
    }

    /// A NUL in a path cut it short where the system read it: `city.csv\u0000-tonight.csv` read
    /// `city.csv`, exit 0; a work directory `w2\u0000zzz` made `w2/`.
    func testANULInAPathOrNameIsRefused() {
        for (sections, key) in [
            (
                #"{"inputs": [{"path": "a.csv\u0000-b.csv"}], "work_dir": "w", "output": "o.geojson", "keywords": ["c"]}"#,
                "inputs[0].path"
            ),
            (
                #"{"inputs": [{"path": "a.csv"}], "work_dir": "w\u0000z", "output": "o.geojson", "keywords": ["c"]}"#,
                "work_dir"
            ),
            (
                #"{"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": {"path": "o\u0000.gpkg"}, "keywords": ["c"]}"#,
                "output.path"
            ),
        ] {
            let m = message(sections)
            XCTAssertTrue(m.contains("\(key): holds the control character U+0000 (NUL)"), m)
        }
    }

    func testOverlongKeywordsAreRefusedWithTheLimit() {
        let long = String(repeating: "a", count: 200_000)
        let m = message(manifest(keywords: "[\"\(long)\"]"))
        XCTAssertTrue(m.contains("keywords[0]: is 200000 bytes long; at most 1000"), String(m.prefix(300)))
        let many = (0..<200).map { "\"\(String(repeating: "k", count: 900))\($0)\"" }.joined(separator: ",")
        XCTAssertTrue(message(manifest(keywords: "[\(many)]")).contains("at most 100000"))
    }

    /// A Shapefile holds at most 254 bytes in a text field: two keywords that differ after that
    /// would come out as one. Refused for a Shapefile output, kept for GeoPackage.
    func testAKeywordTooLongForAShapefileIsRefusedForOne() {
        let long = #"[""# + String(repeating: "x", count: 300) + #"a", "cafe"]"#
        let m = message(
            #"{"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o.shp", "keywords": \#(long)}"#)
        XCTAssertTrue(m.contains("keywords[0]: is 301 bytes long, and the Shapefile"), m)
        XCTAssertTrue(m.contains("holds at most 254 bytes in a text field"), m)
        XCTAssertNoThrow(
            try parse(#"{"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o.gpkg", "keywords": \#(long)}"#))
    }

    /// The POI layer has 5 columns per keyword: a GeoPackage table holds at most 2,000 columns, so
    /// 400 keywords with a GeoPackage POI layer are refused at load (they failed after every stage);
    /// 399 are taken, and FlatGeobuf has no such limit.
    func testAPOILayerWithMoreColumnsThanItsFormatHoldsIsRefused() {
        func manifest(_ count: Int, poi: String) -> String {
            let keywords = (0..<count).map { "\"kw\($0)\"" }.joined(separator: ",")
            return """
                {"inputs": [{"path": "a.csv"}], "work_dir": "w", "output": "o.geojson", "poi_output": "\(poi)",
                 "keywords": [\(keywords)]}
                """
        }
        let m = message(manifest(400, poi: "p.gpkg"))
        XCTAssertTrue(m.contains("poi_output: the POI layer would have 2005 columns (5 per keyword for 400"), m)
        XCTAssertTrue(m.contains("a GeoPackage table holds at most 2000"), m)
        XCTAssertNoThrow(try parse(manifest(399, poi: "p.gpkg")))
        XCTAssertNoThrow(try parse(manifest(400, poi: "p.fgb")))
    }

    func testHugeHullSizesAreRefused() {
        XCTAssertTrue(message(manifest(#", "hulls": {"min_extent_m": 1e308}"#)).contains("hulls.min_extent_m"))
        XCTAssertTrue(message(manifest(#", "hulls": {"margin_m": 1e308}"#)).contains("hulls.margin_m"))
        XCTAssertNoThrow(try parse(manifest(#", "hulls": {"min_extent_m": 500}"#)))
    }
}
