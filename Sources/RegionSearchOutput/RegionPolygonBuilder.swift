import CGEOS
import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchProjection
import Synchronization

/// Turns regions into polygons with GEOS: the region's skeleton — its keyword POIs, the edges
/// that join them and the triangles those edges close — grown by a margin, never thinner than a
/// minimum extent, valid, and not overlapping another region of the same keyword.
///
/// Rules, in order:
/// 1. Plane: the projected CRS when it is local (UTM or a named CRS); otherwise (equal-area
///    continental or world projections, whose shapes are distorted) a Lambert azimuthal
///    equal-area projection centred on the region, so shapes and areas are true everywhere.
/// 2. Skeleton: every member POI, every edge between members (the keyword graph's accepted edges:
///    short for the keyword there, not across voids) and every triangle of three such edges. A
///    street of restaurants is a chain of segments, a district a mesh of triangles with holes where
///    its POIs leave a park or a block empty; nothing spans more than the region's own gaps.
///    Regions without edges (DBSCAN baseline) use the convex hull of their members instead; with
///    `hull: "concave"` the GEOS concave hull (`concave_ratio`).
/// 3. Margin: the skeleton is buffered by `margin_m`, by default `margin_spacing` times the
///    region's spacing or, when larger (`margin_rule` "support"), the band beyond the members'
///    convex hull that their number implies (``supportGap(x:y:)``, at most one spacing), and at
///    least a quarter of `min_extent_m`: the polygon covers the ground just around its POIs, a
///    chain of doorways becomes a street-wide band, a town's twelve restaurants reach as far as
///    the square they were drawn from. A region of a finer level borders its parent's ground,
///    which is dense with the keyword too: its edge lies between its outer members and the
///    parent's POIs beyond them, and those stand at about the spacing of the band floor it was cut
///    at (1/√floor) — so its margin is at least `child_margin_floor` (one half: the midpoint) of
///    that spacing, up to one spacing of its own. Drawn tighter, a district cut out of a downtown
///    is its members' skeleton, the streets between its restaurants left to the parent. The grown
///    skeleton is then closed (grown and shrunk back) by `close_spacing` spacings: a notch or hole
///    narrower than about twice that — the inside of a block whose restaurants line its frontages,
///    the bay between a district's streets — is ground between members and is filled; the
///    closing adds nothing outside the skeleton's convex hull, and parts farther apart than that
///    stay apart. What it adds is kept off the own (unclosed) ground of the other regions of the
///    keyword and level (rule 6): a dense cluster lying in the notch of a wide sparse region stays
///    its own region.
/// 3a. Street (`street_aspect`): a region whose centre line (``StreetSpine`` over its skeleton
///    edges) is long for the band nine in ten of its members lie in is drawn instead as that
///    street-wide band, one width all along, from its first member to its last
///    (``streetBand(_:members:x:y:margin:geos:)``), when the band holds no more empty ground
///    (``ShapeCheck``) than the grown skeleton; it is not closed.
/// 4. Minimum extent: a polygon with less area than a disc of diameter `min_extent_m` (stacked POIs
///    in one building) is grown to that disc around its POIs.
/// 5. Validity: GEOS `isValid`; an invalid result is repaired with `MakeValid`. Every part is kept
///    (a street whose gap is too long to draw becomes a MultiPolygon), holes included.
/// 5a. Denser neighbours' members: where the polygon covers a member of a denser, worse-ranked
///    region of the same keyword and level, the ground nearer that member than any of its own
///    (a disc of half that distance, at most the margin) is left out, so that rule 6 does not
///    take the denser region's POIs from it
///    (``othersGround(_:_:planar:x:y:lon:lat:margin:others:points:plane:local:geos:)``).
/// 6. Nesting, and no overlaps within a keyword and level: regions are processed in table order
///    (a parent before its children, each level in rank order); a region's polygon is cut to its
///    parent's (the nearest ancestor's that was drawn), so a finer region lies inside the coarser
///    one, and the polygons of better-ranked regions of the same keyword and level are subtracted;
///    a region left empty, or holding none of its members, is dropped and counted.
/// 7. Output: transformed to WGS84 and snapped to the 7-decimal grid it is written on (GEOS
///    snap-rounding, so the written polygon is valid, not only the computed one); exterior
///    counter-clockwise and holes clockwise, closed, each ring from its least vertex and holes and
///    parts in order of theirs (the bytes do not depend on where GEOS began a ring); a polygon
///    crossing the antimeridian is split there into a MultiPolygon (RFC 7946 §3.1.9; holes are not
///    kept across such a split).
public struct RegionPolygonBuilder {
    public struct Options: Sendable, Equatable {
        public var concave: Bool
        var concaveRatio: Double
        /// Metres; nil = the automatic margin (`marginRule`; at least a quarter of `minExtent`).
        public var margin: Double?
        /// The automatic margin in spacings (`margin_spacing`).
        public var marginSpacing: Double
        /// How the automatic margin is measured (``MarginRule``).
        public var marginRule: MarginRule = .support
        /// A finer region's automatic margin is at least this many spacings of its band floor
        /// (`child_margin_floor`; 0 = as level 0).
        public var childMarginFloor: Double = 0.5
        /// Skeleton edges up to this many spacings are drawn.
        var edgeSpacing: Double
        /// Skeleton triangles whose circumradius is at most this many spacings are filled.
        var triangleSpacing: Double
        /// The grown skeleton is closed by this many spacings (rule 3): notches and holes narrower
        /// than about twice that between its parts are filled.
        var closeSpacing: Double
        /// A region whose centre line is at least this many times as long as its band is wide is
        /// drawn as a street-wide band (rule 3a, `street_aspect`; 0 = never).
        public var streetAspect: Double = 4
        var minExtent: Double
        /// What of the hierarchy is written (`levels`); applied after the polygons are built
        /// (``RegionLevelSelection/select(_:table:)``), since a child is cut to its parent.
        public var levels: RegionLevelSelection
        public init(
            concave: Bool = false, concaveRatio: Double = 0.3, margin: Double? = nil, marginSpacing: Double = 0.3,
            edgeSpacing: Double = 4, triangleSpacing: Double = 2, closeSpacing: Double = 1.5, minExtent: Double = 20,
            levels: RegionLevelSelection = .all
        ) {
            self.levels = levels
            self.marginSpacing = marginSpacing
            self.edgeSpacing = edgeSpacing
            self.triangleSpacing = triangleSpacing
            self.closeSpacing = closeSpacing
            self.concave = concave
            self.concaveRatio = concaveRatio
            self.margin = margin
            self.minExtent = minExtent
        }
    }

