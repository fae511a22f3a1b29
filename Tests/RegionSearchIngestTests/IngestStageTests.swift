import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// The ingest stage in-process: duplicates, rejects files, failures, counts, determinism.
final class IngestStageTests: XCTestCase {
    let scratch = IngestScratch()

    private func load(_ path: String) throws -> (POITable, JSONValue) {
        let file = try ArtifactFile(path: path, expected: .pois)
        return (try POITable(artifact: file), file.metadata)
    }

    private func ingest(_ inputs: [String], _ extra: [String] = [], name: String = "out") throws -> (
        POITable, JSONValue, String
    ) {
        let out = scratch.path(name + ".rsa")
        let rejects = scratch.path(name + ".rejects")
        try runIngest(
            inputs + ["--output", out, "--rejects", rejects, "--summary", scratch.path(name + ".json")] + extra)
        let (table, meta) = try load(out)
        return (table, meta, scratch.text(rejects))
    }

    private func counts(_ meta: JSONValue) -> [String: Int] {
        var out: [String: Int] = [:]
        for (k, v) in meta["counts"]?.objectValue ?? [] { if let i = v.intValue { out[k] = i } }
        return out
    }

    let duplicates = """
        id,name,category,lon,lat
        1,A,cafe,10,20
        2,B,bank,11,21
        1,A2,bar;Cafe,12,22
        3,C,,13,23
        1,A3,CAFE,14,24
        ,D,x,15,25
        ,E,y,16,26

        """

    func testDuplicatePolicies() throws {
        let path = scratch.write(duplicates)
        let (merged, mm, _) = try ingest([path], name: "merge")
        XCTAssertEqual(merged.count, 5)
        XCTAssertEqual(merged.ids[0], "1")
        XCTAssertEqual(merged.names[0], "A", "the first record's name wins")
        XCTAssertEqual(merged.lon[0], 10, "the first record's coordinates win")
        XCTAssertEqual(
            KeywordText.readable(merged.keywords[0], keys: merged.keywordKeys), "category=cafe\ncategory=bar",
            "keyword values are united without repeats")
        XCTAssertEqual(merged.keywords[2], "", "no keywords")
        XCTAssertEqual(merged.ids[3], "")
        XCTAssertEqual(merged.ids[4], "", "empty ids are never duplicates")
        XCTAssertEqual(counts(mm)["merged_duplicates"], 2)
        XCTAssertEqual(counts(mm)["read"], 7)

        let (first, fm, _) = try ingest([path, "--duplicates", "keep_first"], name: "first")
        XCTAssertEqual(first.count, 5)
        XCTAssertEqual(KeywordText.values(first.keywords[0]), ["cafe"])
        XCTAssertEqual(counts(fm)["dropped_duplicates"], 2)

        let (all, am, _) = try ingest([path, "--duplicates", "keep_all"], name: "all")
        XCTAssertEqual(all.count, 7)
        XCTAssertEqual(all.names[2], "A2")
        XCTAssertEqual(KeywordText.values(all.keywords[2]), ["bar", "cafe"])
        XCTAssertEqual(counts(am)["kept_duplicates"], 2)
        XCTAssertEqual(counts(am)["accepted"], 7)
        XCTAssertEqual(all.line, [2, 3, 4, 5, 6, 7, 8])
    }

    func testNameAsKeywordAndNormalisation() throws {
        let path = scratch.write(
            "id,name,category,lon,lat\n1,Ｓｔａｒｂｕｃｋｓ  Coffee,ＣＡＦＥ;Café;cafe,1,2\n2,Straße,STRASSE,3,4\n")
        let (t, _, _) = try ingest([path, "--name-as-keyword", "true"], name: "names")
        XCTAssertEqual(
            KeywordText.readable(t.keywords[0], keys: t.keywordKeys),
            "category=cafe\ncategory=café\nname=starbucks coffee")
        XCTAssertEqual(
            KeywordText.readable(t.keywords[1], keys: t.keywordKeys), "category=strasse\nname=strasse",
            "case folding makes Straße equal to STRASSE (kept once per key)")
        XCTAssertEqual(t.names[0], "Ｓｔａｒｂｕｃｋｓ  Coffee", "names are stored as given")
    }

