import FoundationXML
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGDAL
@testable import RegionSearchOutput
@testable import RegionSearchTestSupport

/// Every output format written by ``VectorOutput``, read back by GDAL (the C API through
/// RegionSearchGDAL, and ogrinfo): one geometry type, the documented schema, the same features.
final class OutputFormatTests: XCTestCase {
    static let keywords = ["cafe", "美食"]

    /// A closed square, its vertices at the 7 decimals GeoJSON keeps.
    static func square(_ x: Double, _ y: Double, _ s: Double, clockwise: Bool = false) -> GeoJSONWriter.Ring {
        let lon = clockwise ? [x, x, x + s, x + s, x] : [x, x + s, x + s, x, x]
        let lat = clockwise ? [y, y + s, y + s, y, y] : [y, y, y + s, y + s, y]
        return GeoJSONWriter.Ring(lon: lon.map(GeoJSONWriter.rounded), lat: lat.map(GeoJSONWriter.rounded))
    }

    /// Region values in ``RegionFeatureSchema/fields`` order: these, and zero (or an empty
    /// string) for the fields a test does not care about.
    static func values(
        id: Int64, keyword: String, rank: Int64, nKeyword: Int64, area: Double, share: Double = 0.25,
        level: Int64 = 0, parent: Int64? = nil
    ) -> [FieldValue] {
        let given: [String: FieldValue] = [
            "region_id": .integer(id), "keyword": .string(keyword), "measure": .string("density"),
            "label": id == 1 ? .string("North Clark Street") : .null, "label_rule": id == 1 ? .string("street") : .null,
            "change": .string(id == 1 ? "grown" : "new"),
            "rank": .integer(rank), "level": .integer(level), "parent_id": parent.map { .integer($0) } ?? .null,
            "kind": .string(id == 1 ? "street" : "area"), "band_floor_per_km2": .real(12.5),
            "n_keyword_pois": .integer(nKeyword),
            "n_pois": .integer(nKeyword * 3 + 1_234_567_890_123), "share": .real(share), "lift": .real(2.0),
            "area_m2": .real(area), "keyword_density_per_km2": .real(Double(nKeyword) / (area / 1e6)),
            "density_per_km2": .real(10), "density_ratio": .real(4.5), "member_pois": .integer(nKeyword + 1),
            "member_score_mean": .real(0.125), "member_score_max": .real(0.9), "spacing_m": .real(35.5),
            "margin_m": .real(8.9), "empty_share": .real(0), "members_inside": .real(1), "shape_ok": .integer(1),
            "p_value": .real(1.5e-300), "q_value": .real(1),
            "fill": .string("#fee5d9"), "fill-opacity": .real(0.35), "stroke": .string("#99000d"),
            "stroke-width": .real(2),
        ]
        return RegionFeatureSchema.values(
            RegionFeatureSchema.fields.map { f in
                let zero: FieldValue = f.type == .integer ? .integer(0) : f.type == .real ? .real(0) : .string("")
                return (f.name, given[f.name] ?? zero)
            })
    }

    /// Two regions: a two-part MultiPolygon whose first part has a hole, and a one-part one.
    static func regions() -> FeatureLayer {
        let features = [
            FeatureLayer.Feature(
                geometry: .multiPolygon([
                    [square(24.90, 60.15, 0.05), square(24.92, 60.17, 0.01, clockwise: true)],
                    [square(25.00, 60.15, 0.02)],
                ]), values: values(id: 1, keyword: "cafe", rank: 1, nKeyword: 40, area: 1_000_000)),
            FeatureLayer.Feature(
                geometry: .multiPolygon([[square(37.60, 55.75, 0.03)]]),
                // A parent_id in one feature at least: GeoJSON has no schema, and GDAL types a
                // column whose values are all null as a string.
                values: values(id: 2, keyword: "美食", rank: 1, nKeyword: 7, area: 20_000, share: 1, level: 1, parent: 1)),
        ]
        let layer = FeatureLayer(
            name: "regions", geometryType: .multiPolygon, fields: RegionFeatureSchema.fields, features: features)
        return RegionStyle.apply(to: layer, keywords: keywords)
    }