    /// How the automatic margin is measured (`margin_rule`).
    public enum MarginRule: String, Sendable, CaseIterable {
        /// `margin_spacing` times the region's spacing.
        case spacing
        /// The larger of that and the ground beyond the members' convex hull that their number
        /// and the hull's corners imply (``RegionPolygonBuilder/supportGap(x:y:)``), at most one
        /// spacing: a few POIs drawn from a district reach less far than the district does.
        case support
    }

    /// The polygon of one region.
    public struct Polygon {
        /// Index into the region table.
        public var region: Int
        /// Exterior ring and holes of each part, in WGS84 as written.
        public var polygons: [[GeoJSONWriter.Ring]]
        /// Geodesic area of the output polygon on the WGS84 ellipsoid (holes excluded), m².
        public var areaM2: Double
        public var marginM: Double
        /// The shape check (``ShapeCheck``) of the polygon as drawn.
        public var shape: ShapeCheck
        /// Whether the region is a street, drawn as a street-wide band along its centre line
        /// (rule 3a); else it is drawn as an area, its grown skeleton. The output's `kind`.
        public var isStreet = false

        /// The exterior rings.
        public var rings: [GeoJSONWriter.Ring] { polygons.map { $0[0] } }
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    /// A Polygon or MultiPolygon as coordinates, the form in which shapes cross threads (each
    /// thread has its own GEOS context): every part's rings (exterior first) exactly as GEOS
    /// returned them.
    struct Rings {
        var parts: [[(x: [Double], y: [Double])]]
        /// Whether GEOS returned a MultiPolygon (else a Polygon, or nothing when `parts` is empty).
        var multi: Bool

        init(_ polygonal: GEOSGeometry) throws {
            parts = polygonal.isEmpty ? [] : try polygonal.polygons().map { try $0.rings() }
            multi = polygonal.typeID == Int32(GEOS_MULTIPOLYGON.rawValue)
        }

        /// The bounding box of the exterior rings (nil without parts).
        var envelope: GEOSEnvelope? {
            var box: GEOSEnvelope?
            for exterior in parts.compactMap(\.first) where !exterior.x.isEmpty {
                let b = PointBounds(x: exterior.x, y: exterior.y)
                let e = GEOSEnvelope(minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY)
                box = box?.union(e) ?? e
            }
            return box
        }

        /// The same geometry in `geos` (parts non-empty).
        func geometry(_ geos: GEOSContext) throws -> GEOSGeometry {
            let pieces = try parts.map { try geos.polygon(rings: $0) }
            return multi ? try geos.collection(GEOS_MULTIPOLYGON, of: pieces) : pieces[0]
        }
    }

    /// A region's polygon in WGS84 after rules 1–5, before the rules that depend on better-ranked
    /// regions, and the same snapped to the output grid (what rule 7 writes when no better-ranked
    /// region is in the way; no parts when nothing polygonal is left of it).
    struct Shape {
        var computed: Rings
        var snapped: Rings
        var margin: Double
        /// The share of the polygon (rules 1–5, in the plane) farther than ``ShapeCheck/emptyDistance``
        /// spacings from every member.
        var emptyShare: Double
        /// The region's own ground before the closing (rule 3), in WGS84; nil without a closing.
        /// What the closing added is kept off the own ground of the other regions of its keyword
        /// and level (rule 6).
        var unclosed: Rings? = nil
        /// Drawn as a street-wide band (rule 3a).
        var isStreet = false
    }

    /// The 7-decimal grid the output is written on, in degrees.
    static let grid = 1e-7

