import CGDAL
import RegionSearchCore

/// One feature read from a ``GDALLayer`` (owns its `OGRFeatureH`, destroyed in `deinit`).
public final class GDALFeature {
    let handle: OGRFeatureH
    private let kinds: [FieldKind]
    private let errors: GDALErrorCollector

    init(handle: OGRFeatureH, kinds: [FieldKind], errors: GDALErrorCollector) {
        self.handle = handle
        self.kinds = kinds
        self.errors = errors
    }

    deinit { OGR_F_Destroy(handle) }

    /// `OGR_F_GetFID` (-1 when the driver has none).
    public var fid: Int64 { OGR_F_GetFID(handle) }

    /// The value of field `index` (layer order): null when unset or null, integers for
    /// Integer/Integer64, reals for Real, the driver's text for every other type (dates, lists).
    public func value(at index: Int) -> FieldValue {
        let i = Int32(index)
        guard index < kinds.count, OGR_F_IsFieldSetAndNotNull(handle, i) != 0 else { return .null }
        switch kinds[index] {
        case .integer64: return .integer(OGR_F_GetFieldAsInteger64(handle, i))
        case .real: return .real(OGR_F_GetFieldAsDouble(handle, i))
        case .string: return .string(String(cString: OGR_F_GetFieldAsString(handle, i)))
        }
    }

    /// Every value, in layer order.
    public var values: [FieldValue] { (0..<kinds.count).map { value(at: $0) } }

    /// The flattened 2D geometry type name ("Point", "Multi Polygon", …); nil without geometry.
    public var geometryTypeName: String? {
        OGR_F_GetGeometryRef(handle).map {
            String(cString: OGRGeometryTypeToName(OGR_GT_Flatten(OGR_G_GetGeometryType($0))))
        }
    }

    /// The geometry, transformed by `transform` when one is given (to WGS 84 lon/lat by the
    /// readers): a point as its coordinates, anything else as a GeoJSON geometry object (curves
    /// approximated by line segments), so that every format shares one representative-point rule.
    public func geometry(transform: CoordinateTransformation?) -> ReadGeometry {
        guard let g = OGR_F_GetGeometryRef(handle) else { return .missing }
        guard OGR_G_IsEmpty(g) == 0 else { return .empty }
        if OGR_GT_Flatten(OGR_G_GetGeometryType(g)) == wkbPoint {
            let x = OGR_G_GetX(g, 0)
            let y = OGR_G_GetY(g, 0)
            guard let transform else { return .point(x: x, y: y) }
            guard let p = transform.transform(x: x, y: y) else {
                return .failed("cannot transform (\(x), \(y)) from \(transform.source.displayName) to WGS 84")
            }
            return .point(x: p.x, y: p.y)
        }
        let linear: OGRGeometryH? = errors.capture {
            OGR_G_HasCurveGeometry(g, 0) != 0 ? OGR_G_GetLinearGeometry(g, 0, nil) : OGR_G_Clone(g)
        }
        guard let copy = linear else { return .failed("cannot copy the geometry") }
        defer { OGR_G_DestroyGeometry(copy) }
        if let transform {
            let rc = errors.capture { OGR_G_Transform(copy, transform.handle) }
            _ = errors.takeFailures()
            if rc != OGRERR_NONE {
                return .failed("cannot transform the geometry from \(transform.source.displayName) to WGS 84")
            }
        }
        guard let json = Self.geoJSON(copy) else {
            return .failed("unsupported geometry type \(geometryTypeName ?? "?")")
        }
        return .geoJSON(json)
    }

    /// A GeoJSON geometry object for an OGR geometry (exact coordinates, 2D); nil for types
    /// GeoJSON has no equivalent for.
    static func geoJSON(_ g: OGRGeometryH) -> JSONValue? {
        func positions(_ line: OGRGeometryH) -> JSONValue {
            let n = Int(OGR_G_GetPointCount(line))
            var x = [Double](repeating: 0, count: n)
            var y = [Double](repeating: 0, count: n)
            if n > 0 {
                x.withUnsafeMutableBytes { xb in
                    y.withUnsafeMutableBytes { yb in
                        _ = OGR_G_GetPoints(
                            line, xb.baseAddress, Int32(MemoryLayout<Double>.stride), yb.baseAddress,
                            Int32(MemoryLayout<Double>.stride), nil, 0)
                    }
                }
            }
            return .array((0..<n).map { .array([.number(x[$0]), .number(y[$0])]) })
        }
        func members(_ g: OGRGeometryH) -> [OGRGeometryH] {
            (0..<OGR_G_GetGeometryCount(g)).compactMap { OGR_G_GetGeometryRef(g, $0) }
        }
        func rings(_ polygon: OGRGeometryH) -> JSONValue { .array(members(polygon).map(positions)) }
        func object(_ type: String, _ coordinates: JSONValue) -> JSONValue {
            .object([("type", .string(type)), ("coordinates", coordinates)])
        }
        switch OGR_GT_Flatten(OGR_G_GetGeometryType(g)) {
        case wkbPoint:
            guard OGR_G_IsEmpty(g) == 0 else { return object("Point", .array([])) }
            return object("Point", .array([.number(OGR_G_GetX(g, 0)), .number(OGR_G_GetY(g, 0))]))
        case wkbLineString, wkbLinearRing:
            return object("LineString", positions(g))
        case wkbPolygon, wkbTriangle:
            return object("Polygon", rings(g))
        case wkbMultiPoint:
            let points = members(g).filter { OGR_G_IsEmpty($0) == 0 }
            return object(
                "MultiPoint", .array(points.map { .array([.number(OGR_G_GetX($0, 0)), .number(OGR_G_GetY($0, 0))]) }))
        case wkbMultiLineString:
            return object("MultiLineString", .array(members(g).map(positions)))
        case wkbMultiPolygon, wkbPolyhedralSurface, wkbTIN:
            return object("MultiPolygon", .array(members(g).map(rings)))
        case wkbGeometryCollection:
            let parts = members(g).compactMap(geoJSON)
            return .object([("type", .string("GeometryCollection")), ("geometries", .array(parts))])
        default:
            return nil
        }
    }
}

/// A feature's geometry as ``GDALFeature/geometry(transform:)`` returns it.
public enum ReadGeometry: Equatable {
    /// The feature has no geometry.
    case missing
    /// The geometry is empty.
    case empty
    case point(x: Double, y: Double)
    /// Any other geometry, as a GeoJSON geometry object.
    case geoJSON(JSONValue)
    /// It could not be transformed or converted; the reason.
    case failed(String)
}
