import CGDAL

/// A fixed, typed schema for one output layer.
public struct LayerSchema: Sendable {
    public struct Field: Sendable {
        public var name: String
        public var kind: FieldKind
        /// 0 = the driver's default (Shapefile: String 80, Real 24.15, Integer64 18).
        public var width: Int

        public init(_ name: String, _ kind: FieldKind, width: Int = 0) {
            self.name = name
            self.kind = kind
            self.width = width
        }
    }

    public var name: String
    public var geometry: GeometryKind
    public var fields: [Field]

    public init(name: String, geometry: GeometryKind, fields: [Field]) {
        self.name = name
        self.geometry = geometry
        self.fields = fields
    }
}

/// The one geometry type declared on an output layer.
public enum GeometryKind: Sendable, Equatable {
    case point
    case multiPolygon
    case none

    var ogrType: OGRwkbGeometryType {
        switch self {
        case .point: return wkbPoint
        case .multiPolygon: return wkbMultiPolygon
        case .none: return wkbNone
        }
    }
}
