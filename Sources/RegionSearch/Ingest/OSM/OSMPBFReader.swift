/// Reads POIs from an OpenStreetMap PBF file (https://wiki.openstreetmap.org/wiki/PBF_Format).
///
/// Which nodes and ways are POIs, and how their names and keywords are read, is described in
/// ``OSMOptions``; the point chosen for a way in ``OSMWayGeometry``.
///
/// Records come in file order: first every POI node, as the blocks are read, then every POI way.
/// Each record's `line` is the element's 1-based ordinal among all elements of the file (nodes,
/// ways and relations, in file order) and its `byteOffset` is the file offset of the blob that
/// holds it.
///
/// Memory stays bounded by the POIs, not the file: the first pass decodes each block once,
/// yielding POI nodes and keeping only POI ways (tags and node refs); the second pass re-reads
/// just the blocks whose node-id range contains a node those ways need, and keeps only those
/// nodes' coordinates. Files whose ways carry their own node locations (`LocationsOnWays`, as
/// written by `osmium add-locations-to-ways`) need no second pass.
///
/// Supported: raw and zlib-compressed blobs, dense and plain nodes, the required features
/// `OsmSchema-V0.6` and `DenseNodes`. Anything else that a file declares as required (e.g.
/// `HistoricalInformation`) or a blob compressed with LZMA, LZ4 or ZSTD stops the read with an
/// ``InputError`` naming the feature. Damaged framing, zlib data or blocks are ``InputError``s
/// naming the byte offset of the blob.
public final class OSMPBFReader: RecordSource {
    public let path: String
    public let options: OSMOptions
    /// The program that wrote the file (from its header), e.g. `osmium/1.15.0`.
    public private(set) var writingProgram = ""

    private let file: PBFBlobFile
    private var state: PBFScanState
    private var nextOffset: UInt64 = 0
    private var outputIndex = 0
    private enum Phase {
        case scanning
        case ways(next: Int)
        case finished
    }
    private var phase = Phase.scanning
    /// Blobs that hold nodes, with their node id range, for the second pass.
    private var nodeBlobs: [(offset: UInt64, minId: Int64, maxId: Int64)] = []

    /// Elements seen so far; complete once ``next()`` has returned nil.
    public var counts: OSMElementCounts { state.counts }

    /// Bytes of the file consumed by the main (first) pass; equals the file size at the end.
    public var bytesRead: UInt64 { nextOffset }

    /// Opens the file and checks its header (so a file that is not OSM PBF, or needs features
    /// this reader lacks, fails here).
    public init(path: String, options: OSMOptions) throws {
        self.path = path
        self.options = options
        file = try PBFBlobFile(path: path)
        state = PBFScanState(rules: OSMTagRules(options: options))
        guard let header = try file.blob(at: 0) else {
            throw InputError.unsupported(path: path, reason: "not an OSM PBF file: the file is empty")
        }
        try checkHeader(header)
        nextOffset = header.nextOffset
    }

    private func checkHeader(_ blob: PBFBlob) throws {
        let header = try blob.data.withUnsafeBytes { raw in
            do { return try PBFHeaderBlock(raw) } catch { throw file.damaged(blob.offset, "header block: \(error)") }
        }
        let unsupported = header.unsupportedFeatures
        guard unsupported.isEmpty else {
            let list = unsupported.map { "\"\($0)\"" }.joined(separator: ", ")
            let hint = unsupported.contains("HistoricalInformation")
                ? " (a history file; take a snapshot first, e.g. `osmium time-filter`)" : ""
            throw InputError.unsupported(
                path: path,
                reason: "the OSM PBF file requires the feature\(unsupported.count == 1 ? "" : "s") \(list), which this reader does not support\(hint); supported: OsmSchema-V0.6, DenseNodes")
        }
        if writingProgram.isEmpty { writingProgram = header.writingProgram }
    }

    public func next() throws -> ReadResult? {
        while true {
            if outputIndex < state.output.count {
                outputIndex += 1
                return state.output[outputIndex - 1]
            }
            switch phase {
            case .scanning:
                guard let blob = try file.blob(at: nextOffset) else {
                    try gatherWayNodes()
                    phase = .ways(next: 0)
                    continue
                }
                nextOffset = blob.nextOffset
                state.output.removeAll(keepingCapacity: true)
                outputIndex = 0
                switch blob.kind {
                case .header: try checkHeader(blob)  // concatenated files repeat the header
                case .data: try scan(blob)
                case .other: continue
                }
            case let .ways(index):
                guard index < state.pending.ways.count else {
                    phase = .finished
                    return nil
                }
                phase = .ways(next: index + 1)
                let result = state.pending.result(index)
                if case .rejected = result { state.counts.rejectedWays += 1 }
                return result
            case .finished:
                return nil
            }
        }
    }

    /// First pass over one data blob.
    private func scan(_ blob: PBFBlob) throws {
        state.blobOffset = blob.offset
        state.blockNodes = 0
        state.blockMinNode = .max
        state.blockMaxNode = .min
        try blob.data.withUnsafeBytes { raw in
            do { try PBFPrimitiveBlock(raw).scan(&state) } catch { throw file.damaged(blob.offset, "data block: \(error)") }
        }
        if state.blockNodes > 0 {
            nodeBlobs.append((blob.offset, state.blockMinNode, state.blockMaxNode))
        }
    }

    /// Second pass: coordinates of the nodes that POI ways reference.
    private func gatherWayNodes() throws {
        state.pending.prepareLookup()
        guard state.pending.needsNodes else { return }
        for entry in nodeBlobs where state.pending.needsAny(in: entry.minId, entry.maxId) {
            guard let blob = try file.blob(at: entry.offset), blob.kind == .data else {
                throw file.damaged(entry.offset, "the data block read in the first pass is gone (file changed while reading?)")
            }
            try blob.data.withUnsafeBytes { raw in
                do { try PBFPrimitiveBlock(raw).gather(&state.pending) } catch {
                    throw file.damaged(blob.offset, "data block: \(error)")
                }
            }
        }
    }
}