    /// Builds polygons for all regions; returns them in table order (dropped regions omitted) and
    /// the number of regions dropped because better-ranked ones of their keyword covered them.
    ///
    /// Rules 1–5 of each region depend on that region alone and run on all threads (one GEOS and
    /// one PROJ context per thread; a worker takes the next region when it is done); rules 6–7 run
    /// in rank order afterwards. GEOS is deterministic and the shapes cross threads as coordinates,
    /// so the output is the same for any thread count.
    public func build(table: RegionTable, points: ProjectedPoints, crs: String, crsIsLocal: Bool) throws
        -> (polygons: [Polygon], dropped: Int)
    {
        let regions = table.regions
        let levelMembers = LevelMembers(regions: regions, points: points)
        var shapes = [Result<Shape?, Error>](repeating: .success(nil), count: regions.count)
        let next = Atomic<Int>(0)
        shapes.withUnsafeMutableBufferPointer { out in
            let out = out
            Parallel.forEach(max(1, min(Parallel.threadCount, regions.count))) { _ in
                let geos = GEOSContext()
                let proj = PROJContext()
                let toWGS84 = Result { crsIsLocal ? try proj.transformation(from: "EPSG:4326", to: crs) : nil }
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= regions.count { break }
                    out[index] = Result {
                        try shape(
                            index, regions[index], points: points, others: levelMembers, toWGS84: toWGS84.get(),
                            proj: proj, geos: geos)
                    }
                }
            }
        }
        let geos = GEOSContext()
        // Regions in rank order within each keyword and level, parents first (the table is
        // already ordered that way). The union of a level's earlier polygons is folded only when a
        // later one meets them, in the same order as always (most regions never meet).
        var coveredByKeyword: [SIMD2<Int>: CoveredArea] = [:]
        var drawn = [GEOSGeometry?](repeating: nil, count: regions.count)
        var out: [Polygon] = []
        var dropped = 0
        // Each region's own ground (without what its closing added) and its box, by keyword and
        // level: a closing fills the notches between a region's own parts, not another region
        // lying in such a notch (a dense cluster beside a wide sparse region that wraps around it).
        var groundBoxes: [SIMD2<Int>: [(index: Int, box: GEOSEnvelope)]] = [:]
        for (index, region) in regions.enumerated() where options.closeSpacing > 0 {
            guard let shape = try shapes[index].get(), let box = (shape.unclosed ?? shape.computed).envelope else {
                continue
            }
            groundBoxes[SIMD2(region.keyword, region.level), default: []].append((index, box))
        }
        var ownGround: [Int: GEOSGeometry] = [:]
        func ground(_ j: Int) throws -> GEOSGeometry {
            if let g = ownGround[j] { return g }
            let shape = try shapes[j].get()!
            let g = try (shape.unclosed ?? shape.computed).geometry(geos)
            ownGround[j] = g
            return g
        }
        for (index, region) in regions.enumerated() {
            guard let shape = try shapes[index].get() else {
                dropped += 1
                continue
            }
            let group = SIMD2(region.keyword, region.level)
            var ancestor = region.parent
            while ancestor >= 0 && drawn[ancestor] == nil { ancestor = regions[ancestor].parent }
            // What the closing added, less the own ground of the other regions of the keyword and
            // level it reaches (in table order, so the same bytes on any thread count).
            var computed: GEOSGeometry?
            if let unclosed = shape.unclosed, let box = shape.computed.envelope {
                let near = (groundBoxes[group] ?? []).filter { $0.index != index && $0.box.intersects(box) }
                if !near.isEmpty {
                    let closed = try shape.computed.geometry(geos)
                    let met = try near.map { try ground($0.index) }.filter { closed.intersects($0) }
                    if !met.isEmpty {
                        let cut = try closed.intersection(geos.unionAll(met)).difference(unclosed.geometry(geos))
                            .polygonalParts()
                        if !cut.isEmpty && cut.area > 0 {
                            computed = try closed.difference(cut, gridSize: Self.grid).polygonalParts()
                        }
                    }
                }
            }
            // On the 7-decimal grid the output is written in, so that rounding cannot make a valid
            // polygon invalid (a spike one unit wide folds onto itself), and the keyword's earlier
            // polygons are cut away on the same grid.
            var polygon: GEOSGeometry?
            if var covered = coveredByKeyword[group] {
                let c = try computed ?? shape.computed.geometry(geos)
                if covered.intersects(c) {
                    polygon = try c.difference(covered.union(), gridSize: Self.grid).polygonalParts()
                    coveredByKeyword[group] = covered
                }
            }
            if polygon == nil { polygon = computed }
            if polygon == nil && !shape.snapped.parts.isEmpty { polygon = try shape.snapped.geometry(geos) }
            if let p = polygon, ancestor >= 0, let outer = drawn[ancestor], let box = p.envelope {
                // The parent cut down to the child's box first (a city core of thousands of
                // vertices, a district of dozens), unless it covers the child whole.
                let prepared = try outer.prepared()
                if !prepared.covers(p) {
                    let grown = GEOSEnvelope(
                        minX: box.minX - Self.grid, minY: box.minY - Self.grid, maxX: box.maxX + Self.grid,
                        maxY: box.maxY + Self.grid)
                    let local = try outer.clipped(to: grown).polygonalParts()
                    polygon = try p.intersection(local.isValid ? local : outer, gridSize: Self.grid).polygonalParts()
                }
            }
            guard let polygon, !polygon.isEmpty, polygon.area > 0 else {
                dropped += 1
                continue
            }
            // Members inside the polygon as drawn (after the cuts of rule 6).
            let prepared = try polygon.prepared()
            // Every member of a small region; an even sample of at most 1,000 of a large one (the
            // share is written to 4 decimals and judged against 0.9).
            let members = region.shapeMembers
            let stride = max(1, members.count / 1_000)
            let box = polygon.envelope
            var inside = 0
            var tested = 0
            for k in Swift.stride(from: 0, to: members.count, by: stride) {
                let v = Int(members[k])
                tested += 1
                let lon = box.map { Self.continuous(points.lon[v], with: $0) } ?? points.lon[v]
                if try prepared.covers(x: lon, y: points.lat[v]) { inside += 1 }
            }
            // What the cuts left holds none of its members: a sliver of its margin beside the
            // better-ranked region that took its POIs. It is covered, as an empty one is.
            guard tested == 0 || inside > 0 else {
                dropped += 1
                continue
            }
            drawn[index] = polygon
            coveredByKeyword[group, default: CoveredArea()].add(polygon)
            var parts: [[GeoJSONWriter.Ring]] = []
            for piece in try polygon.polygons() { parts += try Self.written(piece, geos: geos) }
            // Parts in a fixed order, holes too: the written polygon does not depend on the order
            // GEOS returned them in.
            parts = parts.map { [$0[0]] + $0.dropFirst().sorted(by: GeoJSONWriter.ringPrecedes) }
                .sorted { GeoJSONWriter.ringPrecedes($0[0], $1[0]) }
            guard !parts.isEmpty else {
                dropped += 1
                continue
            }
            var area = 0.0
            for part in parts {
                area += Geodesic.area(lon: part[0].lon, lat: part[0].lat)
                for hole in part.dropFirst() { area -= Geodesic.area(lon: hole.lon, lat: hole.lat) }
            }
            let check = ShapeCheck(
                emptyShare: shape.emptyShare, membersInside: tested == 0 ? 1 : Double(inside) / Double(tested))
            out.append(
                Polygon(
                    region: index, polygons: parts, areaM2: area, marginM: shape.margin, shape: check,
                    isStreet: shape.isStreet))
        }
        return (out, dropped)
    }

