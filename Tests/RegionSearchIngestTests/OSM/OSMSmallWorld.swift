import Foundation

@testable import RegionSearchIngest

/// A small hand-made OSM data set with answers worked out by hand, written both as PBF (by the
/// test writer) and as XML, so both readers can be checked against the same expectations.
enum OSMSmallWorld {
    /// Nodes in id order. 1–9 are point features; 11–14 a 0.002° square; 21–28 a U shape.
    static let nodes: [TestNode] =
        [
            TestNode(
                id: 1, lat: 60.0, lon: 24.0,
                tags: [("amenity", "restaurant"), ("cuisine", "pizza; burger;;"), ("name", "Pizza & Burger")]),
            TestNode(id: 2, lat: 60.0, lon: 24.001),
            TestNode(id: 3, lat: 60.001, lon: 24.001, tags: [("highway", "bus_stop"), ("name", "Not a POI")]),
            TestNode(id: 5, lat: 60.0005, lon: 24.0005, tags: [("name", "Kauppa \"<Ö>\""), ("shop", "yes")]),
            TestNode(id: 7, lat: -33.8567844, lon: 151.2152967, tags: [("public_transport", "platform")]),
            TestNode(
                id: 8, lat: 60.004, lon: 24.004,
                tags: [
                    ("historic", "memorial"), ("tourism", "artwork"), ("name", "Muistomerkki"), ("cuisine", "artwork"),
                ]),
            TestNode(id: 9, lat: 95.0, lon: 24.0, tags: [("amenity", "cafe")]),
            TestNode(id: 11, lat: 60.0, lon: 24.0),
            TestNode(id: 12, lat: 60.0, lon: 24.002),
            TestNode(id: 13, lat: 60.002, lon: 24.002),
            TestNode(id: 14, lat: 60.002, lon: 24.0),
        ] + uShape

    /// A U in units of 0.001° at (24.01, 60.01): legs x∈[0,1] and [3,4.5], notch x∈[1,3] above
    /// y=1, height 3. Its centroid (2.355, 1.289) lies in the notch, so the point on surface is
    /// used: scan line y=2 (halfway between vertex heights 1 and 3 around the middle, 1.5),
    /// inside stretches [0,1] and [3,4.5]; the wider one's middle is (3.75, 2).
    static let uShape: [TestNode] = {
        let corners: [(x: Double, y: Double)] = [(0, 0), (4.5, 0), (4.5, 3), (3, 3), (3, 1), (1, 1), (1, 3), (0, 3)]
        var nodes: [TestNode] = []
        for (i, c) in corners.enumerated() {
            nodes.append(TestNode(id: Int64(21 + i), lat: 60.01 + c.y * 0.001, lon: 24.01 + c.x * 0.001))
        }
        return nodes
    }()

    static let ways: [TestWay] = [
        TestWay(
            id: 100, refs: [11, 12, 13, 14, 11], tags: [("building", "yes"), ("amenity", "school"), ("name", "Koulu")]),
        TestWay(id: 101, refs: [11, 12, 13], tags: [("highway", "footway"), ("leisure", "track")]),
        TestWay(id: 102, refs: [11, 999, 12], tags: [("amenity", "bench")]),
        TestWay(
            id: 103, refs: [21, 22, 23, 24, 25, 26, 27, 28, 21], tags: [("leisure", "playground"), ("name", "U")]),
        TestWay(id: 104, refs: [2, 3], tags: [("highway", "service")]),
    ]

    static let relations: [Int64] = [300, 301]

    struct Expected {
        var id: String
        var name: String
        var keywords: [String]
        /// The tag key of each keyword.
        var keys: [String]
        var lon: Double
        var lat: Double
        /// Element ordinal in file order (PBF `line`).
        var ordinal: UInt64
    }

