import CGEOS
import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

final class OSMPBFReaderTests: XCTestCase {
    // MARK: Real data

    /// Counts from the data set's SOURCE.md (made with pyosmium; `osmium fileinfo -e` agrees).
    func testHelsinkiCounts() throws {
        let reader = try OSMPBFReader(path: OSMTestSupport.helsinkiPBF, options: OSMOptions())
        let results = try OSMTestSupport.readAll(reader)
        let c = reader.counts
        XCTAssertEqual(c.nodes, 24_260)
        XCTAssertEqual(c.ways, 5_130)
        XCTAssertEqual(c.relations, 620)
        XCTAssertEqual(c.poiNodes, 1_915)
        XCTAssertEqual(c.poiWays, 209)
        XCTAssertEqual(c.rejectedNodes, 0)
        // 16 POI ways are clipped by the extract (found independently with a Python scan of the
        // osmium XML: ways whose node refs are not all present).
        XCTAssertEqual(c.rejectedWays, 16)
        XCTAssertEqual(results.count, 1_915 + 209)
        XCTAssertEqual(OSMTestSupport.records(results).count, c.records)
        XCTAssertEqual(reader.bytesRead, 685_110)
        XCTAssertEqual(reader.writingProgram, "0.47")

        let ids = OSMTestSupport.records(results).map { $0.id }
        XCTAssertEqual(Set(ids).count, ids.count, "record ids are unique")
        // File order: all nodes, then all ways; element ordinals ascend.
        let firstWay = ids.firstIndex { $0.hasPrefix("way/") }!
        XCTAssertTrue(ids[..<firstWay].allSatisfy { $0.hasPrefix("node/") })
        XCTAssertTrue(ids[firstWay...].allSatisfy { $0.hasPrefix("way/") })
        let lines = results.map { r -> UInt64 in
            switch r {
            case .record(let x): return x.line
            case .rejected(let x): return x.line
            }
        }
        XCTAssertEqual(lines, lines.sorted())

        let townHall = OSMTestSupport.rejects(results).first { $0.raw.hasPrefix("way/24337154 ") }
        XCTAssertEqual(townHall?.reason, "7 of 27 node refs not in file")
        // The tags the reader keeps: POI keys, the name, keyword keys and the label tags (addr:street).
        XCTAssertEqual(
            townHall?.raw,
            "way/24337154 [addr:street=Pohjoisesplanadi, amenity=townhall, name=Helsingin kaupungintalo], 27 node refs")
    }

    /// Values read off `osmium cat Helsinki.osm.pbf -f opl`.
    func testHelsinkiSpotChecks() throws {
        let records = OSMTestSupport.records(try OSMTestSupport.readPBF(OSMTestSupport.helsinkiPBF).results)
        func record(_ id: String) -> RawRecord? { records.first { $0.id == id } }

        let toca = try XCTUnwrap(record("node/5041335223"))
        XCTAssertEqual(toca.name, "Toca")
        XCTAssertEqual(toca.keywords, ["restaurant"])
        XCTAssertEqual(toca.lon, 24.9511539)
        XCTAssertEqual(toca.lat, 60.1654156)

        let cafe = try XCTUnwrap(record("node/4692013487"))
        XCTAssertEqual(cafe.name, "Cafe Rymy-Eetu")
        XCTAssertEqual(cafe.lon, 24.9441476)
        XCTAssertEqual(cafe.lat, 60.1670049)

        // `name=Maya Bar & Grill` and multi-valued cuisine tags.
        XCTAssertNotNil(records.first { $0.name == "Maya Bar & Grill" })
        let multi = records.filter { $0.keywords.contains("coffee_shop") && $0.keywords.contains("ice_cream") }
        XCTAssertEqual(multi.count, 2, "two places tagged cuisine=coffee_shop;ice_cream")

        let library = try XCTUnwrap(record("way/122595247"))
        XCTAssertEqual(library.name, "Kansalliskirjasto")
        XCTAssertEqual(library.keywords, ["library"])
    }