    static func emptyRegions() -> FeatureLayer {
        FeatureLayer(name: "regions", geometryType: .multiPolygon, fields: RegionFeatureSchema.fields, features: [])
    }

    /// Field name as a format stores it.
    static func storedName(_ f: FeatureLayer.Field, _ format: OutputFormat) -> String {
        format == .shapefile ? f.shapefileName : f.name
    }

    static let fileFormats: [(String, OutputFormat)] = [
        ("r.geojson", .geojson), ("r.geojsonl", .geojsonseq), ("r.geojsons", .geojsonseq), ("r.gpkg", .gpkg),
        ("r.fgb", .flatgeobuf), ("r.shp", .shapefile), ("r.shp.zip", .shapefile),
    ]

    func testEveryFormatReadsBackWithOneGeometryTypeTheSchemaAndTheSameFeatures() throws {
        let dir = GIS.directory("formats")
        let layer = Self.regions()
        for (name, format) in Self.fileFormats {
            let path = dir + "/" + name
            try VectorOutput.writeFile([layer], format: format, to: path)
            let back = try GIS.read(path)
            // ogrinfo: one geometry type (a Shapefile has no Multi distinction: Polygon), the count.
            let info = try GIS.ogrinfo(["-so", "-al", path.hasSuffix(".zip") ? "/vsizip/" + path : path])
            XCTAssertTrue(
                info.contains("Geometry: " + (format == .shapefile ? "Polygon" : "Multi Polygon")), "\(name): \(info)")
            XCTAssertTrue(info.contains("Feature Count: 2"), "\(name): \(info)")
            XCTAssertTrue(
                info.contains((format == .shapefile ? "mem_score" : "member_score_mean") + ": Real"), "\(name): \(info)"
            )
            // The same through the API.
            XCTAssertEqual(back.declaredGeometryType, format == .shapefile ? "Polygon" : "Multi Polygon", name)
            // The documented schema, typed.
            XCTAssertEqual(back.fields.map(\.name), layer.fields.map { Self.storedName($0, format) }, name)
            for (f, read) in zip(layer.fields, back.fields) {
                switch f.type {
                case .integer: XCTAssertTrue(["Integer", "Integer64"].contains(read.typeName), "\(name) \(f.name)")
                case .real: XCTAssertEqual(read.typeName, "Real", "\(name) \(f.name)")
                case .string: XCTAssertEqual(read.typeName, "String", "\(name) \(f.name)")
                }
            }
            // The same features (FlatGeobuf returns them in spatial-index order: match by region_id).
            XCTAssertEqual(back.features.count, 2, name)
            for i in 0..<layer.count {
                let expected = layer.feature(i)
                guard let got = back.features.first(where: { $0.values[0] == expected.values[0] }) else {
                    XCTFail("\(name): region \(expected.values[0]) missing")
                    continue
                }
                for (k, (a, b)) in zip(expected.values, got.values).enumerated() {
                    if case .real(let x) = a, case .real(let y) = b {
                        // dBASE keeps reals with 15 decimals: 1.5e-300 reads as 0 (documented).
                        let tolerance = format == .shapefile ? max(abs(x) * 1e-12, 1e-15) : 0
                        XCTAssertEqual(x, y, accuracy: tolerance, "\(name) \(layer.fields[k].name)")
                    } else {
                        XCTAssertEqual(a, b, "\(name) \(layer.fields[k].name)")
                    }
                }
                guard case .geoJSON(let g) = got.geometry, case .multiPolygon(let polygons) = expected.geometry else {
                    XCTFail("\(name): geometry \(got.geometry)")
                    continue
                }
                XCTAssertEqual(
                    got.geometryType, format == .shapefile && polygons.count == 1 ? "Polygon" : "Multi Polygon")
                let want = polygons.flatMap { $0 }.flatMap { r in zip(r.lon, r.lat).map { [$0, $1] } }
                let have = GIS.positions(g)
                XCTAssertEqual(
                    have.sorted { $0.lexicographicallyPrecedes($1) }, want.sorted { $0.lexicographicallyPrecedes($1) },
                    name)
            }
        }
        // ogrinfo agrees, for the file a GIS analyst opens first.
        let info = try GIS.ogrinfo(["-so", "-al", dir + "/r.geojson"])
        XCTAssertTrue(info.contains("Geometry: Multi Polygon"), info)
        XCTAssertTrue(info.contains("share: Real"), "a real field whose values are whole stays Real: \(info)")
        XCTAssertTrue(info.contains("q_value: Real"), info)
    }