    static let expectedRecords: [Expected] = [
        Expected(
            id: "node/1", name: "Pizza & Burger", keywords: ["restaurant", "pizza", "burger"],
            keys: ["amenity", "cuisine", "cuisine"], lon: 24.0, lat: 60.0,
            ordinal: 1),
        Expected(
            id: "node/5", name: "Kauppa \"<Ö>\"", keywords: ["shop"], keys: ["shop"], lon: 24.0005, lat: 60.0005,
            ordinal: 4),
        Expected(id: "node/7", name: "", keywords: [], keys: [], lon: 151.2152967, lat: -33.8567844, ordinal: 5),
        // keyword order follows keyword_keys (cuisine before tourism before historic); "artwork"
        // is kept once per key (cuisine=artwork and tourism=artwork are two facts).
        Expected(
            id: "node/8", name: "Muistomerkki", keywords: ["artwork", "artwork", "memorial"],
            keys: ["cuisine", "tourism", "historic"], lon: 24.004, lat: 60.004, ordinal: 6),
        Expected(
            id: "way/100", name: "Koulu", keywords: ["school"], keys: ["amenity"], lon: 24.001, lat: 60.001, ordinal: 20
        ),
        // open way: 0.002° of longitude at 60° is 0.001 "degrees of length", then 0.002° north;
        // halfway (0.0015) is a quarter up the second segment.
        Expected(
            id: "way/101", name: "", keywords: ["track"], keys: ["leisure"], lon: 24.002, lat: 60.0005, ordinal: 21),
        Expected(
            id: "way/103", name: "U", keywords: ["playground"], keys: ["leisure"], lon: 24.01375, lat: 60.012,
            ordinal: 23),
    ]

    static let expectedRejects: [(ordinal: UInt64, reason: String, raw: String)] = [
        (7, "invalid coordinates: lat 95.0, lon 24.0", "node/9 [amenity=cafe] at lat 95.0, lon 24.0"),
        (22, "1 of 3 node refs not in file", "way/102 [amenity=bench], 3 node refs"),
    ]

    /// Results in reader order: nodes (records and rejects by ordinal), then ways.
    static var expectedOrder: [String] {
        var items: [(UInt64, String)] = expectedRecords.map { ($0.ordinal, $0.id) }
        items += expectedRejects.map { ($0.ordinal, "rejected:" + $0.reason) }
        return items.sorted { $0.0 < $1.0 }.map { $0.1 }
    }

    static var counts: OSMElementCounts {
        var c = OSMElementCounts()
        c.nodes = nodes.count
        c.ways = ways.count
        c.relations = relations.count
        c.poiNodes = 5
        c.poiWays = 4
        c.rejectedNodes = 1
        c.rejectedWays = 1
        return c
    }

    /// The data as a PBF file: nodes split over two blocks (dense or plain), ways and relations
    /// in a third.
    static func pbf(
        dense: Bool, compression: PBFTestWriter.Compression = .zlib, granularity: Int64 = 100,
        latOffset: Int64 = 0, lonOffset: Int64 = 0
    ) -> [UInt8] {
        pbfWriter(
            dense: dense, compression: compression, granularity: granularity, latOffset: latOffset, lonOffset: lonOffset
        ).bytes
    }

    static func pbfWriter(
        dense: Bool, compression: PBFTestWriter.Compression = .zlib, granularity: Int64 = 100,
        latOffset: Int64 = 0, lonOffset: Int64 = 0
    ) -> PBFTestWriter {
        var w = PBFTestWriter()
        w.granularity = granularity
        w.latOffset = latOffset
        w.lonOffset = lonOffset
        w.header(compression: compression)
        let first = Array(nodes.prefix(6))
        let rest = Array(nodes.dropFirst(6))
        w.data([dense ? .dense(first) : .nodes(first)], compression: compression)
        w.data([dense ? .dense(rest) : .nodes(rest)], compression: compression)
        w.data([.ways(ways), .relations(relations)], compression: compression)
        return w
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The data as OSM XML (one element start per line; tags on their own lines).
    static func xml() -> String {
        var out = "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"test\">\n"
        for n in nodes {
            out += "  <node id=\"\(n.id)\" lat=\"\(n.lat)\" lon=\"\(n.lon)\""
            if n.tags.isEmpty {
                out += "/>\n"
                continue
            }
            out += ">\n"
            for (k, v) in n.tags { out += "    <tag k=\"\(escape(k))\" v=\"\(escape(v))\"/>\n" }
            out += "  </node>\n"
        }
        for w in ways {
            out += "  <way id=\"\(w.id)\">\n"
            for r in w.refs { out += "    <nd ref=\"\(r)\"/>\n" }
            for (k, v) in w.tags { out += "    <tag k=\"\(escape(k))\" v=\"\(escape(v))\"/>\n" }
            out += "  </way>\n"
        }
        for r in relations {
            out += "  <relation id=\"\(r)\">\n    <member type=\"node\" ref=\"1\" role=\"\"/>\n  </relation>\n"
        }
        return out + "</osm>\n"
    }
}
