import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

final class DelimitedReaderTests: XCTestCase {
    let scratch = IngestScratch()

    private func records(_ text: String, _ members: String = "") throws -> [ReadResult] {
        try readAll(delimited(scratch.write(text), members))
    }

    func testQuotingEmbeddedDelimitersQuotesAndNewlines() throws {
        let text = """
            id,name,category,lon,lat
            1,"Wang's ""Best"" Dumplings, Sanlitun",restaurant,116.1,39.1
            2,"two
            lines",cafe,116.2,39.2
            3,plain,"bank",116.3,39.3

            """
        let r = try records(text)
        XCTAssertEqual(r.count, 3)
        XCTAssertEqual(r[0].record?.name, "Wang's \"Best\" Dumplings, Sanlitun")
        XCTAssertEqual(r[0].record?.keywords, ["restaurant"])
        XCTAssertEqual(r[1].record?.name, "two\nlines")
        XCTAssertEqual(r[1].record?.line, 3)
        XCTAssertEqual(r[2].record?.line, 5, "the embedded line break counts as a line")
        XCTAssertEqual(r[2].record?.keywords, ["bank"])
        XCTAssertEqual(r[2].record?.lon, 116.3)
        XCTAssertEqual(r[2].record?.lat, 39.3)
        // Byte offsets point at the first byte of each record.
        let bytes = Array(text.utf8)
        for rec in r.compactMap({ $0.record }) {
            XCTAssertEqual(bytes[Int(rec.byteOffset)], Array(rec.id.utf8)[0])
        }
    }

    func testCRLFLoneCRAndBOM() throws {
        let crlf = "\u{FEFF}id,name,lon,lat\r\n1,a,1.5,2.5\r\n2,b,3.5,4.5\r\n"
        var r = try records(crlf)
        XCTAssertEqual(r.map { $0.record?.name }, ["a", "b"])
        XCTAssertEqual(r[1].record?.lat, 4.5)
        XCTAssertEqual(r[1].record?.line, 3)
        XCTAssertEqual(r[0].record?.byteOffset, 3 + 17, "offsets count the BOM and the CRLF header")
        r = try records("id,name,lon,lat\r1,a,1.5,2.5\r2,b,3.5,4.5")
        XCTAssertEqual(r.map { $0.record?.id }, ["1", "2"], "lone CR ends records, last record without terminator")
        XCTAssertEqual(r[1].record?.line, 3)
    }

    func testDelimitersSniffedAndGiven() throws {
        for (d, name) in [("\t", "tab"), ("|", "pipe"), (";", "semicolon"), (",", "comma")] {
            let text =
                ["id", "name", "lon", "lat"].joined(separator: d) + "\n"
                + ["7", "\"x, y; z\"", "10.25", "20.5"].joined(separator: d) + "\n"
            let path = scratch.write(text)
            let sniffed = try delimited(path)
            XCTAssertEqual(sniffed.delimiter, Array(d.utf8)[0], "sniffed \(name)")
            let r = try readAll(sniffed)
            XCTAssertEqual(r.first?.record?.name, "x, y; z", name)
            XCTAssertEqual(r.first?.record?.lat, 20.5, name)
            let given = try delimited(path, "\"delimiter\": \"\(name)\"")
            XCTAssertEqual(try readAll(given).first?.record?.lon, 10.25, name)
        }
    }

