/// A field of a layer as its driver reports it.
public struct FieldDefinition: Sendable, Equatable {
    public var name: String
    /// `OGR_GetFieldTypeName`, e.g. "String", "Integer", "Integer64", "Real", "Date".
    public var typeName: String
    public var width: Int
    public var precision: Int
    /// How values are read: integers for Integer/Integer64, reals for Real, text for the rest.
    public var kind: FieldKind
}
