import Foundation
import RegionSearchModel
import RegionSearchProjection

/// Turns regions into polygons with GEOS: the hull of each region's *shape* POIs — matching POIs
/// whose own neighbourhood is keyword-dense (the POIs of other categories around a cluster, and
/// stray matching POIs at its fringe, do not widen it), grown by a margin, never thinner than a
/// minimum extent, valid, and not overlapping another region of the same keyword.
///
/// Rules, in order:
/// 1. Plane: the projected CRS when it is local (UTM or a named CRS); otherwise (equal-area
///    continental or world projections, whose shapes are distorted) a Lambert azimuthal
///    equal-area projection centred on the region, so shapes and areas are true everywhere.
/// 2. Hull: GEOS convex hull of the shape POIs, or GEOS concave hull with `concave_ratio`
///    (1 = convex, smaller = tighter; keeps street-shaped clusters street-shaped).
/// 3. Margin: the hull is buffered by `margin_m`, by default half the region's median POI spacing,
///    so the polygon covers the surroundings of its edge POIs rather than passing through them.
/// 4. Minimum extent: a hull with less area than a disc of diameter `min_extent_m` (stacked POIs in
///    one building, two POIs, a line of POIs) is buffered by half that diameter instead.
/// 5. Validity: GEOS `isValid`; an invalid result is repaired with `MakeValid` (largest polygon kept).
/// 6. No overlaps within a keyword: regions are processed in rank order and each polygon has the
///    polygons of better-ranked regions of the same keyword subtracted (largest remaining part kept;
///    a region left empty is dropped and counted).
/// 7. Output: transformed to WGS84, rounded to 7 decimals, counter-clockwise, closed; a polygon
///    crossing the antimeridian is split there into a MultiPolygon (RFC 7946 §3.1.9).
public struct RegionPolygonBuilder {
    public struct Options: Sendable {
        public var concave: Bool
        var concaveRatio: Double
        /// Metres; nil = half the region's median POI spacing.
        public var margin: Double?
        var minExtent: Double
        public init(concave: Bool = false, concaveRatio: Double = 0.3, margin: Double? = nil, minExtent: Double = 20) {
            self.concave = concave
            self.concaveRatio = concaveRatio
            self.margin = margin
            self.minExtent = minExtent
        }
    }