    /// A keyword's polygons so far (rule 6) and their union, folded in rank order only when asked.
    struct CoveredArea {
        private var polygons: [(GEOSGeometry, GEOSEnvelope?)] = []
        private var folded: GEOSGeometry?
        private var foldedCount = 0

        mutating func add(_ polygon: GEOSGeometry) { polygons.append((polygon, polygon.envelope)) }

        /// Whether `polygon` meets any of them.
        func intersects(_ polygon: GEOSGeometry) -> Bool {
            guard let box = polygon.envelope else { return false }
            return polygons.contains { p, e in e.map { $0.intersects(box) } ?? true && p.intersects(polygon) }
        }

        /// Their union: ((p₁ ∪ p₂) ∪ p₃) ∪ …, as when it was kept up to date after every region.
        mutating func union() throws -> GEOSGeometry {
            var u = folded ?? polygons[0].0
            for k in max(foldedCount, 1)..<polygons.count { u = try u.union(polygons[k].0) }
            folded = u
            foldedCount = polygons.count
            return u
        }
    }

    /// Rules 1–5 for one region: its grown, valid skeleton in WGS84; nil when nothing polygonal
    /// is left of it.
    func shape(
        _ index: Int, _ region: RegionTable.Region, points: ProjectedPoints, others: LevelMembers,
        toWGS84: PROJTransform?, proj: PROJContext, geos: GEOSContext
    ) throws -> Shape? {
        let members = region.shapeMembers
        var px: [Double] = []
        var py: [Double] = []
        var lons: [Double] = []
        var lats: [Double] = []
        for v in members {
            let i = Int(v)
            px.append(points.x[i])
            py.append(points.y[i])
            lons.append(points.lon[i])
            lats.append(points.lat[i])
        }
        // The plane the polygon is built in.
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
        let minRadius = options.minExtent / 2
        let margin = options.margin ?? automaticMargin(region: region, x: px, y: py)
        var g = try grown(region, members: members, x: px, y: py, margin: margin, geos: geos)
        let close = options.closeSpacing * drawingSpacing(region)
        var unclosed: GEOSGeometry?
        if close > 0 && !region.edges.isEmpty && !options.concave {
            unclosed = g
            g = try Self.closing(g, by: close, geos: geos)
        }
        if !g.isPolygon && g.typeID != Int32(GEOS_MULTIPOLYGON.rawValue)
            || g.area < Double.pi * minRadius * minRadius
        {
            let disc = try geos.multiPoint(x: px, y: py).buffer(max(margin, minRadius))
            g = try g.union(disc)
            unclosed = try unclosed?.union(disc)
        }
        if !g.isValid { g = try g.makeValid() }
        var planar = try g.polygonalParts()
        guard !planar.isEmpty else { return nil }
        let emptyDistance = ShapeCheck.emptyDistance * drawingSpacing(region)
        var emptyShare = try ShapeCheck.emptyShare(of: planar, x: px, y: py, distance: emptyDistance)
        // A street is drawn as its band (rule 3a) unless the band holds more empty ground than
        // the grown skeleton: a few POIs scattered along a curve have a spine, but no street.
        // The band's half-width already measures how far across the street its POIs reach, which
        // the support margin estimates for ground drawn in two dimensions: it is grown by the
        // margin in spacings alone.
        let bandMargin = options.margin ?? max(options.marginSpacing * region.spacing, options.minExtent / 4)
        var isStreet = false
        if let band = try streetBand(region, members: members, x: px, y: py, margin: bandMargin, geos: geos) {
            let bandEmpty = try ShapeCheck.emptyShare(of: band, x: px, y: py, distance: emptyDistance)
            if bandEmpty <= emptyShare {
                planar = band
                emptyShare = bandEmpty
                unclosed = nil
                isStreet = true
            }
        }
        if let foreign = try othersGround(
            index, region, planar: planar, x: px, y: py, lon: lons, lat: lats, margin: margin, others: others,
            points: points, plane: plane, local: toWGS84 != nil, geos: geos)
        {
            planar = try planar.difference(foreign).polygonalParts()
            guard !planar.isEmpty else { return nil }
            unclosed = try unclosed?.difference(foreign)
            emptyShare = try ShapeCheck.emptyShare(of: planar, x: px, y: py, distance: emptyDistance)
        }
        // Longitudes are made continuous around the first vertex transformed back, for every
        // geometry of the region alike.
        var reference: Double?
        let polygon = try Self.lonLat(planar, plane: plane, reference: &reference, region: index, geos: geos)
        if polygon.isEmpty { return nil }
        // Snap rounding depends on the polygon alone: done here, on all threads.
        var shape = Shape(
            computed: try Rings(polygon),
            snapped: try Rings(polygon.reducedPrecision(gridSize: Self.grid).polygonalParts()),
            margin: margin, emptyShare: emptyShare, isStreet: isStreet)
        if var own = unclosed {
            if !own.isValid { own = try own.makeValid() }
            own = try Self.lonLat(own.polygonalParts(), plane: plane, reference: &reference, region: index, geos: geos)
            if !own.isEmpty { shape.unclosed = try Rings(own) }
        }
        return shape
    }

