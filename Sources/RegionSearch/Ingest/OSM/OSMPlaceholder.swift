// Temporary stand-ins for the OSM readers, which are written on another branch. They let the
// ingest driver compile and are deleted when that branch is merged.

/// Options of the OSM readers (placeholder).
public struct OSMOptions {
    public var poiKeys: [String]
    public var keywordKeys: [String]
    public var nameKey: String

    public init() {
        poiKeys = []
        keywordKeys = []
        nameKey = "name"
    }
}

/// OSM PBF reader (placeholder: always throws).
public final class OSMPBFReader: RecordSource {
    public init(path: String, options: OSMOptions) throws {
        throw InputError.unsupported(path: path, reason: "OSM PBF input is not available in this build")
    }

    public func next() throws -> ReadResult? { nil }
    public var bytesRead: UInt64 { 0 }
}

/// OSM XML reader (placeholder: always throws).
public final class OSMXMLReader: RecordSource {
    public init(reader: ByteReader, options: OSMOptions) throws {
        throw InputError.unsupported(path: reader.path, reason: "OSM XML input is not available in this build")
    }

    public func next() throws -> ReadResult? { nil }
    public var bytesRead: UInt64 { 0 }
}
