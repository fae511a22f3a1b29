/// One attribute value read from or written to a feature.
public enum FieldValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case real(Double)
    case null

    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .null: return "null"
        }
    }
}
