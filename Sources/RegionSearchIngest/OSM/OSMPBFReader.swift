import RegionSearchCore

/// Reads POIs from an OpenStreetMap PBF file (https://wiki.openstreetmap.org/wiki/PBF_Format).
///
/// Which nodes and ways are POIs, and how their names and keywords are read, is described in
/// ``OSMOptions``; the point chosen for a way in ``OSMWayGeometry``.
///
/// Records come in file order: first every POI node, then every POI way. Each record's `line` is
/// the element's 1-based ordinal among all elements of the file (nodes, ways and relations, in
/// file order) and its `byteOffset` is the file offset of the blob that holds it.
///
/// How it reads, with memory bounded by the POIs rather than the file:
/// 1. The blob headers are indexed (offsets only, no decompression).
/// 2. **Tail pass:** blobs are decoded from the end backwards until the last blob that holds
///    nodes; the POI ways found there (tags and node refs) are kept, which tells which node ids
///    are needed.
/// 3. **Node pass:** the blobs up to that one are decoded forwards: POI nodes are yielded, and
///    the coordinates of the needed nodes (only those) are kept.
/// 4. Only if POI ways appear *before* some nodes (unsorted files) are the node blobs whose id
///    range matters decoded once more for those ways' nodes.
///
/// So in the usual sorted file every blob is decompressed once (the blob where nodes end,
/// twice). Files whose ways carry their own node locations (`LocationsOnWays`, as written by
/// `osmium add-locations-to-ways`) need no node coordinates at all. Batches of blobs are
/// decompressed and decoded on ``Parallel/threadCount`` threads and merged in file order, so the
/// output does not depend on the thread count. Besides the POIs, memory holds an index of the
/// blobs (about 40 bytes per blob of ~8,000 elements) and a few decompressed blobs at a time.
///
/// Supported: raw and zlib-compressed blobs, dense and plain nodes, the required features
/// `OsmSchema-V0.6` and `DenseNodes`. Anything else that a file declares as required (e.g.
/// `HistoricalInformation`) or a blob compressed with LZMA, LZ4 or ZSTD stops the read with an
/// ``InputError`` naming the feature. Damaged framing, zlib data or blocks are ``InputError``s
/// naming the byte offset of the blob.
final class OSMPBFReader: RecordSource {
    public let path: String
    public let options: OSMOptions
    /// The program that wrote the file (from its header), e.g. `osmium/1.15.0`.
    let writingProgram: String
    /// Elements seen so far; complete once ``next()`` has returned nil.
    public private(set) var counts = OSMElementCounts()
    /// Bytes of the file whose blobs have been decoded; equals the file size at the end.
    public var bytesRead: UInt64 { consumed }

    private let file: PBFBlobFile
    private let rules: OSMTagRules
    private var consumed: UInt64 = 0
    private var entries: [PBFBlobEntry] = []
    /// Index of the last blob holding nodes (0, the header, when there are none).
    private var boundary = 0
    /// Elements per blob, and the number of elements before each blob (ordinal base).
    private var elementCounts: [UInt64] = []
    private var lineBases: [UInt64] = []
    private var nextBase: UInt64 = 0
    /// POI ways of the tail (from the last node blob on), and those before it.
    private var tailWays = OSMPendingWays()
    private var lateWays = OSMPendingWays()
    /// Blobs with nodes (index, id range), for the extra pass of unsorted files.
    private var nodeBlobs: [(index: Int, minId: Int64, maxId: Int64)] = []
    private var queue: [ReadResult] = []
    private var queueIndex = 0
    /// Decompressed blobs from the tail pass that the node pass will decode again.
    private var cachedData: [Int: [UInt8]] = [:]
    /// An error met while decoding a batch, thrown once the records before it are out.
    private var deferredError: Error?

    private enum Phase {
        case start
        case nodes(next: Int)
        case lateWays(next: Int)
        case tailWays(next: Int)
        case finished
    }
    private var phase = Phase.start

    /// Opens the file and checks its header (so a file that is not OSM PBF, or needs features
    /// this reader lacks, fails here).
    public init(path: String, options: OSMOptions) throws {
        self.path = path
        self.options = options
        file = try PBFBlobFile(path: path)
        rules = OSMTagRules(options: options)
        guard let header = try file.blob(at: 0) else {
            throw InputError.unsupported(path: path, reason: "not an OSM PBF file: the file is empty")
        }
        writingProgram = try OSMPBFReader.checkHeader(header.data, offset: 0, file: file).writingProgram
    }