    /// Rule 5a: the ground around the members of denser, worse-ranked regions of the same keyword
    /// and level that the region's polygon `planar` covers — around each such member, the disc of
    /// half its distance to the region's nearest member, at most the region's `margin` — or nil
    /// when it covers none.
    ///
    /// Why: rule 6 cuts a region to what better-ranked regions of its level left, so without this
    /// a better-ranked sparse region whose margin or triangles reach over a denser one's members
    /// takes them, and the denser polygon no longer covers its own POIs (OurAirports: Seoul's wide
    /// heliport region, 4.6 km spacing, drawn over 14 of the 120 heliports of the dense central
    /// one, 353 m, whose polygon then held 88 % of them). The ground nearer such a member than to
    /// any of the region's own is left to the denser region, as the closing leaves a dense cluster
    /// in a sparse region's notch its own (rule 3); the region's own members all stay inside. A
    /// sparser region's members inside a denser region's ground stay its ground: a few scattered
    /// POIs do not punch holes into a district (``CoveredRegionTests``).
    func othersGround(
        _ index: Int, _ region: RegionTable.Region, planar: GEOSGeometry, x: [Double], y: [Double], lon: [Double],
        lat: [Double], margin: Double, others: LevelMembers, points: ProjectedPoints, plane: PROJTransform,
        local: Bool, geos: GEOSContext
    ) throws -> GEOSGeometry? {
        guard margin > 0, !x.isEmpty, let box = planar.envelope else { return nil }
        // How far the polygon reaches beyond its members' box, in metres, as degrees around them
        // (1.5 × for the plane's scale error; every longitude near a pole).
        let members = PointBounds(x: x, y: y)
        let reach =
            max(
                members.minX - box.minX, box.maxX - members.maxX, members.minY - box.minY, box.maxY - members.maxY, 0)
            * 1.5 + 1
        let metresPerDegree = 111_000.0
        let latPad = reach / metresPerDegree
        let latRange = (lat.min()! - latPad)...(lat.max()! + latPad)
        let centre = lon[0]
        let relative = lon.map { normalizeLongitude($0 - centre) }
        let cosine = cos(min(90, max(abs(latRange.lowerBound), abs(latRange.upperBound))) * .pi / 180)
        let lonPad = cosine > 0.01 ? reach / (metresPerDegree * cosine) : 360
        let lonRange = (relative.min()! - lonPad)...(relative.max()! + lonPad)
        let near = others.later(
            than: index, group: SIMD2(region.keyword, region.level), spacing: region.spacing, lat: latRange,
            lon: lonRange, centre: centre)
        guard !near.isEmpty else { return nil }
        var fx = near.map { local ? points.x[$0.point] : $0.lon }
        var fy = near.map { local ? points.y[$0.point] : $0.lat }
        if !local {
            let failed = try plane.transform(x: &fx, y: &fy)
            guard failed.isEmpty else {
                throw GEOSError(
                    message: "region \(index + 1): \(failed.count) members of other regions could not be projected")
            }
        }
        let prepared = try planar.prepared()
        var discs: [GEOSGeometry] = []
        for k in 0..<near.count where try prepared.covers(x: fx[k], y: fy[k]) {
            var nearest = Double.infinity
            for j in 0..<x.count {
                let dx = x[j] - fx[k]
                let dy = y[j] - fy[k]
                nearest = min(nearest, dx * dx + dy * dy)
            }
            let radius = min(margin, nearest.squareRoot() / 2)
            guard radius > 0 else { continue }
            discs.append(try geos.multiPoint(x: [fx[k]], y: [fy[k]]).buffer(radius, quadrantSegments: 4))
        }
        return discs.isEmpty ? nil : try geos.unionAll(discs)
    }

