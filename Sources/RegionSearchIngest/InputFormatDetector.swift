/// Tells the format of an input from its first bytes (after gzip decompression), for
/// `format: auto`:
/// - OSM PBF: a 4-byte big-endian header length whose first three bytes are zero, then the
///   BlobHeader field `type` = "OSMHeader" (`0A 09 "OSMHeader"`);
/// - GeoJSON (collection, feature, sequence or newline-delimited): the first byte after an
///   optional UTF-8 byte-order mark and white space is `{`, `[` or RS (0x1E);
/// - OSM XML: the text starts with `<?xml` or `<osm`;
/// - anything else is delimited text (the delimiter is sniffed by ``DelimitedReader``).
enum InputFormatDetector {
    /// How many leading bytes ``detect(_:)`` needs at most.
    static let prefixLength = 4096

    static func detect(_ prefix: [UInt8]) -> InputSpec.Format {
        let pbf: [UInt8] = [0x0A, 0x09] + Array("OSMHeader".utf8)
        if prefix.count >= 4 + pbf.count, prefix[0] == 0, prefix[1] == 0, prefix[2] == 0,
            Array(prefix[4..<(4 + pbf.count)]) == pbf
        {
            return .osmPBF
        }
        var i = 0
        if prefix.count >= 3, prefix[0] == 0xEF, prefix[1] == 0xBB, prefix[2] == 0xBF { i = 3 }
        while i < prefix.count, prefix[i] == 0x20 || prefix[i] == 0x09 || prefix[i] == 0x0A || prefix[i] == 0x0D {
            i += 1
        }
        guard i < prefix.count else { return .csv }
        switch prefix[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), 0x1E:
            return .geojson
        case UInt8(ascii: "n") where prefix.count < prefixLength && isJSONNull(prefix[i...]):
            // A whole file that is the JSON literal null (an export that found nothing) is JSON,
            // rejected by the GeoJSON reader, not a one-column CSV without rows.
            return .geojson
        case UInt8(ascii: "<"):
            let rest = prefix[i...]
            if rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<osm".utf8)) { return .osmXML }
            return .csv
        default:
            return .csv
        }
    }

    /// Whether `bytes` are `null` followed by white space only.
    private static func isJSONNull(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.starts(with: Array("null".utf8)) else { return false }
        return bytes.dropFirst(4).allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// The format family of a concrete format.
    static func family(of format: InputSpec.Format) -> InputSpec.Family {
        switch format {
        case .auto, .csv: return .delimited
        case .geojson: return .geojson
        case .osmPBF, .osmXML: return .osm
        }
    }
}
