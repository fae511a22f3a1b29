/// Tells the format of an input from its first bytes (after gzip decompression), for
/// `format: auto`, and refuses what no reader takes with a message that names it:
/// - OSM PBF: a 4-byte big-endian header length whose first three bytes are zero, then the
///   BlobHeader field `type` = "OSMHeader" (`0A 09 "OSMHeader"`);
/// - GDAL/OGR (`ogr`): GeoPackage or other SQLite databases, FlatGeobuf, Shapefile `.shp`, zip
///   archives (`.shp.zip`, `.kmz`), KML, GPX, GML, MapInfo tables, and directories (a folder of
///   Shapefiles, a FileGDB), by their magic bytes (``FormatSniffer``);
/// - GeoJSON (collection, feature, sequence or newline-delimited): the first byte after an
///   optional UTF-8 byte-order mark and white space is `{`, `[` or RS (0x1E);
/// - OSM XML: XML with an `<osm` element (other XML that is not KML, GPX or GML too, so that the
///   OSM reader names the problem);
/// - refused: bzip2, xz and zstd compression, Parquet, UTF-16 and UTF-32 text, and other binary
///   data — never read as delimited text;
/// - anything else is delimited text (the delimiter is sniffed by ``DelimitedReader``).
public enum InputFormatDetector {
    /// How many leading bytes ``detect(_:path:)`` needs at most.
    static let prefixLength = 4096

    static func detect(_ prefix: [UInt8], path: String) throws(InputError) -> InputSpec.Format {
        let sniffed = FormatSniffer.sniff(prefix)
        switch sniffed {
        case .osmPBF: return .osmPBF
        case .geoPackage, .sqlite, .flatGeobuf, .shapefileMain, .zip, .kml, .gpx, .gml, .mapInfo: return .ogr
        case .osmXML, .xml: return .osmXML
        case .geoJSON, .geoJSONSeq: return .geojson
        default: break
        }
        try refuse(sniffed, path: path)
        var i = 0
        if prefix.count >= 3, prefix[0] == 0xEF, prefix[1] == 0xBB, prefix[2] == 0xBF { i = 3 }
        while i < prefix.count, prefix[i] == 0x20 || prefix[i] == 0x09 || prefix[i] == 0x0A || prefix[i] == 0x0D {
            i += 1
        }
        guard i < prefix.count else { return .csv }
        switch prefix[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), 0x1E: return .geojson
        case UInt8(ascii: "n") where prefix.count < prefixLength && isJSONNull(prefix[i...]):
            // A whole file that is the JSON literal null (an export that found nothing) is JSON,
            // rejected by the GeoJSON reader, not a one-column CSV without rows.
            return .geojson
        default: return .csv
        }
    }

    /// Throws for input no reader can take (compressed otherwise than with gzip, Parquet, UTF-16/32
    /// text, unknown binary data), naming what it is and what to do.
    static func refuse(_ sniffed: SniffedFormat, path: String) throws(InputError) {
        let what = FormatSniffer.describe(sniffed)
        switch sniffed {
        case .bzip2, .xz, .zstd:
            throw .unsupported(
                path: path,
                reason:
                    "the file is \(what); decompress it first, or recompress it with gzip, which ingest reads directly")
        case .gzip:
            throw .unsupported(path: path, reason: "the file is gzip-compressed twice; decompress it once")
        case .parquet:
            throw .unsupported(
                path: path,
                reason: "the file is \(what), which this GDAL (3.6) cannot read; convert it to GeoPackage or CSV first")
        case .text(.utf16LE), .text(.utf16BE), .text(.utf32LE), .text(.utf32BE):
            throw .unsupported(
                path: path,
                reason: "the file is \(what); convert it to UTF-8 first, e.g. iconv -f UTF-16 -t UTF-8 IN > OUT")
        case .binary:
            throw .unsupported(
                path: path,
                reason: "the file is binary data of an unknown format, not delimited text; if GDAL can read it, "
                    + "give \"format\": \"ogr\" (ogrinfo FILE shows whether it can)")
        default:
            return
        }
    }

    /// Checks that an explicitly chosen text format is not given a binary file (a GeoPackage
    /// named in an input with `format: "csv"`).
    /// What a file of binary GIS data is (`a GeoPackage (SQLite) file`), by its first bytes; nil
    /// for text and anything else: for the commands that read GeoJSON only, to say so.
    public static func binaryGISFormat(_ prefix: [UInt8]) -> String? {
        let sniffed = FormatSniffer.sniff(prefix)
        switch sniffed {
        case .geoPackage, .sqlite, .flatGeobuf, .shapefileMain, .zip, .osmPBF, .parquet:
            return FormatSniffer.describe(sniffed)
        default: return nil
        }
    }

    static func checkText(_ prefix: [UInt8], format: InputSpec.Format, path: String) throws(InputError) {
        let sniffed = FormatSniffer.sniff(prefix)
        switch sniffed {
        case .geoPackage, .sqlite, .flatGeobuf, .shapefileMain, .zip, .osmPBF:
            let reader = format == .csv ? "delimited text" : format.rawValue
            throw .unsupported(
                path: path,
                reason: "the file is \(FormatSniffer.describe(sniffed)), not \(reader); give \"format\": \""
                    + (sniffed == .osmPBF ? "osm_pbf" : "ogr") + "\" or leave the format to detection")
        default:
            try refuse(sniffed, path: path)
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
        case .ogr: return .ogr
        }
    }
}