    func testGeoJSONWritesRealsAsRealsAndEveryPolygonAsAMultiPolygon() throws {
        let text = GeoJSONWriter.document(Self.regions(), foreignMembers: [])
        XCTAssertTrue(text.contains(#""q_value":1.0,"#), text)
        XCTAssertTrue(text.contains(#""lift":2.0,"#))
        XCTAssertTrue(text.contains(#""p_value":1.5e-300,"#))
        XCTAssertTrue(text.contains(#""n_pois":1234567890243,"#))
        XCTAssertEqual(text.components(separatedBy: #""type":"MultiPolygon""#).count - 1, 2)
        XCTAssertFalse(text.contains(#""type":"Polygon""#))
        let parsed = try JSONParser.parse(text)
        XCTAssertEqual(parsed["features"]?.arrayValue?.count, 2)
    }

    func testALayerWithoutFeaturesKeepsItsSchemaWhereTheFormatCan() throws {
        let dir = GIS.directory("empty")
        for (name, format) in Self.fileFormats where format != .geojsonseq {
            let path = dir + "/" + name
            try VectorOutput.writeFile([Self.emptyRegions()], format: format, to: path)
            let back = try GIS.read(path)
            XCTAssertEqual(back.features.count, 0, name)
            if format.keepsEmptySchema {
                XCTAssertEqual(
                    back.fields.map(\.name), RegionFeatureSchema.fields.map { Self.storedName($0, format) }, name)
                XCTAssertEqual(back.declaredGeometryType, format == .shapefile ? "Polygon" : "Multi Polygon", name)
            } else {
                // GeoJSON has no schema outside its features (documented: use GPKG or FlatGeobuf).
                XCTAssertEqual(back.fields.count, 0, name)
            }
        }
    }

    func testEveryFileFormatIsByteDeterministic() throws {
        let dir = GIS.directory("determinism")
        let formats = Self.fileFormats + [("r.kml", .kml)]
        for run in ["a", "b"] {
            for (name, format) in formats {
                try FileManager.default.createDirectory(atPath: dir + "/" + run, withIntermediateDirectories: true)
                try VectorOutput.writeFile([Self.regions()], format: format, to: dir + "/\(run)/" + name)
            }
            if run == "a" { Thread.sleep(forTimeInterval: 1.1) }  // a clock in the file would now differ
        }
        for name in DirectoryListing.names(dir + "/a") {
            XCTAssertEqual(
                FileManager.default.contents(atPath: dir + "/a/" + name),
                FileManager.default.contents(atPath: dir + "/b/" + name), name)
        }
        XCTAssertTrue(DirectoryListing.names(dir + "/a").contains("r.dbf"))
    }

    func testShapefileFieldNamesFitDBaseAndTextIsUTF8() throws {
        for fields in [RegionFeatureSchema.fields, POIFeatureSchema.fields(keywords: (1...999).map { "k\($0)" })] {
            let names = fields.map(\.shapefileName)
            XCTAssertTrue(names.allSatisfy { $0.utf8.count <= 10 }, "\(names.filter { $0.utf8.count > 10 })")
            XCTAssertEqual(Set(names).count, names.count, "Shapefile names are unique")
        }
        let dir = GIS.directory("shp")
        let written = try VectorOutput.writeFile([Self.regions()], format: .shapefile, to: dir + "/r.shp")
        XCTAssertEqual(written.last, dir + "/r.shp", "the main file is renamed last")
        XCTAssertEqual(
            Set(DirectoryListing.names(dir)), ["r.shp", "r.shx", "r.dbf", "r.prj", "r.cpg", "r.qml"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/r.cpg", encoding: .utf8), "UTF-8")
        XCTAssertEqual(
            try String(contentsOfFile: dir + "/r.qml", encoding: .utf8),
            QGISStyle.regions(keywords: Self.keywords, levels: [1, 2]))
        let back = try GIS.read(dir + "/r.shp")
        XCTAssertTrue(back.features.contains { $0.value("keyword", in: back) == .string("美食") })
    }

    func testKMLKeepsTheColourScaleOfEachRegion() throws {
        let dir = GIS.directory("kml")
        let layer = Self.regions()
        try VectorOutput.writeFile([layer], format: .kml, to: dir + "/r.kml")
        let kml = try String(contentsOfFile: dir + "/r.kml", encoding: .utf8)
        func kmlColour(_ hex: String, alpha: Int) -> String {  // KML is aabbggrr
            let d = Array(hex.dropFirst())
            return String(format: "%02x", alpha) + String(d[4...5]) + String(d[2...3]) + String(d[0...1])
        }
        for i in 0..<layer.count {
            let f = layer.feature(i)
            guard case .string(let keyword) = f.values[1], let k = Self.keywords.firstIndex(of: keyword) else {
                return XCTFail("keyword")
            }
            let density = RegionFeatureSchema.colorDensity(f.values)
            let alpha = Int((ColorScale.opacity(density: density) * 255).rounded())
            XCTAssertTrue(
                kml.contains("<color>\(kmlColour(ColorScale.fill(keyword: k, density: density), alpha: alpha))</color>")
            )
            XCTAssertTrue(kml.contains("<color>\(kmlColour(ColorScale.stroke(keyword: k), alpha: 255))</color>"))
        }
        XCTAssertTrue(kml.contains("<width>2</width>"))
        XCTAssertEqual(try GIS.read(dir + "/r.kml").features.count, 2)
    }

    /// The QGIS rules, evaluated by SQLite on a GeoPackage: every region matches exactly one
    /// leaf rule (keyword › level › density bin), and that rule's symbol has the region's
    /// ColorScale colour and opacity; there is a level rule for each level the keyword has, and
    /// features are drawn coarsest level first.
    func testQGISStyleRulesColourEachRegionOnceWithTheColourScale() throws {
        var features: [FeatureLayer.Feature] = []
        var id: Int64 = 0
        // One region in every density bin of both keywords, plus the bin edges; "cafe" at three
        // levels, "美食" at one.
        let densities = ColorScale.binLowerBounds.map { $0 + 1 } + ColorScale.binLowerBounds.dropFirst().map { $0 }
        for keyword in Self.keywords {
            for d in densities {
                id += 1
                let level = keyword == "cafe" ? id % 3 : 0
                features.append(
                    .init(
                        geometry: .multiPolygon([[Self.square(Double(id), 0, 0.5)]]),
                        values: Self.values(
                            id: id, keyword: keyword, rank: id, nKeyword: Int64(d), area: 1_000_000, level: level,
                            parent: level > 0 ? 1 : nil)))
            }
        }
        let layer = RegionStyle.apply(
            to: FeatureLayer(
                name: "regions", geometryType: .multiPolygon, fields: RegionFeatureSchema.fields, features: features),
            keywords: Self.keywords)
        XCTAssertEqual(RegionStyle.levelCounts(layer, keywords: Self.keywords), [3, 1])
        let path = GIS.directory("qml") + "/r.gpkg"
        try VectorOutput.writeFile([layer], format: .gpkg, to: path)
        let ds = try GDALDataset(openingVector: path)
        let styles = try XCTUnwrap(
            try ds.executeSQL("SELECT styleQML FROM layer_styles WHERE f_table_name = 'regions'"))
        guard case .string(let qml)? = try styles.nextFeature()?.value(at: 0) else { return XCTFail("no style") }
        XCTAssertEqual(qml, QGISStyle.regions(keywords: Self.keywords, levels: [3, 1]))
        let doc = try XMLDocument(xmlString: qml, options: [])
        let renderer = try XCTUnwrap(try doc.nodes(forXPath: "//renderer-v2").first as? XMLElement)
        XCTAssertEqual(renderer.attribute(forName: "enableorderby")?.stringValue, "1")
        let order = try doc.nodes(forXPath: "//renderer-v2/orderby/orderByClause").compactMap { $0 as? XMLElement }
        XCTAssertEqual(order.map(\.stringValue), ["\"level\""], "coarsest level drawn first")
        XCTAssertEqual(order.first?.attribute(forName: "asc")?.stringValue, "1")
        let symbols = try doc.nodes(forXPath: "//symbols/symbol").compactMap { $0 as? XMLElement }
        var matched: [Int64: Int] = [:]
        var levelRules: [[String]] = []
        for keywordRule in try doc.nodes(forXPath: "//rules/rule").compactMap({ $0 as? XMLElement }) {
            let parent = try XCTUnwrap(keywordRule.attribute(forName: "filter")?.stringValue)
            levelRules.append(
                keywordRule.elements(forName: "rule").compactMap { $0.attribute(forName: "label")?.stringValue })
            for levelRule in keywordRule.elements(forName: "rule") {
                let level = try XCTUnwrap(levelRule.attribute(forName: "filter")?.stringValue)
                for leaf in levelRule.elements(forName: "rule") {
                    let filter = try XCTUnwrap(leaf.attribute(forName: "filter")?.stringValue)
                    let symbolName = try XCTUnwrap(leaf.attribute(forName: "symbol")?.stringValue)
                    let symbol = try XCTUnwrap(
                        symbols.first { $0.attribute(forName: "name")?.stringValue == symbolName })
                    let colour = try XCTUnwrap(
                        symbol.nodes(forXPath: ".//Option[@name='color']").first.flatMap {
                            ($0 as? XMLElement)?.attribute(forName: "value")?.stringValue
                        })
                    let alpha = try XCTUnwrap(symbol.attribute(forName: "alpha")?.stringValue.flatMap(Double.init))
                    let result = try XCTUnwrap(
                        try ds.executeSQL(
                            "SELECT region_id FROM regions WHERE (\(parent)) AND (\(level)) AND (\(filter))",
                            dialect: "SQLITE"))
                    while let row = try result.nextFeature() {
                        guard case .integer(let rid) = row.value(at: 0) else { continue }
                        matched[rid, default: 0] += 1
                        let f = features[Int(rid) - 1]
                        guard case .string(let keyword) = f.values[1] else { continue }
                        let k = Self.keywords.firstIndex(of: keyword)!
                        let density = RegionFeatureSchema.colorDensity(f.values)
                        XCTAssertEqual(
                            colour, QGISStyle.rgba(ColorScale.fill(keyword: k, density: density)), "region \(rid)")
                        XCTAssertEqual(alpha, ColorScale.opacity(density: density), "region \(rid)")
                    }
                }
            }
        }
        XCTAssertEqual(levelRules, [["level 0 (coarsest)", "level 1", "level 2"], ["level 0 (coarsest)"]])
        XCTAssertEqual(matched.count, features.count, "every region is drawn")
        XCTAssertTrue(matched.values.allSatisfy { $0 == 1 }, "by exactly one rule: \(matched)")
    }

    func testAPipeOrDeviceIsWrittenThroughAndAShapefileRefused() throws {
        let dir = GIS.directory("fifo")
        let fifo = dir + "/out.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let received = UncheckedBox<Data>(Data())
        let reader = Thread {
            // Plain read(2) until EOF: FileManager does not read a pipe.
            let fd = open(fifo, O_RDONLY)
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while fd >= 0 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            close(fd)
            received.value = data
        }
        reader.start()
        try VectorOutput.writeFile([Self.regions()], format: .gpkg, to: fifo)
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        try VectorOutput.writeFile([Self.regions()], format: .gpkg, to: dir + "/file.gpkg")
        XCTAssertEqual(received.value, FileManager.default.contents(atPath: dir + "/file.gpkg"))
        var st = stat()
        XCTAssertEqual(lstat(fifo, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "the pipe is still a pipe")
        XCTAssertThrowsError(try VectorOutput.writeFile([Self.regions()], format: .shapefile, to: "/dev/null")) {
            XCTAssertTrue("\($0)".contains("several files"), "\($0)")
        }
        try VectorOutput.writeFile([Self.regions()], format: .geojson, to: "/dev/null")
        XCTAssertThrowsError(try VectorOutput.writeFile([Self.regions()], format: .geojson, to: dir))
    }
}

/// A mutable box shared with a reader thread in a test (joined before it is read).
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