    /// The polygon of one region.
    public struct Polygon {
        /// Index into the region table.
        public var region: Int
        public var rings: [GeoJSONWriter.Ring]
        /// Geodesic area of the output polygon on the WGS84 ellipsoid, m².
        public var areaM2: Double
        var marginM: Double
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    /// Builds polygons for all regions; returns them in table order (dropped regions omitted) and
    /// the number of regions dropped because better-ranked ones of their keyword covered them.
    public func build(table: RegionTable, points: ProjectedPoints, crs: String, crsIsLocal: Bool) throws
        -> (polygons: [Polygon], dropped: Int)
    {
        let geos = GEOSContext()
        let proj = PROJContext()
        let toWGS84 = crsIsLocal ? try proj.transformation(from: "EPSG:4326", to: crs) : nil
        // Regions in rank order within each keyword (the table is already ordered that way).
        var coveredByKeyword: [Int: GEOSGeometry] = [:]
        var out: [Polygon] = []
        var dropped = 0
        for (index, region) in table.regions.enumerated() {
            var px: [Double] = []
            var py: [Double] = []
            var lons: [Double] = []
            var lats: [Double] = []
            for v in region.shapeMembers {
                let i = Int(v)
                px.append(points.x[i])
                py.append(points.y[i])
                lons.append(points.lon[i])
                lats.append(points.lat[i])
            }
            // The plane the hull is built in.
            let plane: PROJTransform
            if let toWGS84 {
                plane = toWGS84
            } else {
                let (clon, clat) = Self.centre(lon: lons, lat: lats)
                plane = try proj.transformation(
                    from: "EPSG:4326",
                    to: "+proj=laea +lat_0=\(clat) +lon_0=\(clon) +datum=WGS84 +units=m +no_defs +type=crs")
                px = lons
                py = lats
                _ = try plane.transform(x: &px, y: &py)
            }
            let margin = options.margin ?? 0.5 * region.spacing
            var g = try geos.multiPoint(x: px, y: py)
            g = options.concave ? try g.concaveHull(ratio: options.concaveRatio) : try g.convexHull()
            let minRadius = options.minExtent / 2
            if !g.isPolygon || g.area < Double.pi * minRadius * minRadius {
                g = try g.buffer(max(margin, minRadius))
            } else if margin > 0 {
                g = try g.buffer(margin)
            }
            if !g.isValid { g = try g.makeValid() }
            guard var polygon = try g.largestPolygon() else {
                dropped += 1
                continue
            }
            // Back to WGS84.
            var (rx, ry) = try polygon.exteriorRing()
            let failed = try plane.transform(x: &rx, y: &ry, inverse: true)
            guard failed.isEmpty else {
                throw GEOSError(
                    message: "region \(index + 1): \(failed.count) hull vertices could not be transformed back to WGS84"
                )
            }
            // Make longitudes continuous around the region before any planar operation in degrees.
            let reference = rx.first ?? 0
            for i in 0..<rx.count { rx[i] = reference + normalizeLongitude(rx[i] - reference) }
            polygon = try geos.polygon(x: rx, y: ry)
            if !polygon.isValid, let repaired = try polygon.makeValid().largestPolygon() { polygon = repaired }
            if let covered = coveredByKeyword[region.keyword], covered.intersects(polygon) {
                guard let rest = try polygon.difference(covered).largestPolygon(), rest.area > 0 else {
                    dropped += 1
                    continue
                }
                polygon = rest
            }
            coveredByKeyword[region.keyword] =
                try coveredByKeyword[region.keyword].map { try $0.union(polygon) } ?? polygon
            let ring = try polygon.exteriorRing()
            let rings = try Self.splitAtAntimeridian(lon: ring.x, lat: ring.y, geos: geos)
            guard !rings.isEmpty else {
                dropped += 1
                continue
            }
            let area = rings.reduce(0.0) { $0 + Geodesic.area(lon: $1.lon, lat: $1.lat) }
            out.append(Polygon(region: index, rings: rings, areaM2: area, marginM: margin))
        }
        return (out, dropped)
    }

    /// Centre of a point set: mean latitude and circular-mean longitude (antimeridian safe).
    static func centre(lon: [Double], lat: [Double]) -> (Double, Double) {
        var sx = 0.0
        var sy = 0.0
        var la = 0.0
        for i in 0..<lon.count {
            sx += cos(lon[i] * .pi / 180)
            sy += sin(lon[i] * .pi / 180)
            la += lat[i]
        }
        let clon = (sx == 0 && sy == 0) ? 0 : atan2(sy, sx) * 180 / .pi
        return ((clon * 1e6).rounded() / 1e6, ((la / Double(max(lon.count, 1))) * 1e6).rounded() / 1e6)
    }

    /// Normalised rings in [-180, 180]; a ring whose longitudes leave that range (it crosses the
    /// antimeridian) is cut into its parts on either side.
    static func splitAtAntimeridian(lon: [Double], lat: [Double], geos: GEOSContext) throws -> [GeoJSONWriter.Ring] {
        let lo = lon.min() ?? 0
        let hi = lon.max() ?? 0
        if lo >= -180 && hi <= 180 {
            return GeoJSONWriter.normalizedRing(lon: lon, lat: lat).map { [$0] } ?? []
        }
        let shift = hi > 180 ? -360.0 : 360.0
        let polygon = try geos.polygon(x: lon, y: lat)
        var rings: [GeoJSONWriter.Ring] = []
        for (box, offset) in [((-180.0, 180.0), 0.0), (shift < 0 ? (180.0, 540.0) : (-540.0, -180.0), shift)] {
            let clip = try geos.polygon(x: [box.0, box.1, box.1, box.0], y: [-90, -90, 90, 90])
            let part = try polygon.intersection(clip)
            for i in 0..<max(part.geometryCount, 1) {
                let piece = part.geometryCount > 0 ? try part.part(i) : part
                guard piece.isPolygon, !piece.isEmpty else { continue }
                let r = try piece.exteriorRing()
                if let ring = GeoJSONWriter.normalizedRing(lon: r.x.map { $0 + offset }, lat: r.y) {
                    rings.append(ring)
                }
            }
        }
        return rings
    }
}