    func testDelimitedRejectsFileKeepsTheInputFormat() throws {
        let text = "id|name|lon|lat\n1|a|1|2\n2|b|0|0\n3|c|200|5\n4|\"d|e\"|x|y\n5|f|3\n6|g|2|1\n"
        let path = scratch.write(text, name: "in.psv")
        let (t, meta, rejects) = try ingest([path, "--max-reject-ratio", "0.9"], name: "rej")
        XCTAssertEqual(t.count, 2)
        let lines = rejects.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], "source_file|line|byte_offset|reason|id|name|lon|lat")
        XCTAssertEqual(lines[1], "\(path)|3|24|null island: lon = lat = 0|2|b|0|0")
        XCTAssertEqual(lines[2], "\(path)|4|32|longitude out of range: 200|3|c|200|5")
        XCTAssertEqual(
            lines[3], "\(path)|5|42|\"unreadable coordinates: lon=\"\"x\"\" lat=\"\"y\"\"\"|4|\"d|e\"|x|y",
            "fields with quotes are quoted")
        XCTAssertEqual(lines[4], "\(path)|6|54|wrong column count: 3, expected 4|5|f|3")
        XCTAssertEqual(lines.count, 6)
        XCTAssertEqual(lines[5], "")
        let c = counts(meta)
        XCTAssertEqual(c["read"], 6)
        XCTAssertEqual(c["rejected"], 4)
        XCTAssertEqual(meta["counts"]?["reject_reasons"]?["null island"], .number(1))
        // The rejects file reads back as delimited text with the same columns plus four.
        let again = try readAll(
            delimited(scratch.path("rej.rejects"), "\"columns\": {\"id\": \"id\", \"lon\": \"lon\", \"lat\": \"lat\"}"))
        XCTAssertEqual(again.compactMap { $0.record?.id }, ["2", "3", "4"])
        XCTAssertEqual(again.compactMap { $0.rejected?.reason }, ["wrong column count: 7, expected 8"])
    }

    /// A reject whose record leaves a quote open is kept as one quoted field: written as it was,
    /// its open quote swallowed the next reject (4 rejects read back as 3).
    func testARejectWithAnOpenQuoteReadsBackOnItsOwn() throws {
        let text =
            "id,name,lon,lat,category\n1,\"a,24.94,60.17,cafe\n2,b,0,0,restaurant\n3,c,200,60.172,cafe\n"
            + "4,\"q\"\"x\",24.9,60.1,cafe,extra\n5,e,24.9,60.1,cafe\n"
        let path = scratch.write(text, name: "open.csv")
        let (t, _, rejects) = try ingest([path, "--max-reject-ratio", "1"], name: "open")
        XCTAssertEqual(t.count, 1)
        let again = try readAll(
            delimited(
                scratch.path("open.rejects"),
                #""columns": {"id": "source_file", "name": "reason", "lon": "line", "lat": "byte_offset"}"#))
        XCTAssertEqual(
            again.count, 4, "one record per reject:\n\(rejects)\n\(again.map { $0.rejected?.reason ?? "ok" })")
        XCTAssertTrue(rejects.contains(#","1,""a,24.94,60.17,cafe"\#n"#), "kept whole as one quoted field: \(rejects)")
    }

    func testGeoJSONAndMixedInputsGiveNewlineDelimitedJSONRejects() throws {
        let g = scratch.write(
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[0,0]},\"properties\":{}}\n"
                + "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[5,6]},\"properties\":{\"name\":\"ok\"}}\n",
            name: "in.geojson")
        let c = scratch.write("id,lon,lat\n1,1,2\n2,1,95\n", name: "in.csv")
        let (t, meta, rejects) = try ingest([g, c, "--max-reject-ratio", "0.5"], name: "mixed")
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(t.source, [0, 1])
        XCTAssertEqual(t.names[0], "ok")
        let lines = rejects.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2)
        let first = try JSONParser.parse(lines[0])
        XCTAssertEqual(first["source_file"], .string(g))
        XCTAssertEqual(first["line"], .number(1))
        XCTAssertEqual(first["byte_offset"], .number(0))
        XCTAssertEqual(first["reason"], .string("null island: lon = lat = 0"))
        XCTAssertEqual(
            first["raw"],
            .string("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[0,0]},\"properties\":{}}"))
        XCTAssertEqual(try JSONParser.parse(lines[1])["raw"], .string("2,1,95"))
        let inputs = try XCTUnwrap(meta["inputs"]?.arrayValue)
        XCTAssertEqual(inputs[0]["format"], .string("geojson"))
        XCTAssertEqual(inputs[1]["format"], .string("csv"))
        XCTAssertEqual(inputs[1]["delimiter"], .string(","))
        XCTAssertEqual(inputs[1]["content_hash"], .string(try OpenedInput.hashFile(c).0.description))
        XCTAssertEqual(inputs[0]["counts"]?["rejected"], .number(1))
    }

    /// A NUL character in a text value rejects its record, naming the line, wherever it stands: in
    /// the first 4 KB (which format detection reads) as well as later, raw in delimited text (the
    /// batch path) or escaped in GeoJSON (a record at a time). No NUL reaches the POI table.
    func testARecordWithANULIsRejectedAndTheFileRead() throws {
        var rows = (0..<300).map { "\($0),Name \($0),restaurant,24.9\($0 % 10),60.1\($0 % 7)" }
        rows[2] = rows[2].replacingOccurrences(of: "Name", with: "Na\u{0}me")
        rows[250] = rows[250].replacingOccurrences(of: "restaurant", with: "rest\u{0}aurant")
        let csv = scratch.write("id,name,category,lon,lat\n" + rows.joined(separator: "\n") + "\n", name: "nul.csv")
        let (t, meta, rejects) = try ingest([csv], name: "nulcsv")
        XCTAssertEqual(t.count, 298)
        XCTAssertEqual(counts(meta)["rejected"], 2)
        let lines = rejects.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].hasPrefix("\(csv),4,"), lines[1])
        XCTAssertTrue(lines[1].contains("NUL character in the name"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("\(csv),252,"), lines[2])
        XCTAssertTrue(lines[2].contains("NUL character in the keyword"), lines[2])
        XCTAssertFalse((0..<t.count).contains { t.names[$0].utf8.contains(0) })
        let feature = { (id: Int, name: String) in
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"id":"\#(id)","#
                + #""name":"\#(name)"}}"#
        }
        let features = (0..<20).map { feature($0, $0 == 1 ? #"Na\u0000me"# : "ok") }
        let seq = scratch.write(features.joined(separator: "\n") + "\n", name: "nul.geojsonseq")
        let (g, gmeta, grejects) = try ingest([seq], name: "nulgeojson")
        XCTAssertEqual(g.count, 19)
        XCTAssertEqual(counts(gmeta)["rejected"], 1)
        let reject = try JSONParser.parse(String(grejects.split(separator: "\n")[0]))
        XCTAssertEqual(reject["line"], .number(2))
        XCTAssertTrue(reject["reason"]?.stringValue?.hasPrefix("NUL character in the name") ?? false, "\(reject)")
    }

    func testEmptyRejectsFileWhenNothingIsRejected() throws {
        let (_, _, rejects) = try ingest([scratch.write("id,lon,lat\n1,1,2\n")], name: "clean")
        XCTAssertEqual(rejects, "")
    }

    func testFailuresExitWithInputDataStatus() throws {
        func failure(_ args: [String]) -> ExitCoded? {
            do {
                try runIngest(args + ["--output", scratch.path("f.rsa"), "--rejects", scratch.path("f.rej")])
                return nil
            } catch {
                return error as? ExitCoded
            }
        }
        let empty = scratch.write("")
        var e = failure([empty])
        XCTAssertEqual(e?.exitStatus, .inputData)
        XCTAssertEqual(e?.description, "\(empty): no records (the input is empty)")
        let allBad = scratch.write("id,lon,lat\n1,0,0\n2,,\n")
        e = failure([allBad, "--max-reject-ratio", "1"])
        XCTAssertEqual(e?.exitStatus, .inputData)
        XCTAssertEqual(
            e?.description,
            "no usable rows: all 2 records were rejected or duplicates (missing coordinates 1, null island 1)")
        e = failure([allBad])
        XCTAssertEqual(e?.exitStatus, .inputData)
        XCTAssertTrue(
            e?.description.contains("2 of 2 records rejected (100.0 %, more than max_reject_ratio 0.1)") == true,
            e?.description ?? "")
        XCTAssertEqual(
            scratch.text(scratch.path("f.rej")).split(separator: "\n").count, 3, "the rejects file is written even then"
        )
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path("f.rsa")), "no artifact on failure")
        e = failure([scratch.path("missing.csv")])
        XCTAssertEqual(e?.exitStatus, .inputData)
        XCTAssertThrowsError(try runIngest([allBad, "--bbox", "1,2,3", "--output", "o", "--rejects", "r"])) { error in
            XCTAssertTrue(error is UsageError)
            XCTAssertTrue("\(error)".hasPrefix("--bbox: expected west,south,east,north"), "\(error)")
        }
    }

    func testBoundingBoxAndNullIslandParameters() throws {
        let path = scratch.write("id,lon,lat\n1,0,0\n2,10,10\n3,20,20\n")
        let (t, meta, _) = try ingest(
            [path, "--bbox", "5,5,15,15", "--reject-null-island", "false", "--max-reject-ratio", "1"], name: "box")
        XCTAssertEqual(t.ids[0], "2")
        XCTAssertEqual(meta["counts"]?["reject_reasons"]?["outside bbox"], .number(2))
        XCTAssertEqual(meta["parameters"]?["bbox"], .string("5,5,15,15"))
        XCTAssertEqual(meta["parameters"]?["reject_null_island"], .bool(false))
    }

    func testOutputIsIdenticalForAnyThreadCountAndRun() throws {
        var text = "id,name,category,lon,lat\n"
        var rng = SeededRandom(seed: 5)
        for k in 0..<12_000 {
            let id = Int.random(in: 0..<10_000, using: &rng)
            let lon = Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 1e4
            let cat = ["cafe", "咖啡", "bank;atm", "\"[\"\"a\"\", \"\"b\"\"]\"", "NULL"][k % 5]
            text += "\(id),\"n,\(k)\",\(cat),\(lon),\(k % 2 == 0 ? "45.5" : "95")\n"
        }
        let path = scratch.write(text)
        var outputs: [[UInt8]] = []
        var rejectFiles: [[UInt8]] = []
        for (k, threads) in ["1", "2", "3", "1"].enumerated() {
            _ = try ingest([path, "--threads", threads, "--max-reject-ratio", "0.6"], name: "det\(k)")
            outputs.append(scratch.read(scratch.path("det\(k).rsa")))
            rejectFiles.append(scratch.read(scratch.path("det\(k).rejects")))
        }
        Parallel.threadCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
        XCTAssertTrue(outputs.allSatisfy { $0 == outputs[0] }, "artifacts differ between runs")
        XCTAssertTrue(rejectFiles.allSatisfy { $0 == rejectFiles[0] }, "rejects differ between runs")
        let (t, meta) = try load(scratch.path("det0.rsa"))
        let c = counts(meta)
        XCTAssertEqual(c["read"], 12_000)
        XCTAssertEqual(c["rejected"], 6_000)
        XCTAssertEqual(c["read"]!, c["accepted"]! + c["rejected"]! + c["merged_duplicates"]! + c["dropped_duplicates"]!)
        XCTAssertEqual(t.count, c["accepted"])
        // Brute-force reference for the merge: distinct ids among the accepted (even) rows.
        var seen = Set<String>()
        for (k, line) in text.split(separator: "\n").dropFirst().enumerated() where k % 2 == 0 {
            seen.insert(String(line.split(separator: ",")[0]))
        }
        XCTAssertEqual(t.count, seen.count)
    }
}