    /// Every accepted way's point against GEOS, with the way geometry taken from
    /// `osmium export` (an independent reading of the same file): closed ways get the GEOS
    /// centroid when it lies inside, else a point GEOS finds inside the polygon (and equal to
    /// GEOS PointOnSurface); open ways get GEOS's halfway interpolation in the scaled frame.
    func testHelsinkiWayPointsAgainstGEOS() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let export = dir + "/ways.geojsonseq"
        try OSMTestSupport.osmium([
            "export", OSMTestSupport.helsinkiPBF, "-f", "geojsonseq", "-a", "type,id", "--geometry-types=linestring",
            "-o", export,
        ])
        var geometries: [String: [(Double, Double)]] = [:]
        let text = try String(contentsOfFile: export, encoding: .utf8)
        for line in text.split(separator: "\n") {
            let json = try JSONParser.parse(String(line.drop { $0 == "\u{1E}" }))
            guard json["properties"]?["@type"]?.stringValue == "way", let id = json["properties"]?["@id"]?.intValue,
                let coords = json["geometry"]?["coordinates"]?.arrayValue
            else { continue }
            geometries["way/\(id)"] = coords.map { ($0.arrayValue![0].doubleValue!, $0.arrayValue![1].doubleValue!) }
        }
        let ways = OSMTestSupport.records(try OSMTestSupport.readPBF(OSMTestSupport.helsinkiPBF).results)
            .filter { $0.id.hasPrefix("way/") }
        XCTAssertEqual(ways.count, 193)

