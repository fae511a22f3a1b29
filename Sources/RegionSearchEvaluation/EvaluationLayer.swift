import RegionSearchCore
import RegionSearchOutput
import RegionSearchProjection

/// The features of one region or truth file as GEOS geometries in a metric CRS, repaired where
/// invalid, with their areas (m²) and envelopes.
///
/// Every feature keeps its place: an invalid polygon is repaired with GEOS `MakeValid` (and
/// counted, with GEOS's reason), and its polygonal part is kept — lines and points that
/// `MakeValid` may produce from a collapsed polygon have no area. A feature that has no area at
/// all after repair stays in the layer with area 0 (it cannot match anything) and is counted as
/// degenerate.
package final class EvaluationLayer {
    /// One feature, projected.
    package struct Item {
        public var id: JSONValue
        public var keyword: String?
        /// The feature's `kind` property (truth and must-not files).
        public var kind: String?
        /// The feature's `level` (0 when the file has none).
        public var level: Int = 0
        /// The feature's `name` property when it is a string (must-not files name their rivers).
        public var name: String?
        public var geometry: GEOSGeometry
        /// Area in m² of the CRS's plane.
        public var area: Double
        /// Nil when the geometry is empty.
        public var envelope: GEOSEnvelope?
        public var repaired: Bool
        var keywordLabel: String { keyword ?? "*" }
    }

    public let path: String
    public let items: [Item]
    /// Features that were invalid and repaired with MakeValid.
    let repairedCount: Int
    /// GEOS's reason for the first few repairs ("feature 3: Self-intersection[…]").
    let repairNotes: [String]
    /// Features with zero area after repair.
    let degenerateCount: Int
    /// Features without geometry in the file (skipped when reading).
    let nullGeometries: Int

    /// Projects `file` with `transform` (WGS84 lon/lat → metric CRS) and builds its geometries.
    public init(file: RegionFeatureFile, transform: PROJTransform, context: GEOSContext) throws {
        path = file.path
        nullGeometries = file.nullGeometries
        // The rings with their long edges divided (see `densified`), then one bulk PROJ call for
        // all coordinates of the file.
        var dense = file
        for i in dense.features.indices {
            dense.features[i].polygons = file.features[i].polygons.map { $0.map(Self.densified) }
        }
        var (xs, ys) = dense.allCoordinates
        let failed = try transform.transform(x: &xs, y: &ys)
        var items: [Item] = []
        items.reserveCapacity(file.features.count)
        var repaired = 0
        var notes: [String] = []
        var degenerate = 0
        var offset = 0
        let firstFailure = failed.min()
        for f in dense.features {
            var polygons: [GEOSGeometry] = []
            for polygon in f.polygons {
                var rings: [(x: [Double], y: [Double])] = []
                for ring in polygon {
                    let range = offset..<(offset + ring.lon.count)
                    if let bad = firstFailure, range.contains(bad) {
                        let k = bad - offset
                        throw EvaluateError.projection(
                            path: path,
                            reason:
                                "feature \(f.index): position [\(ring.lon[k]), \(ring.lat[k])] cannot be projected "
                                + "to \(transform.target)"
                        )
                    }
                    rings.append((Array(xs[range]), Array(ys[range])))
                    offset = range.upperBound
                }
                polygons.append(try context.polygon(rings: rings))
            }
            var geometry = polygons.count == 1 ? polygons[0] : try context.multiPolygon(of: polygons)
            var wasRepaired = false
            if !geometry.isValid {
                if notes.count < 5 {
                    notes.append("feature \(f.index) (id \(f.id.serialized())): \(geometry.validityReason)")
                }
                geometry = try geometry.makeValid().polygonalParts()
                repaired += 1
                wasRepaired = true
            }
            let area = geometry.area
            if !(area > 0) { degenerate += 1 }
            items.append(
                Item(
                    id: f.id, keyword: f.keyword, kind: f.kind, level: f.level,
                    name: f.properties["name"]?.stringValue, geometry: geometry, area: area > 0 ? area : 0,
                    envelope: geometry.envelope, repaired: wasRepaired))
        }
        self.items = items
        repairedCount = repaired
        repairNotes = notes
        degenerateCount = degenerate
    }

    /// Longest edge, in degrees of longitude or latitude, that is projected as it is.
    static let maxEdgeDegrees = 0.05

    /// The ring with every edge longer than ``maxEdgeDegrees`` divided evenly in longitude and
    /// latitude. A GeoJSON edge is straight in longitude and latitude (RFC 7946), and projected
    /// from its ends alone it would be straight in the metric CRS instead: over a 15 km edge of a
    /// world-scale region the two lines lie about 4 m apart, enough for a POI beside the edge to
    /// count inside in the file and outside here. Pieces of 0.05° (about 5 km) lie within half a
    /// metre of it; a city's polygons, whose edges are shorter, are projected as before.
    static func densified(_ ring: GeoJSONWriter.Ring) -> GeoJSONWriter.Ring {
        let n = ring.lon.count
        guard n > 1 else { return ring }
        var longest = 0.0
        for i in 1..<n {
            longest = max(longest, abs(ring.lon[i] - ring.lon[i - 1]), abs(ring.lat[i] - ring.lat[i - 1]))
        }
        guard longest > maxEdgeDegrees else { return ring }
        var lon: [Double] = [ring.lon[0]]
        var lat: [Double] = [ring.lat[0]]
        for i in 1..<n {
            let (x0, y0, x1, y1) = (ring.lon[i - 1], ring.lat[i - 1], ring.lon[i], ring.lat[i])
            let pieces = Int((max(abs(x1 - x0), abs(y1 - y0)) / maxEdgeDegrees).rounded(.up))
            if pieces > 1 {
                for k in 1..<pieces {
                    let t = Double(k) / Double(pieces)
                    lon.append(x0 + (x1 - x0) * t)
                    lat.append(y0 + (y1 - y0) * t)
                }
            }
            lon.append(x1)
            lat.append(y1)
        }
        return GeoJSONWriter.Ring(lon: lon, lat: lat)
    }

    public var count: Int { items.count }

    /// Distinct keyword labels (`*` for features without keyword), in code-point order.
    var keywordLabels: [String] {
        var labels: [String] = []
        for item in items where !labels.contains(item.keywordLabel) { labels.append(item.keywordLabel) }
        return labels.sorted(by: codePointOrder)
    }
}

/// Orders strings by Unicode code points (UTF-8 byte order), as Python's `sorted` does; Swift's
/// `<` on String also orders by code points of the NFC form, which can differ for unnormalised text.
func codePointOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