    @discardableResult
    private static func checkHeader(_ data: [UInt8], offset: UInt64, file: PBFBlobFile) throws -> PBFHeaderBlock {
        let header = try data.withUnsafeBytes { raw in
            do { return try PBFHeaderBlock(raw) } catch { throw file.damaged(offset, "header block: \(error)") }
        }
        let unsupported = header.unsupportedFeatures
        guard unsupported.isEmpty else {
            let list = unsupported.map { "\"\($0)\"" }.joined(separator: ", ")
            let hint =
                unsupported.contains("HistoricalInformation")
                ? " (a history file; take a snapshot first, e.g. `osmium time-filter`)" : ""
            throw InputError.unsupported(
                path: file.path,
                reason:
                    "the OSM PBF file requires the feature\(unsupported.count == 1 ? "" : "s") \(list), which this "
                    + "reader does not support\(hint); supported: OsmSchema-V0.6, DenseNodes"
            )
        }
        return header
    }

    public func next() throws -> ReadResult? {
        while true {
            if queueIndex < queue.count {
                queueIndex += 1
                return queue[queueIndex - 1]
            }
            if let error = deferredError {
                deferredError = nil
                phase = .finished
                throw error
            }
            switch phase {
            case .start:
                phase = .finished  // should anything below throw
                try indexBlobs()
                try readTail()
                phase = .nodes(next: 1)
            case .nodes(let index):
                guard index <= boundary else {
                    phase = .finished
                    try finishNodes()
                    phase = .lateWays(next: 0)
                    continue
                }
                let end = min(boundary, index + 2 * max(1, Parallel.threadCount) - 1)
                queue.removeAll(keepingCapacity: true)
                queueIndex = 0
                readNodes(index...end)
                phase = .nodes(next: end + 1)
            case .lateWays(let index):
                guard index < lateWays.ways.count else {
                    phase = .tailWays(next: 0)
                    continue
                }
                phase = .lateWays(next: index + 1)
                return emit(lateWays, index)
            case .tailWays(let index):
                guard index < tailWays.ways.count else {
                    phase = .finished
                    return nil
                }
                phase = .tailWays(next: index + 1)
                return emit(tailWays, index)
            case .finished:
                return nil
            }
        }
    }

    private func emit(_ ways: OSMPendingWays, _ index: Int) -> ReadResult {
        let result = ways.result(index, lineBase: lineBases[ways.ways[index].blob])
        if case .rejected = result { counts.rejectedWays += 1 }
        return result
    }

    /// Step 1: the offsets of all blobs.
    private func indexBlobs() throws {
        var offset: UInt64 = 0
        while let entry = try file.entry(at: offset) {
            entries.append(entry)
            offset = entry.nextOffset
        }
        consumed = entries[0].nextOffset
        elementCounts = [UInt64](repeating: 0, count: entries.count)
        lineBases = [UInt64](repeating: 0, count: entries.count)
    }

    /// Decompresses and decodes blobs on the worker threads; one result per index, in order,
    /// with the decompressed data when `keepData`. Blobs in ``cachedData`` are not read again.
    private func decode(_ indices: [Int], pass: (Int) -> PBFBlockPass, lookup: OSMNodeLookup, keepData: Bool = false)
        -> [Result<(output: PBFBlockOutput, data: [UInt8]), Error>]
    {
        // Reading stays sequential (one file position at a time); the CPU work is parallel.
        var inputs: [Result<(data: [UInt8], decompressed: Bool), Error>] = indices.map { i in
            if let data = cachedData.removeValue(forKey: i) { return .success((data, true)) }
            return Result { (try file.payload(of: entries[i]), false) }
        }
        var results = [Result<(output: PBFBlockOutput, data: [UInt8]), Error>](
            repeating: .success((PBFBlockOutput(), [])), count: indices.count)
        let passes = indices.map(pass)
        results.withUnsafeMutableBufferPointer { out in
            inputs.withUnsafeMutableBufferPointer { input in
                Parallel.forEach(indices.count) { k in
                    let entry = entries[indices[k]]
                    out[k] = Result {
                        let (bytes, decompressed) = try input[k].get()
                        input[k] = .success(([], false))  // free the input early
                        if case .other = entry.kind { return (PBFBlockOutput(), []) }
                        let data = decompressed ? bytes : try file.decompress(bytes, of: entry)
                        if entry.kind == .header {
                            try OSMPBFReader.checkHeader(data, offset: entry.offset, file: file)
                            return (PBFBlockOutput(), [])
                        }
                        let output = try data.withUnsafeBytes { raw in
                            do {
                                return try PBFPrimitiveBlock(raw).decode(
                                    pass: passes[k], rules: rules, lookup: lookup, blob: indices[k],
                                    blobOffset: entry.offset)
                            } catch {
                                throw file.damaged(entry.offset, "data block: \(error)")
                            }
                        }
                        return (output, keepData ? data : [])
                    }
                }
            }
        }
        return results
    }