/// The same POIs as CSV and as GeoJSON give the same table (two readers, one answer).
final class IngestFormatEquivalenceTests: XCTestCase {
    let scratch = IngestScratch()

    func testCSVAndGeoJSONOfTheSameDataGiveTheSameTable() throws {
        var rng = SeededRandom(seed: 99)
        var csv = "id,name,category,lon,lat\n"
        var features: [String] = []
        let names = ["Golden Dragon", "Wang's \"Best\" Dumplings, Sanlitun", "瑞幸咖啡", "Café  Müller", "Ｂａｎｋ"]
        let categories = ["restaurant", "咖啡", "bank;atm", "Cafe"]
        for k in 0..<3000 {
            let name = names.randomElement(using: &rng)! + " \(k % 97)"
            let category = categories.randomElement(using: &rng)!
            let lon = (Double(Int.random(in: -1_799_999_999...1_799_999_999, using: &rng)) / 1e7)
            let lat = (Double(Int.random(in: -899_999_999...899_999_999, using: &rng)) / 1e7)
            let id = String(Int.random(in: 0..<2500, using: &rng))
            csv += "\(id),\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\",\(category),\(lon),\(lat)\n"
            let props = JSONValue.object([("name", .string(name)), ("category", .string(category))])
            features.append(
                #"{"type":"Feature","id":\#(id),"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":\#(props.serialized())}"#
            )
        }
        let geo = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
        let c = scratch.write(csv, name: "same.csv")
        let g = scratch.write(geo, name: "same.geojson")
        func table(_ path: String, _ name: String) throws -> POITable {
            try runIngest([path, "--output", scratch.path(name), "--rejects", scratch.path(name + ".rej")])
            return try POITable(artifact: ArtifactFile(path: scratch.path(name), expected: .pois))
        }
        let a = try table(c, "c.rsa")
        let b = try table(g, "g.rsa")
        XCTAssertGreaterThan(a.count, 1500)
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(a.lon, b.lon)
        XCTAssertEqual(a.lat, b.lat)
        XCTAssertEqual(a.ids, b.ids)
        XCTAssertEqual(a.names, b.names)
        XCTAssertEqual(a.keywords, b.keywords)
        XCTAssertEqual(a.line, b.line, "both put feature k on line k + 2")
    }
}
