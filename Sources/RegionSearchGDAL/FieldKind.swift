import CGDAL

/// The attribute types written (and the classes values are read as).
public enum FieldKind: Sendable, Equatable {
    case string
    case integer64
    case real

    var ogrType: OGRFieldType {
        switch self {
        case .string: return OFTString
        case .integer64: return OFTInteger64
        case .real: return OFTReal
        }
    }
}