    /// A planar polygonal geometry back in WGS84, part by part and ring by ring, longitudes
    /// continuous around `reference` (set from the first vertex when nil) before any planar
    /// operation in degrees.
    static func lonLat(
        _ planar: GEOSGeometry, plane: PROJTransform, reference: inout Double?, region index: Int, geos: GEOSContext
    ) throws -> GEOSGeometry {
        var lonLatParts: [GEOSGeometry] = []
        for piece in try planar.polygons() {
            var lonLatRings: [(x: [Double], y: [Double])] = []
            for var (rx, ry) in try piece.rings() {
                let failed = try plane.transform(x: &rx, y: &ry, inverse: true)
                guard failed.isEmpty else {
                    throw GEOSError(
                        message: "region \(index + 1): \(failed.count) polygon vertices could not be transformed "
                            + "back to WGS84")
                }
                let ref = reference ?? rx.first ?? 0
                reference = ref
                for i in 0..<rx.count { rx[i] = ref + normalizeLongitude(rx[i] - ref) }
                lonLatRings.append((rx, ry))
            }
            var part = try geos.polygon(rings: lonLatRings)
            if !part.isValid { part = try part.makeValid().polygonalParts() }
            if !part.isEmpty { lonLatParts.append(part) }
        }
        return try geos.unionAll(lonLatParts).polygonalParts()
    }

    /// The spacing the drawing rules count in: the region's, at least a quarter of `min_extent_m`
    /// (POIs stacked at one address have no spacing of their own).
    func drawingSpacing(_ region: RegionTable.Region) -> Double { max(region.spacing, options.minExtent / 4) }

    /// The margin of a region whose members lie at `x`, `y` in the plane when `margin_m` is not
    /// given (rule 3): at least a quarter of `min_extent_m`.
    func automaticMargin(region: RegionTable.Region, x: [Double], y: [Double]) -> Double {
        let bySpacing = options.marginSpacing * region.spacing
        var margin = max(bySpacing, options.minExtent / 4)
        if options.marginRule == .support, let gap = Self.supportGap(x: x, y: y) {
            margin = max(margin, min(gap, drawingSpacing(region)))
        }
        if region.level > 0, region.bandFloor > 0 {
            // At most one spacing, as the support margin: a clump far denser than its band (a
            // hospital's heliports) is not grown across the empty ground around it.
            let half = options.childMarginFloor * 1000 / region.bandFloor.squareRoot()
            margin = max(margin, min(half, drawingSpacing(region)))
        }
        return margin
    }

    /// How far the ground the points were drawn from reaches beyond their convex hull, metres.
    ///
    /// The convex hull of n points drawn evenly from a convex piece of ground misses, on average,
    /// the share E[V]/n of it (Efron's identity, V the hull's corners): the ground is about the
    /// hull's area A times n / (n − V) (Ripley and Rasson's estimate of a convex support). That
    /// missing A · V / (n − V) is laid around the hull as a band of width g (P g + π g² of it, P the
    /// hull's perimeter). Twelve cafés across a square reach further beyond their hull than a
    /// hundred do. Distinct locations only; nil below four of them or when they are collinear.
    /// When every location is a corner (n = V) the estimate has no finite value: n − V is taken as
    /// 1, a wide band that ``automaticMargin(region:x:y:)`` caps at one spacing.
    static func supportGap(x: [Double], y: [Double]) -> Double? {
        let hull = ConvexHull2D(x: x, y: y)
        let (n, v) = (hull.locations, hull.count)
        guard n >= 4, v >= 3 else { return nil }
        let (area, perimeter) = (hull.area, hull.perimeter)
        let missed = area * Double(v) / Double(max(1, n - v))
        return (-perimeter + (perimeter * perimeter + 4 * Double.pi * missed).squareRoot()) / (2 * Double.pi)
    }