        let geos = GEOS_init_r()
        defer { GEOS_finish_r(geos) }
        func sequence(_ points: [(Double, Double)]) -> OpaquePointer {
            let seq = GEOSCoordSeq_create_r(geos, UInt32(points.count), 2)!
            for (i, p) in points.enumerated() { GEOSCoordSeq_setXY_r(geos, seq, UInt32(i), p.0, p.1) }
            return seq
        }
        func xy(_ g: OpaquePointer) -> (Double, Double) {
            var x = 0.0
            var y = 0.0
            GEOSGeomGetX_r(geos, g, &x)
            GEOSGeomGetY_r(geos, g, &y)
            return (x, y)
        }
        var centroids = 0
        var surfacePoints = 0
        var midpoints = 0
        for way in ways {
            let points = try XCTUnwrap(geometries[way.id], "osmium exported \(way.id)")
            let closed = points.count >= 4 && points.first! == points.last!
            if closed {
                let ring = GEOSGeom_createLinearRing_r(geos, sequence(points))!
                let polygon = GEOSGeom_createPolygon_r(geos, ring, nil, 0)!
                defer { GEOSGeom_destroy_r(geos, polygon) }
                let centroid = GEOSGetCentroid_r(geos, polygon)!
                defer { GEOSGeom_destroy_r(geos, centroid) }
                let point = GEOSGeom_createPointFromXY_r(geos, way.lon, way.lat)!
                defer { GEOSGeom_destroy_r(geos, point) }
                if GEOSContains_r(geos, polygon, centroid) == 1 {
                    centroids += 1
                    let c = xy(centroid)
                    XCTAssertEqual(way.lon, c.0, accuracy: 1e-9, way.id)
                    XCTAssertEqual(way.lat, c.1, accuracy: 1e-9, way.id)
                } else {
                    surfacePoints += 1
                    XCTAssertEqual(GEOSContains_r(geos, polygon, point), 1, "\(way.id) point lies inside its polygon")
                    let surface = GEOSPointOnSurface_r(geos, polygon)!
                    defer { GEOSGeom_destroy_r(geos, surface) }
                    let s = xy(surface)
                    XCTAssertEqual(way.lon, s.0, accuracy: 1e-9, way.id)
                    XCTAssertEqual(way.lat, s.1, accuracy: 1e-9, way.id)
                }
            } else {
                midpoints += 1
                let scale = cos(points[0].1 * .pi / 180)
                let scaled = points.map { (($0.0 - points[0].0) * scale, $0.1 - points[0].1) }
                let line = GEOSGeom_createLineString_r(geos, sequence(scaled))!
                defer { GEOSGeom_destroy_r(geos, line) }
                let mid = GEOSInterpolateNormalized_r(geos, line, 0.5)!
                defer { GEOSGeom_destroy_r(geos, mid) }
                let m = xy(mid)
                XCTAssertEqual(way.lon, points[0].0 + m.0 / scale, accuracy: 1e-9, way.id)
                XCTAssertEqual(way.lat, points[0].1 + m.1, accuracy: 1e-9, way.id)
            }
        }
        XCTAssertGreaterThan(centroids, 100)
        XCTAssertGreaterThan(midpoints, 0)
        print("Helsinki POI ways: \(centroids) centroids, \(surfacePoints) points on surface, \(midpoints) midpoints")
    }

    /// `osmium add-locations-to-ways` stores node locations on the ways (optional feature
    /// `LocationsOnWays`); the reader uses them directly and must give the same records.
    func testHelsinkiLocationsOnWays() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let withLocations = dir + "/loc.osm.pbf"
        try OSMTestSupport.osmium([
            "add-locations-to-ways", "--keep-untagged-nodes", "--ignore-missing-nodes", OSMTestSupport.helsinkiPBF,
            "-o",
            withLocations,
        ])
        let plain = try OSMTestSupport.readPBF(OSMTestSupport.helsinkiPBF)
        let located = try OSMTestSupport.readPBF(withLocations)
        OSMTestSupport.assertSameResults(
            plain.results.filter { if case .record = $0 { return true } else { return false } },
            located.results.filter { if case .record = $0 { return true } else { return false } }, "LocationsOnWays")
        let rejects = OSMTestSupport.rejects(located.results)
        XCTAssertEqual(rejects.map { $0.raw }, OSMTestSupport.rejects(plain.results).map { $0.raw })
        XCTAssertEqual(rejects.first?.reason, "40 of 51 node locations missing or invalid")
    }

    // MARK: Hand-made files

    private func check(
        _ results: [ReadResult], _ counts: OSMElementCounts, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(counts, OSMSmallWorld.counts, file: file, line: line)
        let order = results.map { r -> String in
            switch r {
            case .record(let x): return x.id
            case .rejected(let x): return "rejected:" + x.reason
            }
        }
        XCTAssertEqual(order, OSMSmallWorld.expectedOrder, file: file, line: line)
        let records = OSMTestSupport.records(results)
        for e in OSMSmallWorld.expectedRecords {
            guard let r = records.first(where: { $0.id == e.id }) else { continue }
            XCTAssertEqual(r.name, e.name, e.id, file: file, line: line)
            XCTAssertEqual(r.keywords, e.keywords, e.id, file: file, line: line)
            XCTAssertEqual(r.keywordKeys, e.keys, e.id, file: file, line: line)
            XCTAssertEqual(r.lon, e.lon, accuracy: 1e-9, e.id, file: file, line: line)
            XCTAssertEqual(r.lat, e.lat, accuracy: 1e-9, e.id, file: file, line: line)
        }
        let rejects = OSMTestSupport.rejects(results)
        XCTAssertEqual(
            rejects.map { $0.reason }, OSMSmallWorld.expectedRejects.map { $0.reason }, file: file, line: line)
        XCTAssertEqual(rejects.map { $0.raw }, OSMSmallWorld.expectedRejects.map { $0.raw }, file: file, line: line)
    }

    func testSmallWorldDenseNodes() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/dense.osm.pbf"
        let writer = OSMSmallWorld.pbfWriter(dense: true)
        try OSMTestSupport.write(writer.bytes, to: path)
        let (results, counts) = try OSMTestSupport.readPBF(path)
        check(results, counts)
        // line = element ordinal, byteOffset = offset of the blob holding the element.
        let blobs = writer.blobOffsets
        XCTAssertEqual(blobs.count, 4)
        for r in OSMTestSupport.records(results) {
            let expected = OSMSmallWorld.expectedRecords.first { $0.id == r.id }!
            XCTAssertEqual(r.line, expected.ordinal, r.id)
            let blob = r.id.hasPrefix("way/") ? 3 : (expected.ordinal <= 6 ? 1 : 2)
            XCTAssertEqual(r.byteOffset, blobs[blob], r.id)
        }
        XCTAssertEqual(
            OSMTestSupport.rejects(results).map { $0.line }, OSMSmallWorld.expectedRejects.map { $0.ordinal })
        XCTAssertEqual(OSMTestSupport.rejects(results).map { $0.byteOffset }, [blobs[2], blobs[3]])
    }

    func testSmallWorldPlainNodesRawBlobs() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/plain.osm.pbf"
        try OSMTestSupport.write(OSMSmallWorld.pbf(dense: false, compression: .raw), to: path)
        let (results, counts) = try OSMTestSupport.readPBF(path)
        check(results, counts)
    }

    /// Non-default granularity and offsets change the encoding, not the coordinates.
    func testSmallWorldGranularityAndOffsets() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/gran.osm.pbf"
        try OSMTestSupport.write(
            OSMSmallWorld.pbf(dense: true, granularity: 50, latOffset: 60_000_000_000, lonOffset: -1_500), to: path)
        let (results, counts) = try OSMTestSupport.readPBF(path)
        check(results, counts)
    }

    func testLocationsOnWaysHandMade() throws {
        var w = PBFTestWriter()
        w.header(optional: ["LocationsOnWays"])
        // No nodes at all: the ways carry every location themselves.
        w.data([
            .ways([
                TestWay(
                    id: 7, refs: [1, 2, 3, 4, 1], tags: [("amenity", "parking")],
                    locations: [(10, 20), (10, 21), (11, 21), (11, 20), (10, 20)]),
                TestWay(id: 8, refs: [1, 2], tags: [("shop", "kiosk")], locations: [(10, 20), (214.7483647, 21)]),
            ])
        ])
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/low.osm.pbf"
        try OSMTestSupport.write(w.bytes, to: path)
        let (results, _) = try OSMTestSupport.readPBF(path)
        let records = OSMTestSupport.records(results)
        XCTAssertEqual(records.map { $0.id }, ["way/7"])
        XCTAssertEqual(records[0].lon, 20.5, accuracy: 1e-12)
        XCTAssertEqual(records[0].lat, 10.5, accuracy: 1e-12)
        XCTAssertEqual(OSMTestSupport.rejects(results).map { $0.reason }, ["1 of 2 node locations missing or invalid"])
    }

    func testInvalidUTF8IsRejectedNotCrashing() throws {
        var w = PBFTestWriter()
        w.header()
        w.data([
            .dense([
                TestNode(
                    id: 1, lat: 1, lon: 2, tags: [("amenity", "cafe")],
                    byteTags: [(Array("name".utf8), [0x41, 0xFF, 0x42])]),
                TestNode(id: 2, lat: 1, lon: 2, tags: [("name", "ok")], byteTags: [(Array("cuisine".utf8), [0xC3])]),
                TestNode(
                    id: 3, lat: 1, lon: 2, tags: [("amenity", "bar")],
                    byteTags: [(Array("cuisine".utf8), [0xC3, 0x28])]),
            ])
        ])
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/utf8.osm.pbf"
        try OSMTestSupport.write(w.bytes, to: path)
        let (results, counts) = try OSMTestSupport.readPBF(path)
        XCTAssertEqual(counts.poiNodes, 2, "node 2 has no POI key")
        let rejects = OSMTestSupport.rejects(results)
        XCTAssertEqual(
            rejects.map { $0.reason },
            ["invalid UTF-8 in the value of tag 'name'", "invalid UTF-8 in the value of tag 'cuisine'"])
        XCTAssertEqual(rejects[0].raw, "node/1 [amenity=cafe, name=A\u{FFFD}B] at lat 1.0, lon 2.0")
    }

    /// A custom option set: different POI keys, keyword keys and name key.
    func testCustomOptions() throws {
        var options = OSMOptions()
        options.poiKeys = ["highway"]
        options.keywordKeys = ["highway", "name"]
        options.nameKey = "name:en"
        let dir = try OSMTestSupport.temporaryDirectory(self)
        var w = PBFTestWriter()
        w.header()
        w.data([
            .dense([
                TestNode(
                    id: 1, lat: 1, lon: 2,
                    tags: [("highway", "bus_stop"), ("name", "Rautatientori"), ("name:en", "Railway Square")]),
                TestNode(id: 2, lat: 1, lon: 2, tags: [("amenity", "cafe")]),
            ])
        ])
        try OSMTestSupport.write(w.bytes, to: dir + "/c.pbf")
        let records = OSMTestSupport.records(try OSMTestSupport.readPBF(dir + "/c.pbf", options: options).results)
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records[0].name, "Railway Square")
        XCTAssertEqual(records[0].keywords, ["bus_stop", "Rautatientori"])
    }

    // MARK: File-level errors

    private func expectInputError(
        _ bytes: [UInt8], containing fragments: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/bad.osm.pbf"
        try OSMTestSupport.write(bytes, to: path)
        do {
            let reader = try OSMPBFReader(path: path, options: OSMOptions())
            _ = try OSMTestSupport.readAll(reader)
            XCTFail("expected an error", file: file, line: line)
        } catch let error as InputError {
            XCTAssertEqual(error.exitStatus, .inputData, file: file, line: line)
            XCTAssertTrue(error.description.hasPrefix(path + ": "), error.description, file: file, line: line)
            for fragment in fragments {
                XCTAssertTrue(
                    error.description.contains(fragment), "'\(fragment)' not in: \(error.description)", file: file,
                    line: line)
            }
        }
    }

    func testNotPBF() throws {
        try expectInputError([], containing: ["not an OSM PBF file: the file is empty"])
        try expectInputError(Array("id,name,lon,lat\n1,a,2,3\n".utf8), containing: ["not an OSM PBF file"])
        try expectInputError(Array("<?xml version='1.0'?><osm/>".utf8), containing: ["looks like XML"])
        try expectInputError([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0], containing: ["gzip-compressed"])
        var w = PBFTestWriter()
        w.data([.dense([TestNode(id: 1, lat: 1, lon: 1)])])
        try expectInputError(w.bytes, containing: ["first blob has type \"OSMData\", expected \"OSMHeader\""])
    }

    func testUnsupportedFeatures() throws {
        var history = PBFTestWriter()
        history.header(features: ["OsmSchema-V0.6", "DenseNodes", "HistoricalInformation"])
        try expectInputError(history.bytes, containing: ["\"HistoricalInformation\"", "does not support"])

        for (field, name) in [(4, "LZMA"), (6, "LZ4"), (7, "Zstandard (ZSTD)")] {
            var w = PBFTestWriter()
            w.header()
            let offset = w.bytes.count
            w.data([.dense([TestNode(id: 1, lat: 1, lon: 1)])], compression: .field(field))
            try expectInputError(w.bytes, containing: ["blob at byte \(offset) is \(name)-compressed"])
        }
    }

    func testDamagedFiles() throws {
        let writer = OSMSmallWorld.pbfWriter(dense: true)
        let good = writer.bytes
        let blobs = writer.blobOffsets

        // Truncated inside the second data blob.
        try expectInputError(Array(good[0..<Int(blobs[2]) + 30]), containing: ["byte \(blobs[2])", "truncated"])
        // Stray bytes after the last blob.
        try expectInputError(good + [0, 0], containing: ["byte \(good.count)", "2 stray bytes"])
        // An absurd blob header length.
        var huge = good
        huge[Int(blobs[1])] = 0x7F
        try expectInputError(huge, containing: ["byte \(blobs[1])", "blob header length"])
        // Damaged zlib data in the first data blob (last bytes hold the Adler-32 checksum).
        var flipped = good
        let end = Int(blobs[2]) - 2
        flipped[end] ^= 0xFF
        try expectInputError(flipped, containing: ["byte \(blobs[1])", "zlib"])

        // A dense-node tag pointing past the string table.
        var w = PBFTestWriter()
        w.header()
        var block = ProtobufWriter()
        block.message(1) { t in t.string(1, "") }
        block.message(2) { g in
            g.message(2) { d in
                d.packedDelta(1, [1])
                d.packedDelta(8, [0])
                d.packedDelta(9, [0])
                d.packedUInt(10, [7, 8, 0])
            }
        }
        let offset = w.bytes.count
        w.blob(type: "OSMData", payload: block.bytes, compression: .raw)
        try expectInputError(
            w.bytes, containing: ["byte \(offset)", "string index 7 beyond the string table (1 entries)"])
    }

    /// Blobs of unknown type are skipped, as the format requires.
    func testUnknownBlobTypeIsSkipped() throws {
        var w = PBFTestWriter()
        w.header()
        w.blob(type: "MyIndex", payload: [1, 2, 3], compression: .raw)
        w.data([.dense([TestNode(id: 1, lat: 1, lon: 1, tags: [("shop", "bakery")])])])
        let dir = try OSMTestSupport.temporaryDirectory(self)
        try OSMTestSupport.write(w.bytes, to: dir + "/u.pbf")
        let records = OSMTestSupport.records(try OSMTestSupport.readPBF(dir + "/u.pbf").results)
        XCTAssertEqual(records.map { $0.keywords }, [["bakery"]])
    }

    // MARK: Block order, threads, concatenation

    private func describe(_ results: [ReadResult]) -> [String] {
        results.map { r in
            switch r {
            case .record(let x):
                return "\(x.id) \(x.name) \(x.keywords) \(x.lon) \(x.lat) line \(x.line) at \(x.byteOffset)"
            case .rejected(let x): return "rejected line \(x.line) at \(x.byteOffset): \(x.reason) | \(x.raw)"
            }
        }
    }

    private func withThreads<T>(_ n: Int, _ body: () throws -> T) rethrows -> T {
        let saved = Parallel.threadCount
        Parallel.threadCount = n
        defer { Parallel.threadCount = saved }
        return try body()
    }

    /// Ways before nodes (unsorted files) take the extra gather pass; a node id repeated later
    /// keeps its first coordinates; output is nodes then ways, in file order, for any thread count.
    func testUnsortedBlocks() throws {
        let n1 = [TestNode(id: 1, lat: 0, lon: 0, tags: [("amenity", "cafe")]), TestNode(id: 2, lat: 0, lon: 2)]
        let n2 = [
            TestNode(id: 2, lat: 9, lon: 9), TestNode(id: 3, lat: 2, lon: 2),
            TestNode(id: 4, lat: 5, lon: 5, tags: [("shop", "bakery")]),
        ]
        let w1 = TestWay(id: 50, refs: [1, 2, 3], tags: [("amenity", "parking")])
        let w2 = TestWay(id: 51, refs: [2, 3], tags: [("leisure", "park")])
        var w = PBFTestWriter()
        w.header()
        w.data([.ways([w1])])
        w.data([.dense(n1)])
        w.data([.ways([w2])])
        w.data([.nodes(n2)])
        w.data([.relations([9])])
        let dir = try OSMTestSupport.temporaryDirectory(self)
        try OSMTestSupport.write(w.bytes, to: dir + "/unsorted.pbf")
        let b = w.blobOffsets
        let expected = [
            "node/1  [\"cafe\"] 0.0 0.0 line 2 at \(b[2])",
            "node/4  [\"bakery\"] 5.0 5.0 line 7 at \(b[4])",
            // 1→2→3 along the equator: 2° then 2° north; halfway is node 2 (the first copy).
            "way/50  [\"parking\"] 2.0 0.0 line 1 at \(b[1])",
            "way/51  [\"park\"] 2.0 1.0 line 4 at \(b[3])",
        ]
        for threads in [1, 2, 3, 8] {
            let (results, counts) = try withThreads(threads) { try OSMTestSupport.readPBF(dir + "/unsorted.pbf") }
            XCTAssertEqual(describe(results), expected, "threads \(threads)")
            XCTAssertEqual(counts.nodes, 5)
            XCTAssertEqual(counts.ways, 2)
            XCTAssertEqual(counts.relations, 1)
        }

        // Ways both before and after the last node block (late ways and tail ways together).
        var v = PBFTestWriter()
        v.header()
        v.data([.dense(n1)])
        v.data([.ways([w1])])
        v.data([.nodes(Array(n2.dropFirst()))])
        v.data([.ways([w2]), .relations([9])])
        try OSMTestSupport.write(v.bytes, to: dir + "/mixed.pbf")
        let mixed = try OSMTestSupport.readPBF(dir + "/mixed.pbf").results
        XCTAssertEqual(
            OSMTestSupport.records(mixed).map { "\($0.id) \($0.lon) \($0.lat) \($0.line)" },
            ["node/1 0.0 0.0 1", "node/4 5.0 5.0 5", "way/50 2.0 0.0 3", "way/51 2.0 1.0 6"])
    }

    /// Identical results (including lines and offsets) for any thread count.
    func testHelsinkiThreadCountIndependence() throws {
        let reference = describe(try withThreads(1) { try OSMTestSupport.readPBF(OSMTestSupport.helsinkiPBF).results })
        for threads in [2, 3, 5] {
            let other = describe(
                try withThreads(threads) { try OSMTestSupport.readPBF(OSMTestSupport.helsinkiPBF).results })
            XCTAssertEqual(other, reference, "threads \(threads)")
        }
    }

    /// `cat a.osm.pbf b.osm.pbf` repeats the header; both parts are read.
    func testConcatenatedFiles() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let one = OSMSmallWorld.pbf(dense: true)
        try OSMTestSupport.write(one + one, to: dir + "/twice.pbf")
        let (results, counts) = try OSMTestSupport.readPBF(dir + "/twice.pbf")
        var expected = OSMSmallWorld.counts
        expected.add(OSMSmallWorld.counts)
        XCTAssertEqual(counts, expected)
        XCTAssertEqual(results.count, 2 * (OSMSmallWorld.expectedRecords.count + OSMSmallWorld.expectedRejects.count))

        var history = PBFTestWriter()
        history.header(features: ["OsmSchema-V0.6", "HistoricalInformation"])
        try OSMTestSupport.write(one + history.bytes, to: dir + "/bad.pbf")
        XCTAssertThrowsError(try OSMTestSupport.readPBF(dir + "/bad.pbf")) { error in
            XCTAssertTrue("\(error)".contains("HistoricalInformation"), "\(error)")
        }
    }
}