    private func size(_ index: Int) -> UInt64 { entries[index].nextOffset - entries[index].offset }

    /// Step 2: POI ways from the end of the file back to the last blob with nodes.
    private func readTail() throws {
        var collected: [(index: Int, output: PBFBlockOutput)] = []
        var index = entries.count - 1
        let batch = max(1, Parallel.threadCount)
        scan: while index >= 1 {
            let low = max(1, index - batch + 1)
            let indices = Array((low...index).reversed())
            let results = decode(indices, pass: { _ in .tail }, lookup: OSMNodeLookup(ids: []), keepData: true)
            for (k, i) in indices.enumerated() {
                let (output, _) = try results[k].get()
                collected.append((i, output))
                if output.nodes > 0 {
                    boundary = i
                    // The node pass needs this blob and any decoded before it: keep their data
                    // (at most one batch) instead of decompressing them again.
                    for (j, earlier) in indices.enumerated() where earlier <= i {
                        if case .success((_, let data)) = results[j], !data.isEmpty { cachedData[earlier] = data }
                    }
                    break scan
                }
                consumed += size(i)
            }
            index = low - 1
        }
        for (i, output) in collected.reversed() {
            tailWays.append(output.ways)
            counts.add(output.counts)
            elementCounts[i] = output.elements
        }
        tailWays.prepareLookup()
    }

    /// Step 3, one batch: POI nodes, needed coordinates, and POI ways before the tail.
    private func readNodes(_ range: ClosedRange<Int>) {
        let indices = Array(range)
        let results = decode(indices, pass: { .forward(collectWays: $0 < self.boundary) }, lookup: tailWays.lookup)
        for (k, i) in indices.enumerated() {
            let output: PBFBlockOutput
            switch results[k] {
            case .success(let value): output = value.output
            case .failure(let error):
                deferredError = error  // thrown by next() once the earlier blobs' records are out
                return
            }
            lineBases[i] = nextBase
            nextBase += output.elements
            elementCounts[i] = output.elements
            consumed += size(i)
            for result in output.results {
                switch result {
                case .record(var r):
                    r.line += lineBases[i]
                    queue.append(.record(r))
                case .rejected(var r):
                    r.line += lineBases[i]
                    queue.append(.rejected(r))
                }
            }
            for hit in output.hits { tailWays.setCoordinates(hit.index, lon: hit.lon, lat: hit.lat) }
            lateWays.append(output.ways)
            counts.add(output.counts)
            if output.nodes > 0 { nodeBlobs.append((i, output.minNode, output.maxNode)) }
        }
    }

    /// After the node pass: ordinal bases of the tail, and the nodes of ways that came before
    /// the tail (unsorted files).
    private func finishNodes() throws {
        for i in (boundary + 1)..<max(boundary + 1, entries.count) {
            lineBases[i] = nextBase
            nextBase += elementCounts[i]
        }
        queue.removeAll()
        queueIndex = 0
        lateWays.prepareLookup()
        guard lateWays.needsNodes else { return }
        let wanted = nodeBlobs.filter { lateWays.lookup.containsAny($0.minId, $0.maxId) }.map { $0.index }
        let batch = 2 * max(1, Parallel.threadCount)
        var start = 0
        while start < wanted.count {
            let indices = Array(wanted[start..<min(wanted.count, start + batch)])
            for result in decode(indices, pass: { _ in .gather }, lookup: lateWays.lookup) {
                for hit in try result.get().output.hits {
                    lateWays.setCoordinates(hit.index, lon: hit.lon, lat: hit.lat)
                }
            }
            start += batch
        }
    }
}