    /// The region's skeleton in the plane (rule 2): its POIs, edges and triangles; or the convex
    /// (or concave) hull of its POIs for a region without edges or with a concave hull asked for.
    func grown(
        _ region: RegionTable.Region, members: [UInt32], x: [Double], y: [Double], margin: Double, geos: GEOSContext
    ) throws -> GEOSGeometry {
        // Four segments per quarter circle: the margin is a few tens of metres, where eight drew
        // corners no map shows and doubled the cost of growing a district of thousands of POIs.
        func buffered(_ g: GEOSGeometry) throws -> GEOSGeometry {
            margin > 0 ? try g.buffer(margin, quadrantSegments: 4) : g
        }
        if options.concave || region.edges.isEmpty {
            let points = try geos.multiPoint(x: x, y: y)
            return try buffered(
                options.concave ? points.concaveHull(ratio: options.concaveRatio) : points.convexHull())
        }
        var position: [UInt32: Int] = [:]
        for (p, v) in members.enumerated() { position[v] = p }
        let spacing = drawingSpacing(region)
        // Edges up to four spacings long are drawn (every point of them is within two spacings
        // of a member); a longer edge still joins the region (it is one street, one district) but
        // is not drawn across its gap: the region becomes parts rather than spanning empty ground.
        let longest = options.edgeSpacing * spacing
        var neighbours = [[Int]](repeating: [], count: members.count)
        var drawn: [(Int, Int)] = []
        for (a, b) in region.edges {
            guard let pa = position[a], let pb = position[b], pa != pb else { continue }
            neighbours[pa].append(pb)
            neighbours[pb].append(pa)
            let dx = x[pa] - x[pb]
            let dy = y[pa] - y[pb]
            let l2 = dx * dx + dy * dy
            if l2 > 0 && l2 <= longest * longest { drawn.append((min(pa, pb), max(pa, pb))) }
        }
        // Triangles: three mutually joined members (each once, a < b < c) whose circumcircle is
        // at most twice the region's spacing across: every point of such a triangle is within
        // two spacings of a member. Larger ones stay open — the gap between a district's blocks,
        // a square, a park — and only their edges are drawn.
        let limit = options.triangleSpacing * spacing
        // Members at one location are one corner: a triangle is kept once per three locations.
        var location = [Int](repeating: 0, count: members.count)
        var firstAt: [SIMD2<Double>: Int] = [:]
        for p in 0..<members.count {
            let key = SIMD2(x[p], y[p])
            if let first = firstAt[key] {
                location[p] = first
            } else {
                firstAt[key] = p
                location[p] = p
            }
        }
        var corners: [(Int, Int, Int)] = []
        var seenCorners = Set<SIMD3<Int>>()
        var inTriangle = Set<Int>()
        var covered = [Bool](repeating: false, count: members.count)
        for a in 0..<members.count {
            let na = Set(neighbours[a])
            for b in neighbours[a] where b > a {
                for c in neighbours[b] where c > b && na.contains(c) {
                    let r2 = Self.circumradius2(x[a], y[a], x[b], y[b], x[c], y[c])
                    guard r2 <= limit * limit else { continue }
                    let ring = TriangleOutline.orientation(x[a], y[a], x[b], y[b], x[c], y[c])
                    guard ring != 0 else { continue }
                    let sorted = [location[a], location[b], location[c]].sorted()
                    if seenCorners.insert(SIMD3(sorted[0], sorted[1], sorted[2])).inserted {
                        corners.append((a, b, c))
                    }
                    for (u, v) in [(a, b), (b, c), (a, c)] { inTriangle.insert(u * members.count + v) }
                    covered[a] = true
                    covered[b] = true
                    covered[c] = true
                }
            }
        }
        // Each kind is grown once (GEOS buffers a union far faster than many pieces): the
        // triangles' union, the drawn edges no triangle holds, the members nothing else holds.
        var pieces: [GEOSGeometry] = []
        if !corners.isEmpty {
            let union = try Self.triangleUnion(corners, x: x, y: y, geos: geos)
            pieces.append(try buffered(Self.withoutHoles(smallerThan: Double.pi * margin * margin, union, geos: geos)))
        }
        var lines: [GEOSGeometry] = []
        for (a, b) in drawn where !inTriangle.contains(a * members.count + b) {
            lines.append(try geos.lineString(x: [x[a], x[b]], y: [y[a], y[b]]))
            covered[a] = true
            covered[b] = true
        }
        if !lines.isEmpty { pieces.append(try buffered(geos.collection(GEOS_MULTILINESTRING, of: lines))) }
        let alone = (0..<members.count).filter { !covered[$0] }
        if !alone.isEmpty {
            pieces.append(try buffered(geos.multiPoint(x: alone.map { x[$0] }, y: alone.map { y[$0] })))
        }
        return pieces.count == 1 ? pieces[0] : try geos.unionAll(pieces)
    }

    /// The union of the skeleton's triangles, which come from a planar graph (the keyword POIs'
    /// triangulation): they share sides with identical corners and overlap only where one holds
    /// another's corner inside it (three edges around a point of degree three also close a
    /// triangle). The others form a coverage whose outline is traced from their sides
    /// (``TriangleOutline``, no overlay: far faster than GEOS's cascaded union of thousands of
    /// triangles); it is accepted when GEOS finds it valid with the triangles' total area (an
    /// overlap would lose area), and the few nesting triangles are added by one overlay. Otherwise
    /// the cascaded union of all is used.
    static func triangleUnion(_ corners: [(Int, Int, Int)], x: [Double], y: [Double], geos: GEOSContext) throws
        -> GEOSGeometry
    {
        let nesting = Self.nesting(corners, x: x, y: y)
        var triangles: [GEOSGeometry] = []
        var faces: [(Int, Int, Int)] = []
        var outer: [GEOSGeometry] = []
        var faceArea = 0.0
        for (k, (a, b, c)) in corners.enumerated() {
            let tri = try geos.polygon(x: [x[a], x[b], x[c]], y: [y[a], y[b], y[c]])
            triangles.append(tri)
            if nesting[k] {
                outer.append(tri)
            } else {
                faceArea += tri.area
                faces.append((a, b, c))
            }
        }
        if let outline = TriangleOutline.polygons(faces, x: x, y: y) {
            let parts = try outline.map { rings in
                try geos.polygon(rings: rings.map { ring in (x: ring.map { x[$0] }, y: ring.map { y[$0] }) })
            }
            let union = parts.count == 1 ? parts[0] : try geos.collection(GEOS_MULTIPOLYGON, of: parts)
            if union.isValid && abs(union.area - faceArea) <= 1e-9 * faceArea {
                return outer.isEmpty ? union : try union.union(geos.unionAll(outer))
            }
        }
        return try geos.unionAll(triangles)
    }

