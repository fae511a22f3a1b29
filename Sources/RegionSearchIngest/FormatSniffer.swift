/// What the first bytes of an input say it is: for choosing a reader before opening, and for
/// error messages ("is a GeoPackage (SQLite) file, not delimited text").
enum SniffedFormat: Sendable, Equatable {
    case geoPackage
    /// SQLite but not GeoPackage (e.g. SpatiaLite, MBTiles).
    case sqlite
    case flatGeobuf
    case zip
    case gzip
    case bzip2
    case xz
    case zstd
    case osmPBF
    case shapefileMain
    case parquet
    case geoJSON
    /// RFC 8142 (RS-prefixed) or newline-delimited GeoJSON.
    case geoJSONSeq
    case kml
    case gpx
    case gml
    case osmXML
    case xml
    /// MapInfo TAB or MIF (text starting with `!table` or `Version`).
    case mapInfo
    /// Bytes that are not text (NUL or other control bytes) and match no known format.
    case binary
    /// Text that is none of the above (CSV/TSV or unknown), with its encoding from the BOM.
    case text(TextEncoding)
    case unknown
}

/// The encoding a byte-order mark declares (`.utf8` when there is no BOM).
enum TextEncoding: Sendable, Equatable {
    case utf8
    case utf8BOM
    case utf16LE
    case utf16BE
    case utf32LE
    case utf32BE
}

