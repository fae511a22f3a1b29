/// The `OSMHeader` blob of a PBF file:
/// `HeaderBlock { optional HeaderBBox bbox = 1; repeated string required_features = 4;
/// repeated string optional_features = 5; optional string writingprogram = 16; optional string source = 17; … }`
struct PBFHeaderBlock {
    /// Features a reader must understand to read the file correctly.
    static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    var requiredFeatures: [String] = []
    var optionalFeatures: [String] = []
    var writingProgram = ""

    init(_ bytes: UnsafeRawBufferPointer) throws(ProtobufError) {
        var cursor = ProtobufCursor(bytes)
        while !cursor.isAtEnd {
            let (field, wire) = try cursor.fieldKey()
            switch field {
            case 4, 5, 16:
                try cursor.expect(.lengthDelimited, wire, field: field, in: "HeaderBlock")
                let raw = try cursor.bytes()
                let text = String(decoding: raw, as: UTF8.self)
                if field == 4 {
                    requiredFeatures.append(text)
                } else if field == 5 {
                    optionalFeatures.append(text)
                } else {
                    writingProgram = text
                }
            default:
                try cursor.skip(wire)
            }
        }
    }

    /// Required features this reader does not implement (e.g. `HistoricalInformation`), in file order.
    var unsupportedFeatures: [String] {
        requiredFeatures.filter { !PBFHeaderBlock.supportedFeatures.contains($0) }
    }
}
