import CGDAL

/// A geometry to write, in the layer's CRS (lon, lat for WGS 84).
public enum OutputGeometry: Sendable {
    case point(x: Double, y: Double)
    /// Polygons → rings (exterior first, then holes) → vertices. A ring's last vertex repeats its
    /// first (it is closed here when it does not).
    case multiPolygon([[(x: [Double], y: [Double])]])

    /// A new `OGRGeometryH` the caller owns (handed to `OGR_F_SetGeometryDirectly`).
    func makeOGRGeometry(_ errors: GDALErrorCollector) throws(GDALError) -> OGRGeometryH {
        switch self {
        case .point(let x, let y):
            guard let g = OGR_G_CreateGeometry(wkbPoint) else { throw errors.failure("create point") }
            OGR_G_SetPoint_2D(g, 0, x, y)
            return g
        case .multiPolygon(let polygons):
            guard let mp = OGR_G_CreateGeometry(wkbMultiPolygon) else {
                throw errors.failure("create multipolygon")
            }
            for rings in polygons {
                let polygon: OGRGeometryH
                do {
                    polygon = try Self.polygon(rings, errors)
                } catch {
                    OGR_G_DestroyGeometry(mp)
                    throw error
                }
                let rc = OGR_G_AddGeometryDirectly(mp, polygon)
                if rc != OGRERR_NONE {
                    OGR_G_DestroyGeometry(mp)
                    throw errors.failure("add polygon to multipolygon", code: rc)
                }
            }
            return mp
        }
    }

    private static func polygon(_ rings: [(x: [Double], y: [Double])], _ errors: GDALErrorCollector)
        throws(GDALError) -> OGRGeometryH
    {
        guard let polygon = OGR_G_CreateGeometry(wkbPolygon) else { throw errors.failure("create polygon") }
        for (xs, ys) in rings {
            guard xs.count >= 3, xs.count == ys.count, let ring = OGR_G_CreateGeometry(wkbLinearRing) else {
                OGR_G_DestroyGeometry(polygon)
                throw .invalidArgument("a polygon ring needs at least 3 vertices, got \(xs.count)")
            }
            var x = xs
            var y = ys
            if x.first != x.last || y.first != y.last {
                x.append(x[0])
                y.append(y[0])
            }
            let n = Int32(x.count)
            x.withUnsafeMutableBytes { xb in
                y.withUnsafeMutableBytes { yb in
                    OGR_G_SetPoints(
                        ring, n, xb.baseAddress, Int32(MemoryLayout<Double>.stride), yb.baseAddress,
                        Int32(MemoryLayout<Double>.stride), nil, 0)
                }
            }
            let rc = OGR_G_AddGeometryDirectly(polygon, ring)
            if rc != OGRERR_NONE {
                OGR_G_DestroyGeometry(polygon)
                throw errors.failure("add ring", code: rc)
            }
        }
        return polygon
    }
}

/// One feature to write with ``GDALLayer/write(_:)``.
public struct OutputFeature: Sendable {
    public var geometry: OutputGeometry?
    /// One value per schema field, in schema order.
    public var values: [FieldValue]
    /// An OGR feature style string, e.g. `BRUSH(fc:#ff000080);PEN(c:#000000,w:2px)`; used by
    /// LIBKML (it becomes a KML `<Style>`), ignored by most other drivers.
    public var style: String?

    public init(geometry: OutputGeometry?, values: [FieldValue], style: String? = nil) {
        self.geometry = geometry
        self.values = values
        self.style = style
    }
}