/// Magic-number sniffing. Give it at least the first 100 bytes (GeoPackage's application_id sits
/// at offset 68); 4 KiB lets the text formats be told apart.
///
/// | format | bytes |
/// |---|---|
/// | SQLite 3 (GPKG, SpatiaLite) | `53 51 4C 69 74 65 20 66 6F 72 6D 61 74 20 33 00` ("SQLite format 3\0") at 0 |
/// | GeoPackage | SQLite header + application_id (BE u32 at 68) "GPKG" (1.2+), "GP10"/"GP11" (1.0/1.1) |
/// | FlatGeobuf | `66 67 62 03 66 67 62 xx` ("fgb" 3 "fgb" patch) |
/// | zip (.zip, .shp.zip, .kmz, .xlsx) | `50 4B 03 04`; empty archive `50 4B 05 06`; spanned `50 4B 07 08` |
/// | gzip | `1F 8B` (then `08` = deflate) |
/// | bzip2 | `42 5A 68` "BZh" + block size `31`…`39` |
/// | xz | `FD 37 7A 58 5A 00` |
/// | zstd | `28 B5 2F FD` |
/// | OSM PBF | u32 BE BlobHeader length, then `0A 09` "OSMHeader" (bytes 4…14) |
/// | Shapefile .shp/.shx | `00 00 27 0A` (file code 9994 BE), version 1000 LE `E8 03 00 00` at 28 |
/// | Parquet (GeoParquet) | `50 41 52 31` "PAR1" |
/// | UTF-8 BOM | `EF BB BF` |
/// | UTF-16 LE / BE BOM | `FF FE` / `FE FF` |
/// | UTF-32 LE / BE BOM | `FF FE 00 00` / `00 00 FE FF` (test before UTF-16 LE) |
/// | GeoJSON text sequence | `1E` (RS) before each record |
enum FormatSniffer {
    static func sniff(_ bytes: some Collection<UInt8>) -> SniffedFormat {
        let b = Array(bytes.prefix(4096))
        func has(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
        }
        if has(Array("SQLite format 3".utf8) + [0]) {
            let gpkgIDs: [[UInt8]] = [Array("GPKG".utf8), Array("GP10".utf8), Array("GP11".utf8)]
            return gpkgIDs.contains { has($0, at: 68) } ? .geoPackage : .sqlite
        }
        if has([0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62]) { return .flatGeobuf }
        if has([0x50, 0x4B, 0x03, 0x04]) || has([0x50, 0x4B, 0x05, 0x06]) || has([0x50, 0x4B, 0x07, 0x08]) {
            return .zip
        }
        if has([0x1F, 0x8B]) { return .gzip }
        if has([0x42, 0x5A, 0x68]), b.count > 3, (0x31...0x39).contains(b[3]) { return .bzip2 }
        if has([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if has([0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        if has([0x0A, 0x09] + Array("OSMHeader".utf8), at: 4) { return .osmPBF }
        if has([0x00, 0x00, 0x27, 0x0A]), has([0xE8, 0x03, 0x00, 0x00], at: 28) { return .shapefileMain }
        if has(Array("PAR1".utf8)) { return .parquet }
        let encoding: TextEncoding
        var start = 0
        if has([0xFF, 0xFE, 0x00, 0x00]) {
            encoding = .utf32LE
        } else if has([0x00, 0x00, 0xFE, 0xFF]) {
            encoding = .utf32BE
        } else if has([0xFF, 0xFE]) {
            encoding = .utf16LE
        } else if has([0xFE, 0xFF]) {
            encoding = .utf16BE
        } else if has([0xEF, 0xBB, 0xBF]) {
            encoding = .utf8BOM
            start = 3
        } else {
            encoding = .utf8
        }
        guard encoding == .utf8 || encoding == .utf8BOM else { return .text(encoding) }
        let body = b[start...]
        // Text has few control bytes besides tab, CR, LF, RS (GeoJSON sequences), FF, and few NULs:
        // one damaged record's NUL leaves a text file text (the reader rejects that record, naming
        // its line), where binary data and UTF-16 without a byte-order mark are full of them.
        let controls = body.filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x1E && $0 != 0x0C }
        let nuls = body.count(where: { $0 == 0 })
        if nuls * 100 > body.count || (controls.count >= 8 && controls.count * 100 > body.count) { return .binary }
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            return b.isEmpty ? .unknown : .text(encoding)
        }
        let text = String(decoding: body, as: UTF8.self)
        switch first {
        case 0x1E:
            return .geoJSONSeq
        case UInt8(ascii: "{"):
            // One object per line with more after the first line = newline-delimited GeoJSON.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            if lines.count > 1, lines[0].hasSuffix("}"), lines[1].trimmingPrefixWhitespace().hasPrefix("{") {
                return .geoJSONSeq
            }
            return text.contains("\"type\"") ? .geoJSON : .text(encoding)
        case UInt8(ascii: "["):
            return .text(encoding)
        case UInt8(ascii: "<"):
            if text.contains("<kml") { return .kml }
            if text.contains("<gpx") { return .gpx }
            if text.contains("<osm") { return .osmXML }
            if text.contains("http://www.opengis.net/gml") { return .gml }
            return .xml
        case UInt8(ascii: "!"), UInt8(ascii: "V"):
            let lower = text.prefix(16).lowercased()
            if lower.hasPrefix("!table") || (lower.hasPrefix("version") && text.contains("\nColumns")) {
                return .mapInfo
            }
            return .text(encoding)
        default:
            return .text(encoding)
        }
    }

    /// The format's name for messages ("a GeoPackage (SQLite) file").
    static func describe(_ f: SniffedFormat) -> String {
        switch f {
        case .geoPackage: return "a GeoPackage (SQLite) file"
        case .sqlite: return "an SQLite database"
        case .flatGeobuf: return "a FlatGeobuf file"
        case .zip: return "a zip archive"
        case .gzip: return "gzip-compressed data"
        case .bzip2: return "bzip2-compressed data"
        case .xz: return "xz-compressed data"
        case .zstd: return "zstd-compressed data"
        case .osmPBF: return "OSM PBF"
        case .shapefileMain: return "a Shapefile (.shp)"
        case .parquet: return "a Parquet file"
        case .geoJSON: return "GeoJSON"
        case .geoJSONSeq: return "a GeoJSON sequence"
        case .kml: return "KML"
        case .gpx: return "GPX"
        case .gml: return "GML"
        case .osmXML: return "OSM XML"
        case .xml: return "XML"
        case .mapInfo: return "a MapInfo table"
        case .binary: return "binary data"
        case .unknown: return "an empty file"
        case .text(let e):
            switch e {
            case .utf8, .utf8BOM: return "UTF-8 text"
            case .utf16LE: return "UTF-16 LE text (byte-order mark FF FE)"
            case .utf16BE: return "UTF-16 BE text (byte-order mark FE FF)"
            case .utf32LE: return "UTF-32 LE text (byte-order mark FF FE 00 00)"
            case .utf32BE: return "UTF-32 BE text (byte-order mark 00 00 FE FF)"
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingPrefixWhitespace() -> Substring { drop { $0 == " " || $0 == "\t" || $0 == "\r" } }
}