    /// `polygonal` without the holes of less than `area` m²: a hole that small holds no disc of the
    /// margin's radius, so growing the polygon by the margin fills it whole — dropping it first
    /// changes nothing drawn, and spares GEOS's buffer the depth search over every hole, which grew
    /// with the square of their number (a city core of ten thousand POIs has thousands).
    static func withoutHoles(smallerThan area: Double, _ polygonal: GEOSGeometry, geos: GEOSContext) throws
        -> GEOSGeometry
    {
        guard area > 0 else { return polygonal }
        var parts: [GEOSGeometry] = []
        var dropped = false
        for part in try polygonal.polygons() {
            let rings = try part.rings()
            guard let exterior = rings.first else { continue }
            let holes = rings.dropFirst().filter { abs(Self.ringArea($0.x, $0.y)) >= area }
            if holes.count + 1 < rings.count { dropped = true }
            parts.append(try geos.polygon(rings: [exterior] + holes))
        }
        guard dropped else { return polygonal }
        return parts.count == 1 ? parts[0] : try geos.collection(GEOS_MULTIPOLYGON, of: parts)
    }

    /// Signed shoelace area of a closed ring.
    static func ringArea(_ x: [Double], _ y: [Double]) -> Double {
        guard x.count > 2 else { return 0 }
        var sum = 0.0
        for i in 0..<(x.count - 1) { sum += (x[i] - x[0]) * (y[i + 1] - y[0]) - (x[i + 1] - x[0]) * (y[i] - y[0]) }
        return sum / 2
    }

    /// Per triangle, whether it holds a corner of another strictly inside it (a grid of the
    /// corners, cells as large as the largest triangle's bounding box).
    static func nesting(_ corners: [(Int, Int, Int)], x: [Double], y: [Double]) -> [Bool] {
        var out = [Bool](repeating: false, count: corners.count)
        var points = Set<Int>()
        var side = 0.0
        for (a, b, c) in corners {
            points.formUnion([a, b, c])
            side = max(
                side, max(x[a], x[b], x[c]) - min(x[a], x[b], x[c]), max(y[a], y[b], y[c]) - min(y[a], y[b], y[c]))
        }
        guard side > 0 else { return out }
        let ordered = points.sorted()
        let x0 = ordered.map { x[$0] }.min() ?? 0
        let y0 = ordered.map { y[$0] }.min() ?? 0
        func cell(_ px: Double, _ py: Double) -> SIMD2<Int> {
            SIMD2(Int(((px - x0) / side).rounded(.down)), Int(((py - y0) / side).rounded(.down)))
        }
        var grid: [SIMD2<Int>: [Int]] = [:]
        for p in ordered { grid[cell(x[p], y[p]), default: []].append(p) }
        for (k, (a, b, c)) in corners.enumerated() {
            let lo = cell(min(x[a], x[b], x[c]), min(y[a], y[b], y[c]))
            let hi = cell(max(x[a], x[b], x[c]), max(y[a], y[b], y[c]))
            let turn = TriangleOutline.orientation(x[a], y[a], x[b], y[b], x[c], y[c])
            search: for gx in lo.x...hi.x {
                for gy in lo.y...hi.y {
                    for p in grid[SIMD2(gx, gy)] ?? [] where p != a && p != b && p != c {
                        // Strictly inside: on the inner side of all three edges.
                        if TriangleOutline.orientation(x[a], y[a], x[b], y[b], x[p], y[p]) == turn
                            && TriangleOutline.orientation(x[b], y[b], x[c], y[c], x[p], y[p]) == turn
                            && TriangleOutline.orientation(x[c], y[c], x[a], y[a], x[p], y[p]) == turn
                        {
                            out[k] = true
                            break search
                        }
                    }
                }
            }
        }
        return out
    }

    /// Squared circumradius of a triangle (infinity when degenerate).
    static func circumradius2(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
        -> Double
    {
        let dx = bx - ax
        let dy = by - ay
        let ex = cx - ax
        let ey = cy - ay
        let bl = dx * dx + dy * dy
        let cl = ex * ex + ey * ey
        let d = dx * ey - dy * ex
        guard d != 0 else { return .infinity }
        let ux = (ey * bl - dy * cl) / (2 * d)
        let uy = (dx * cl - ex * bl) / (2 * d)
        return ux * ux + uy * uy
    }

    /// The written parts of a lon/lat polygon: rings rounded and oriented, split at the antimeridian.
    static func written(_ polygon: GEOSGeometry, geos: GEOSContext) throws -> [[GeoJSONWriter.Ring]] {
        let rings = try polygon.rings()
        let lo = rings[0].x.min() ?? 0
        let hi = rings[0].x.max() ?? 0
        if lo >= -180 && hi <= 180 {
            guard let exterior = GeoJSONWriter.normalizedRing(lon: rings[0].x, lat: rings[0].y) else { return [] }
            let holes = rings.dropFirst().compactMap { GeoJSONWriter.normalizedRing(lon: $0.x, lat: $0.y, hole: true) }
            return [[exterior] + holes]
        }
        return try splitAtAntimeridian(lon: rings[0].x, lat: rings[0].y, geos: geos).map { [$0] }
    }

    /// `lon` shifted by a full turn onto the side of the antimeridian where `box` lies, when the
    /// box runs on past ±180° (a polygon crossing the antimeridian has continuous longitudes until
    /// it is written): a member at −179.5° of a polygon from 179° to 180.5° is at 180.5° in it.
    static func continuous(_ lon: Double, with box: GEOSEnvelope) -> Double {
        if box.maxX > 180 && lon < box.minX { return lon + 360 }
        if box.minX < -180 && lon > box.maxX { return lon - 360 }
        return lon
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
