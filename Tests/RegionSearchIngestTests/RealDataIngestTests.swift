import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Ingest of the real data sets in /work/shared/data, with counts made independently (Python's
/// csv module) and records checked by value.
final class RealDataIngestTests: XCTestCase {
    let scratch = IngestScratch()
    static let spb = SharedData.path("spb-2gis-geomarketing/poi.csv")
    static let hangzhou = SharedData.path("hangzhou-shangcheng-poi86/poi.csv")
    static let airports = SharedData.path("ourairports-world/airports.csv.gz")

    private func ingest(_ args: [String], name: String) throws -> (POITable, JSONValue) {
        let out = scratch.path(name + ".rsa")
        try runIngest(args + ["--output", out, "--rejects", scratch.path(name + ".rejects")])
        let file = try ArtifactFile(path: out, expected: .pois)
        return (try POITable(artifact: file), file.metadata)
    }

    private func count(_ meta: JSONValue, _ key: String) -> Int? { meta["counts"]?[key]?.intValue }

    private func row(_ t: POITable, id: String) -> Int? { (0..<t.count).first { t.ids[$0] == id } }

    /// Saint Petersburg: pipe-separated, lat before lon, list-literal rubrics, `Нет` for missing,
    /// 151 rows at 0,0, 989 ids repeated (1,163 repeats among the valid rows).
    func testSaintPetersburg() throws {
        let spec = #"{"path": "\#(Self.spb)", "columns": {"keywords": "rubrics"}, "missing_values": ["Нет"]}"#
        let (t, meta) = try ingest(["--input-spec", spec], name: "spb")
        XCTAssertEqual(count(meta, "read"), 12_204)
        XCTAssertEqual(count(meta, "rejected"), 151)
        XCTAssertEqual(meta["counts"]?["reject_reasons"], .object([("null island", .number(151))]))
        XCTAssertEqual(count(meta, "merged_duplicates"), 1_163)
        XCTAssertEqual(count(meta, "accepted"), 10_890)
        XCTAssertEqual(t.count, 10_890)
        // A place listed three times under the same rubrics in different orders.
        let k = try XCTUnwrap(row(t, id: "5348552838552300"))
        XCTAssertEqual(t.names[k], "Вкусные штучки, кондитерская")
        XCTAssertEqual(t.lon[k], 30.293453)
        XCTAssertEqual(t.lat[k], 59.954909)
        XCTAssertEqual(
            KeywordText.readable(t.keywords[k], keys: t.keywordKeys),
            "rubrics=кондитерские изделия\nrubrics=кафе\nrubrics=кофейни\nrubrics=мороженое")
        // `Нет` is missing as a name and as a rubric.
        let unnamed = try XCTUnwrap(row(t, id: "70030076836361001"))
        XCTAssertEqual(t.names[unnamed], "")
        XCTAssertEqual(t.keywords[unnamed], "")
        let fountain = try XCTUnwrap(row(t, id: "5348720342204812"))
        XCTAssertEqual(KeywordText.values(t.keywords[fountain]), ["фонтаны"])
        let quoted = try XCTUnwrap(row(t, id: "70030076263854169"))
        XCTAssertEqual(t.names[quoted], "Памятник \"Печальный ангел\"")
        XCTAssertEqual(t.line[quoted], 717)
        let rejects = scratch.text(scratch.path("spb.rejects")).split(separator: "\n")
        XCTAssertEqual(rejects.count, 152)
        XCTAssertTrue(
            rejects[1].hasSuffix(
                "|null island: lon = lat "
                    + "= 0|24|70000001084535389|Вкусные истории|Нет|Нет|0.0|0.0|['Кондитерские изделия']"
            ))
    }

    /// Hangzhou: tab-separated, no header, `;` category hierarchy, three coordinate columns.
    func testHangzhouAllThreeCoordinateColumns() throws {
        func spec(_ column: Int, _ crs: String) -> String {
            #"{"path": "\#(Self.hangzhou)", "header": false, "columns": {"name": 0, "keywords": [3], "coordinates": \#(column)}, "crs": "\#(crs)"}"#
        }
        let (w, meta) = try ingest(["--input-spec", spec(4, "wgs84")], name: "hz")
        XCTAssertEqual(count(meta, "read"), 22_437)
        XCTAssertEqual(count(meta, "accepted"), 22_437)
        XCTAssertEqual(w.names[0], "阿裡雪")
        XCTAssertEqual(w.keywords[0], "购物服务\n服装鞋帽皮具店", "hierarchy levels, repeats dropped")
        XCTAssertEqual(w.lon[0], 120.186413)
        XCTAssertEqual(w.lat[0], 30.247994)
        XCTAssertEqual(w.names[22_436], "杭州市房产交易市场")
        XCTAssertEqual(w.keywords[22_436], "政府机构及社会团体\n政府机关\n政府机关相关")
        let (g, _) = try ingest(["--input-spec", spec(5, "gcj02")], name: "hz-gcj")
        let (b, _) = try ingest(["--input-spec", spec(6, "bd09")], name: "hz-bd")
        var worstG = 0.0
        var worstB = 0.0
        for k in 0..<w.count {
            worstG = max(worstG, metres(g.lon[k], g.lat[k], w.lon[k], w.lat[k]))
            worstB = max(worstB, metres(b.lon[k], b.lat[k], w.lon[k], w.lat[k]))
        }
        // See CoordinateTests: the file's WGS84 column is the one-step approximation (~1.7 m off).
        XCTAssertLessThan(worstG, 3, "GCJ-02 column converted on ingest vs WGS84 column, worst \(worstG) m")
        XCTAssertLessThan(worstB, 3, "BD-09 column converted on ingest vs WGS84 column, worst \(worstB) m")
        XCTAssertEqual(g.keywords, w.keywords)
    }

    /// OurAirports: gzip, fully quoted CSV, worldwide including the South Pole and both sides
    /// of the antimeridian; every row accounted for.
    func testOurAirports() throws {
        let spec = """
            {"path": "\(Self.airports)", "columns": {"name": "name", "keywords": ["type", {"column": "keywords", "split": "hierarchy", "separator": ","}]}}
            """
        let (t, meta) = try ingest(["--input-spec", spec], name: "airports")
        XCTAssertEqual(count(meta, "read"), 73_623)
        XCTAssertEqual(count(meta, "accepted"), 73_623)
        XCTAssertEqual(count(meta, "rejected"), 0)
        XCTAssertEqual(meta["inputs"]?.arrayValue?.first?["gzip"], .bool(true))
        let first = try XCTUnwrap(row(t, id: "6523"))
        XCTAssertEqual(t.names[first], "Total Rf Heliport")
        XCTAssertEqual(t.lat[first], 40.07080078125)
        XCTAssertEqual(t.lon[first], -74.93360137939453)
        XCTAssertEqual(t.keywordKeys, ["type", "keywords"])
        XCTAssertEqual(KeywordText.readable(t.keywords[first], keys: t.keywordKeys), "type=heliport")
        let pole = try XCTUnwrap(row(t, id: "5054"))
        XCTAssertEqual(t.lat[pole], -90)
        XCTAssertEqual(t.lon[pole], 0)
        XCTAssertEqual(t.lon.max(), 179.9757)
        XCTAssertEqual(t.lon.min(), -179.876999)
        XCTAssertEqual(t.names[try XCTUnwrap(row(t, id: "9090"))], "Fly \"N\" K Airport")
        XCTAssertEqual(KeywordText.values(t.keywords[try XCTUnwrap(row(t, id: "6555"))]).suffix(2), ["64d", "00oh"])
        // Keyword values across the data set: every row carries its type.
        let types = [
            "small_airport", "heliport", "closed", "medium_airport", "seaplane_base", "large_airport", "balloonport",
        ]
        var byType: [String: Int] = [:]
        for k in 0..<t.count { byType[KeywordText.values(t.keywords[k]).first ?? "", default: 0] += 1 }
        XCTAssertEqual(types.map { byType[$0] ?? 0 }, [39_097, 18_632, 9_508, 4_770, 1_120, 450, 46])
    }
}