    /// A quote character that is the sniffed delimiter is refused as a given one is: `--quote ,`
    /// on a comma-separated file misread every record with an empty field.
    func testAQuoteThatIsTheSniffedDelimiterIsRefused() throws {
        let path = scratch.write("id,name,lon,lat,category\n1,,24.94,60.17,cafe\n4,n,24.9,60.2,cafe\n")
        XCTAssertThrowsError(try readAll(delimited(path, #""quote": ",""#))) { error in
            XCTAssertTrue("\(error)".contains("the quote character ',' is also the delimiter"), "\(error)")
            XCTAssertEqual((error as? ExitCoded)?.exitStatus, .usage)
        }
        XCTAssertEqual(try readAll(delimited(path, #""quote": "'""#)).compactMap(\.record).count, 2)
    }

    func testTrimmingConfigurable() throws {
        let text = "id , name , lon , lat\n 1 ,  padded name  , 5.5 ,  6.5 \n"
        var r = try records(text)
        XCTAssertEqual(r[0].record?.name, "padded name")
        XCTAssertEqual(r[0].record?.lon, 5.5)
        let path = scratch.write("id,name,lon,lat\n1,  padded  ,5.5,6.5\n")
        r = try readAll(delimited(path, "\"trim\": false"))
        XCTAssertEqual(r[0].record?.name, "padded", "id and name are trimmed when kept")
        let q = try records("id,name,lon,lat\n1,  \"quoted, with blanks\"  ,5.5,6.5\n")
        XCTAssertEqual(q[0].record?.name, "quoted, with blanks", "blanks around quotes are trimmed")
        let keep = try readAll(delimited(scratch.write("id,name,lon,lat\n1,  \"q,x\"  ,5.5,6.5\n"), "\"trim\": false"))
        XCTAssertEqual(
            keep[0].rejected?.reason, "wrong column count: 5, expected 4",
            "without trim a blank before a quote makes it literal")
    }

    func testHeaderDetectionAndIndexMapping() throws {
        // No header, 0-based indexes; auto detection sees numbers in the coordinate fields.
        let noHeader = scratch.write("a\tx;y\t 120.5,30.25\nb\tz\t 121.5,31.25\n")
        let r = try readAll(delimited(noHeader, "\"columns\": {\"name\": 0, \"keywords\": [1], \"coordinates\": 2}"))
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r[0].record?.name, "a")
        XCTAssertEqual(r[0].record?.keywords, ["x", "y"])
        XCTAssertEqual(r[0].record?.lon, 120.5)
        XCTAssertEqual(r[0].record?.lat, 30.25)
        XCTAssertEqual(r[0].record?.line, 1)
        // Same mapping with a header line: auto detection skips it.
        let withHeader = scratch.write("n\tk\tc\na\tx\t120.5,30.25\n")
        let reader = try delimited(withHeader, "\"columns\": {\"name\": 0, \"keywords\": [1], \"coordinates\": 2}")
        XCTAssertTrue(reader.hasHeader)
        XCTAssertEqual(try readAll(reader).count, 1)
        // With lon and lat by index, a header names both; a first record whose longitude alone is
        // garbled is a record (its coordinates unreadable), not a header dropped uncounted.
        let lonLat = "\"columns\": {\"id\": 0, \"lon\": 1, \"lat\": 2}"
        let garbled = try readAll(delimited(scratch.write("1,116.4x,39.9\n2,116.5,39.8\n"), lonLat))
        XCTAssertEqual(garbled.map { $0.record?.id }, ["1", "2"])
        XCTAssertEqual(garbled[0].record?.lon.isNaN, true)
        let headed = try delimited(scratch.write("id,x,y\n2,116.5,39.8\n"), lonLat)
        XCTAssertTrue(headed.hasHeader)
        XCTAssertEqual(try readAll(headed).map { $0.record?.id }, ["2"])
        // Explicit header false keeps the first line as data (and rejects it: "c" is no coordinate).
        let forced = try readAll(
            delimited(withHeader, "\"header\": false, \"columns\": {\"name\": 0, \"coordinates\": 2}"))
        XCTAssertEqual(forced.count, 2)
        XCTAssertEqual(forced[0].record?.lon.isNaN, true)
        // Names are matched exactly, then case-insensitively.
        let named = scratch.write("ID,Title,Y,X,Kind\n9,t,1.25,2.25,k\n")
        let n = try readAll(
            delimited(
                named,
                "\"columns\": {\"id\": \"id\", \"name\": \"Title\", \"lat\": "
                    + "\"Y\", \"lon\": \"X\", \"keywords\": \"kind\"}"
            ))
        XCTAssertEqual(n[0].record?.id, "9")
        XCTAssertEqual(n[0].record?.lon, 2.25)
        XCTAssertEqual(n[0].record?.lat, 1.25)
        XCTAssertEqual(n[0].record?.keywords, ["k"])
    }

    func testUnknownColumnNameIsAUsageErrorWithSuggestion() throws {
        let path = scratch.write("id,name,longitude,latitude\n1,a,1,2\n")
        XCTAssertThrowsError(try delimited(path, "\"columns\": {\"lon\": \"longitud\", \"lat\": \"latitude\"}")) {
            error in
            let message = "\(error)"
            XCTAssertTrue(error is UsageError, message)
            XCTAssertTrue(message.contains("inputs[0].columns.lon: no column named 'longitud'"), message)
            XCTAssertTrue(message.contains("did you mean 'longitude'?"), message)
        }
        XCTAssertThrowsError(try delimited(path, "\"columns\": {\"lon\": 9, \"lat\": 1}")) { error in
            XCTAssertTrue("\(error)".contains("column index 9 (0-based) but"), "\(error)")
        }
        let bare = scratch.write("1,2,3\n")
        XCTAssertThrowsError(try delimited(bare, "\"header\": false")) { error in
            XCTAssertTrue("\(error)".contains("cannot tell which columns"), "\(error)")
        }
    }

    /// Two columns of one name: reading the first would drop the other's values, so a column
    /// named (or guessed) by that name is refused until it is given by index.
    func testAColumnNameTwoColumnsShareIsAUsageError() throws {
        let path = scratch.write("id,category,name,category,lon,lat\n1,shop,a,bank,1,2\n")
        XCTAssertThrowsError(try delimited(path, "\"columns\": {\"keywords\": \"category\"}")) { error in
            XCTAssertTrue(error is UsageError, "\(error)")
            let expected = "columns.keywords[0]: 2 columns of '\(path)' are named 'category' (0-based indices 1, 3)"
            XCTAssertTrue("\(error)".contains(expected), "\(error)")
        }
        XCTAssertThrowsError(try delimited(path)) { error in
            let expected = "columns.keywords: 2 columns of '\(path)' are named 'category'"
            XCTAssertTrue("\(error)".contains(expected), "\(error)")
        }
        let byIndex = try readAll(delimited(path, "\"columns\": {\"keywords\": 3}"))
        XCTAssertEqual(byIndex.first?.record?.keywords, ["bank"])
        // Names that differ in case are two names: the exact one is read.
        let cased = scratch.write("id,Kind,kind,lon,lat\n1,shop,bank,1,2\n")
        let exact = try readAll(delimited(cased, "\"columns\": {\"keywords\": \"kind\"}"))
        XCTAssertEqual(exact.first?.record?.keywords, ["bank"])
    }

    func testGuessedColumns() throws {
        let path = scratch.write("osm_id,Name,Longitude,Latitude,Category\n5,n,10.5,20.5,Cafe\n")
        let reader = try delimited(path)
        let r = try readAll(reader)
        XCTAssertEqual(r[0].record?.id, "5")
        XCTAssertEqual(r[0].record?.name, "n")
        XCTAssertEqual(r[0].record?.lon, 10.5)
        XCTAssertEqual(r[0].record?.keywords, ["Cafe"])
        XCTAssertEqual(
            reader.guessedColumns,
            ["id='osm_id'", "name='Name'", "keywords='Category'", "lon='Longitude'", "lat='Latitude'"])
    }

    func testCombinedCoordinateColumnOrders() throws {
        let path = scratch.write(
            "id|pos\n1|30.5,60.25\n2|[30.5, 60.25]\n3|30.5 60.25\n4|(30.5;60.25)\n5|30.5\n6|NULL\n")
        let lonLat = try readAll(delimited(path, "\"columns\": {\"id\": \"id\", \"coordinates\": \"pos\"}"))
        for k in 0..<4 {
            XCTAssertEqual(lonLat[k].record?.lon, 30.5, "row \(k)")
            XCTAssertEqual(lonLat[k].record?.lat, 60.25, "row \(k)")
        }
        XCTAssertEqual(lonLat[4].record?.lon.isNaN, true, "one number is not a pair")
        XCTAssertEqual(lonLat[5].record?.lat.isNaN, true)
        let latLon = try readAll(
            delimited(path, "\"columns\": {\"coordinates\": \"pos\"}, \"coordinate_order\": \"lat_lon\""))
        XCTAssertEqual(latLon[0].record?.lon, 60.25)
        XCTAssertEqual(latLon[0].record?.lat, 30.5)
    }

    func testWKTColumn() throws {
        let rows = [
            "POINT(13.25 52.5)", "point ( 13.25   52.5 )", "SRID=4326;POINT(13.25 52.5)", "POINT Z (13.25 52.5 34)",
            "POINT EMPTY", "LINESTRING(0 0, 1 1)", "SRID=3857;POINT(1 2)", "POINT(1)",
        ]
        let path = scratch.write(
            "id|geom\n" + rows.enumerated().map { "\($0.offset)|\($0.element)" }.joined(separator: "\n") + "\n")
        let reader = try delimited(path)
        var out: [(Double, Double, String?)] = []
        while let r = try reader.next() {
            let rec = try XCTUnwrap(r.record)
            out.append((rec.lon, rec.lat, reader.lastCoordinateText()))
        }
        for k in 0..<4 {
            XCTAssertEqual(out[k].0, 13.25, rows[k])
            XCTAssertEqual(out[k].1, 52.5, rows[k])
        }
        XCTAssertTrue(out[4].0.isNaN)
        XCTAssertNil(out[4].2, "POINT EMPTY is missing, not unreadable")
        for k in 5..<8 {
            XCTAssertTrue(out[k].0.isNaN, rows[k])
            XCTAssertEqual(out[k].2, "wkt=\"\(rows[k])\"", rows[k])
        }
    }

    func testListLiteralsHierarchiesAndMissingMarkers() throws {
        let text = """
            id|name|rubrics|lon|lat
            1|Нет|['Кафе', 'Бары', 'Нет']|30|60
            2|b|["a \\"quoted\\" one", "x\\u00e9", 'it\\'s']|30|60
            3|c|[]|30|60
            4|d|['broken', [nested]]|30|60
            5|e|餐饮服务;中餐厅;火锅店|30|60
            6|f|Нет|30|60
            7|g|[None, 42, u'py2']|30|60
            8|h| ;a; ;b;|30|60

            """
        let r = try readAll(delimited(scratch.write(text), "\"missing_values\": [\"Нет\"]"))
        XCTAssertEqual(r.count, 8)
        XCTAssertEqual(r[0].record?.name, "", "the marker is missing in any column")
        XCTAssertEqual(r[0].record?.keywords, ["Кафе", "Бары"])
        XCTAssertEqual(r[1].record?.keywords, ["a \"quoted\" one", "xé", "it's"])
        XCTAssertEqual(r[2].record?.keywords, [])
        XCTAssertEqual(r[3].record?.keywords, ["['broken', [nested]]"], "not a flat list: kept whole")
        XCTAssertEqual(r[4].record?.keywords, ["餐饮服务", "中餐厅", "火锅店"])
        XCTAssertEqual(r[5].record?.keywords, [])
        XCTAssertEqual(r[6].record?.keywords, ["42", "py2"])
        XCTAssertEqual(r[7].record?.keywords, ["a", "b"])
        // Explicit split rules per column.
        let per = scratch.write("id,k1,k2,lon,lat\n1,a;b,\"[x, y]\",1,2\n")
        let p = try readAll(
            delimited(
                per,
                """
                "columns": {"keywords": [{"column": "k1", "split": "plain"}, {"column": "k2", "split": "hierarchy", "separator": ","}]}
                """))
        XCTAssertEqual(p[0].record?.keywords, ["a;b", "[x", "y]"])
    }

    func testRejectsWrongColumnCountUnterminatedQuoteAndInvalidUTF8() throws {
        var bytes = Array("id,name,lon,lat\n1,a,1,2\n2,b,1\n3,\"open,1,2\n4,d,1,2\n".utf8)
        let badOffset = bytes.count + 3
        bytes += Array("5,e".utf8) + [0xC3, 0x28] + Array(",1,2\n6,f,1,2\n".utf8)
        let reader = try delimited(scratch.write(bytes))
        let r = try readAll(reader)
        XCTAssertEqual(r.count, 6)
        XCTAssertEqual(r[0].record?.id, "1")
        XCTAssertEqual(r[1].rejected?.reason, "wrong column count: 3, expected 4")
        XCTAssertEqual(r[1].rejected?.line, 3)
        XCTAssertEqual(r[1].rejected?.raw, "2,b,1")
        XCTAssertEqual(r[1].rejected?.byteOffset, 24)
        let unterminated = try XCTUnwrap(r[2].rejected)
        XCTAssertTrue(unterminated.reason.hasPrefix("unterminated quote: "), unterminated.reason)
        XCTAssertEqual(unterminated.raw, "3,\"open,1,2", "only the line with the stray quote is lost")
        XCTAssertEqual(unterminated.line, 4)
        XCTAssertEqual(r[3].record?.id, "4", "reading resumes on the next line")
        XCTAssertEqual(r[3].record?.line, 5)
        XCTAssertEqual(r[4].rejected?.reason, "invalid UTF-8: first bad byte at offset \(badOffset)")
        XCTAssertEqual(r[4].rejected?.line, 6)
        XCTAssertEqual(r[5].record?.id, "6")
    }

    /// A stray quote whose field a later quote closes: the record that joins the lines between
    /// has the wrong column count. Only the stray quote's line is rejected; the lines it joined
    /// are read as records again. A quoted line break in a record of the right width stays one record.
    func testAStrayQuoteClosedLinesLaterCostsOnlyItsLine() throws {
        var text = "id,name,lon,lat\n1,a,1,2\n2,\"Joe's 5,1,2\n"
        for i in 3...200 { text += "\(i),n\(i),1,2\n" }
        text += "201,\"Quoted, Name\",1,2\n202,\"two\nlines\",1,2\n203,z,1,2\n"
        let r = try readAll(delimited(scratch.write(text)))
        let rejected = r.compactMap(\.rejected)
        XCTAssertEqual(rejected.count, 1)
        XCTAssertEqual(rejected.first?.line, 3)
        XCTAssertEqual(rejected.first?.raw, "2,\"Joe's 5,1,2")
        let reason = rejected.first?.reason ?? ""
        let expected = "unterminated quote: a quoted field opens on this line and is closed only 199 line(s) later"
        XCTAssertTrue(reason.hasPrefix(expected), reason)
        let records = r.compactMap(\.record)
        XCTAssertEqual(records.map(\.id), ["1"] + (3...203).map(String.init))
        XCTAssertEqual(records.first { $0.id == "3" }?.line, 4, "line numbers go on from the rejected line")
        XCTAssertEqual(records.first { $0.id == "201" }?.name, "Quoted, Name")
        XCTAssertEqual(records.first { $0.id == "202" }?.name, "two\nlines")
        XCTAssertEqual(records.last?.line, 205)
        // The same with CRLF line ends: the rejected line is without its CR, reading resumes after its LF.
        let crlf = try readAll(
            delimited(scratch.write("id,name,lon,lat\r\n1,a,1,2\r\n2,\"Joe,1,2\r\n3,c,1,2\r\n4,c,\"1\",2\r\n")))
        XCTAssertEqual(crlf.compactMap(\.rejected).map(\.raw), ["2,\"Joe,1,2"])
        XCTAssertEqual(crlf.compactMap(\.record).map(\.id), ["1", "3", "4"])
    }

    func testBlankLinesAreSkippedAndCounted() throws {
        let reader = try delimited(scratch.write("\n\nid,lon,lat\n\n1,1,2\n   \n\r\n2,3,4\n\n"))
        let r = try readAll(reader)
        XCTAssertEqual(r.compactMap { $0.record?.id }, ["1", "2"])
        XCTAssertEqual(r[1].record?.line, 8)
        XCTAssertEqual(reader.blankLines, 6)
    }

    func testTextAfterClosingQuoteIsKept() throws {
        let r = try records("id,name,lon,lat\n1,\"ab\"c d,1,2\n2,x\"y\"z,1,2\n")
        XCTAssertEqual(r[0].record?.name, "abc d")
        XCTAssertEqual(r[1].record?.name, "x\"y\"z", "quotes inside an unquoted field are text")
    }

    func testNumbersInOtherForms() throws {
        let r = try records("id,lon,lat\n1,1.5e1,-2.5E-1\n2,+3,.5\n3,abc,1\n4,1,\n5,12.3456789012345678,1\n")
        XCTAssertEqual(r[0].record?.lon, 15)
        XCTAssertEqual(r[0].record?.lat, -0.25)
        XCTAssertEqual(r[1].record?.lon, 3)
        XCTAssertEqual(r[1].record?.lat, 0.5)
        XCTAssertEqual(r[2].record?.lon.isNaN, true)
        XCTAssertEqual(r[3].record?.lat.isNaN, true)
        XCTAssertEqual(r[4].record?.lon, 12.3456789012345678)
    }

    func testNumericMissingMarkerWins() throws {
        let r = try readAll(
            delimited(scratch.write("id,lon,lat\n1,-999,-999\n2,1,2\n"), "\"missing_values\": [\"-999\"]"))
        XCTAssertEqual(r[0].record?.lon.isNaN, true)
        XCTAssertEqual(r[1].record?.lon, 1)
    }

    /// Records spanning buffer refills (the buffer holds 1 MiB) and the batch interface agree
    /// with a plain reference parser run over the whole text.
    func testLargeInputAgreesWithReferenceParserAcrossRefills() throws {
        var rng = SeededRandom(seed: 7)
        var text = "id,name,category,lon,lat\n"
        var expected: [(String, String, String, Double, Double)] = []
        let words = ["Café", "a,b", "say \"hi\"", "two\nlines", "火锅", "plain", " spaced ", "x\r\ny"]
        while text.utf8.count < 2_300_000 {
            let id = String(expected.count + 1)
            let name = (0..<Int.random(in: 1...3, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(
                separator: "/")
            let category = ["restaurant", "咖啡", "bank;atm", "[\"x\", \"y\"]"].randomElement(using: &rng)!
            let lon = Double(Int.random(in: -1_800_000_000...1_800_000_000, using: &rng)) / 1e7
            let lat = Double(Int.random(in: -900_000_000...900_000_000, using: &rng)) / 1e7
            func quoted(_ s: String) -> String {
                s.unicodeScalars.contains(where: { ",\"\n\r".unicodeScalars.contains($0) }) || s.hasPrefix(" ")
                    || s.hasSuffix(" ")
                    ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
            }
            text += [id, quoted(name), quoted(category), String(lon), String(lat)].joined(separator: ",") + "\n"
            expected.append((id, name, category, lon, lat))
        }
        let path = scratch.write(text)
        let r = try readAll(delimited(path))
        XCTAssertEqual(r.count, expected.count)
        for (k, e) in expected.enumerated() {
            guard let rec = r[k].record else { return XCTFail("row \(k) rejected: \(r[k])") }
            XCTAssertEqual(rec.id, e.0)
            XCTAssertEqual(rec.name, e.1.trimmingCharacters(in: .whitespaces), "row \(k)")
            XCTAssertEqual(rec.lon, e.3, "row \(k)")
            XCTAssertEqual(rec.lat, e.4, "row \(k)")
            let keywords: [String]
            switch e.2 {
            case "bank;atm": keywords = ["bank", "atm"]
            case "[\"x\", \"y\"]": keywords = ["x", "y"]
            default: keywords = [e.2]
            }
            XCTAssertEqual(rec.keywords, keywords, "row \(k)")
            if k > 50 { break }  // spot-check the values; counts and ids below cover all rows
        }
        XCTAssertEqual(r.compactMap { $0.record?.id }, expected.map { $0.0 })
        // The batch interface gives the same records.
        let batchReader = try delimited(path)
        var batch = RecordBatch()
        var ids: [String] = []
        var lons: [Double] = []
        while try batchReader.nextBatch(&batch, limit: 777) {
            batch.withBytes { f in
                for e in batch.entries {
                    ids.append(String(decoding: f[e.id], as: UTF8.self))
                    lons.append(e.lon)
                }
            }
        }
        XCTAssertEqual(ids, expected.map { $0.0 })
        XCTAssertEqual(lons, expected.map { $0.3 })
    }

    func testEmptyInputGivesNoRecords() throws {
        XCTAssertEqual(try records("").count, 0)
        XCTAssertEqual(try records("\n\n").count, 0)
        XCTAssertEqual(try records("id,lon,lat\n").count, 0)
    }
}
