import Foundation
import RegionSearchCore
import RegionSearchModel

/// The result of an ingest run.
public struct IngestResult {
    public var table: POITable
    public var perInput: [IngestCounts]
    public var total: IngestCounts
    /// Input bytes read (decompressed), per input.
    public var bytesRead: [UInt64]
    public var seconds: Double
    /// CPU seconds of the reading thread (read, parse, validate) and of the building thread
    /// (de-duplicate, keywords, table) when they ran apart (`--threads` ≥ 2); both sum the
    /// inputs. Wall time is about the larger one when two cores are free.
    public var readerCPUSeconds = 0.0
    public var builderCPUSeconds = 0.0
    /// Byte-string comparisons made to drop repeated keyword values (linear in the values, also
    /// when one id repeats 100,000 times: tests check it).
    var keywordComparisons = 0
    /// Keyword values left out because their POI's keyword text had reached
    /// ``IngestDriver/maxKeywordTextBytes``.
    public var droppedKeywordValues = 0
}

/// CPU time of the calling thread, in seconds.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Reads every input, validates coordinates, applies the duplicate policy, normalises keywords
/// and builds the POI table; rejected records go to the rejects file.
///
/// With two or more threads, reading and validating (one thread) overlap with de-duplication,
/// keyword normalisation and the table (the calling thread); records keep their order, so the
/// output is the same for any thread count.
public final class IngestDriver {
    public let settings: IngestSettings

    /// The most keyword text one POI keeps, in bytes (its normalised values with their key codes
    /// and separators: 64 KiB). A value that would pass it is left out and counted: without a
    /// cap, 2,000 repeats of one id with 500 KB values each (a 1 MB gzip) made one POI of 1 GB
    /// text and a 3 GB process. Real POIs hold well under 1 KiB.
    public static let maxKeywordTextBytes = 1 << 16

    private struct Batch {
        var records: RecordBatch
        var bytesRead: UInt64
    }

    private static let batchSize = 4096

    public init(settings: IngestSettings) {
        self.settings = settings
    }

    private var readerCPU = 0.0
    private var builderCPU = 0.0

    /// Ingests `inputs` in order, writing rejects to `rejects` (which the caller commits).
    public func run(_ inputs: [OpenedInput], rejects: RejectsWriter) throws -> IngestResult {
        let start = monotonicSeconds()
        var builder = TableBuilder(settings: settings)
        var perInput: [IngestCounts] = []
        var bytes: [UInt64] = []
        var total = IngestCounts()
        for (k, input) in inputs.enumerated() {
            let counts: IngestCounts
            do {
                counts = try ingest(input, sourceIndex: UInt32(k), builder: &builder, rejects: rejects)
            } catch {
                // A file cut short while it was read fails as damaged ("gzip data is damaged …
                // re-download"): said as what it is when the file changed.
                try input.checkUnchanged()
                throw error
            }
            guard counts.invariantHolds else {
                throw IngestError.invariantBroken("\(input.spec.displayPath): \(counts.json.serialized())")
            }
            Log.info("\(input.spec.displayPath): \(counts.summary)")
            if counts.crossInputDuplicates > 0 {
                Log.warning(
                    "\(input.spec.displayPath): \(groupedCount(counts.crossInputDuplicates)) record(s) repeat ids of "
                        + "earlier inputs (the same POIs in two inputs, e.g. overlapping extracts) and were handled by "
                        + "ingest.duplicates (\(settings.duplicates.rawValue)), not counted twice; set ingest.id_scope "
                        + "to \"input\" if the inputs number their records independently")
            }
            perInput.append(counts)
            bytes.append(input.source.bytesRead)
            total.add(counts)
        }
        for input in inputs { try input.checkUnchanged() }
        let table = builder.finish()
        guard total.invariantHolds, total.accepted == table.count else {
            throw IngestError.invariantBroken("total \(total.json.serialized()), table rows \(table.count)")
        }
        var result = IngestResult(
            table: table, perInput: perInput, total: total, bytesRead: bytes, seconds: monotonicSeconds() - start)
        result.readerCPUSeconds = readerCPU
        result.builderCPUSeconds = builderCPU
        result.keywordComparisons = builder.valueComparisons
        result.droppedKeywordValues = builder.droppedValues
        return result
    }

    /// Checks the outcome: every input had records, no input had too many rejects, and some
    /// rows are usable.
    public static func check(
        _ result: IngestResult, inputs: [OpenedInput], settings: IngestSettings, rejectsPath: String
    ) throws {
        for (input, c) in zip(inputs, result.perInput) where c.read == 0 {
            throw IngestError.emptyInput(path: input.spec.displayPath, blankLines: c.blankLines)
        }
        for (input, c) in zip(inputs, result.perInput)
        where Double(c.rejected) > settings.maxRejectRatio * Double(c.read) {
            throw IngestError.tooManyRejects(
                path: input.spec.displayPath, counts: c, limit: settings.maxRejectRatio, rejectsPath: rejectsPath)
        }
        if result.total.accepted == 0 { throw IngestError.noUsableRows(total: result.total) }
    }

    // MARK: - One input

    private func ingest(_ input: OpenedInput, sourceIndex: UInt32, builder: inout TableBuilder, rejects: RejectsWriter)
        throws
        -> IngestCounts
    {
        let path = input.spec.displayPath
        let validator = RecordValidator(
            crs: input.spec.crs, bbox: settings.bbox, rejectNullIsland: settings.rejectNullIsland)
        let source = input.source
        let batchSource = source as? RecordBatchSource
        builder.startInput(
            rules: batchSource?.keywordSplitRules ?? [], keys: batchSource?.keywordKeys ?? [],
            missingValues: batchSource?.missingValues ?? [])
        // The builder moves into the consumer (swap: no copy of its columns) and back.
        var consumer = BatchConsumer(
            builder: TableBuilder(settings: settings), input: input, sourceIndex: sourceIndex, rejects: rejects)
        swap(&consumer.builder, &builder)
        defer { swap(&consumer.builder, &builder) }

        if Parallel.threadCount >= 2 {
            let queue = BatchQueue<Batch>(limit: 8)
            let done = DispatchSemaphore(value: 0)
            // The reader belongs to the producer thread until it finishes; this thread only
            // consumes the batches it pushes.
            let producerSource = UncheckedSendable(source)
            let thread = Thread {
                let t0 = threadCPUSeconds()
                do {
                    try Self.produce(producerSource.value, validator) { queue.push($0) }
                    queue.finish(error: nil, producerCPUSeconds: threadCPUSeconds() - t0)
                } catch {
                    queue.finish(error: error, producerCPUSeconds: threadCPUSeconds() - t0)
                }
                done.signal()
            }
            thread.stackSize = 16 << 20
            thread.start()
            let b0 = threadCPUSeconds()
            defer { builderCPU += threadCPUSeconds() - b0 }
            do {
                while let batch = try queue.pop() { try consumer.consume(batch) }
            } catch {
                queue.cancel()
                while (try? queue.pop()) ?? nil != nil {}
                done.wait()
                throw error
            }
            done.wait()
            readerCPU += queue.producerCPUSeconds
        } else {
            try Self.produce(source, validator) { batch in
                try consumer.consume(batch)
                return true
            }
        }
        consumer.progress.finish()
        var counts = consumer.counts
        if let d = source as? DelimitedReader { counts.blankLines = d.blankLines }
        if let g = source as? GeoJSONReader {
            for w in g.warnings { try Log.strictWarning("\(path): \(w)") }
        }
        return counts
    }

    /// The building side of one input: takes batches in order and adds them to the table.
    /// A struct with mutating methods, so the per-record work runs without the dynamic
    /// exclusivity checks and boxes that captured local variables would need.
    private struct BatchConsumer {
        var builder: TableBuilder
        var counts = IngestCounts()
        let input: OpenedInput
        let path: String
        let sourceIndex: UInt32
        let rejects: RejectsWriter
        var progress = ProgressReporter("ingest")
        let started = monotonicSeconds()
        var reserved = false

        init(builder: TableBuilder, input: OpenedInput, sourceIndex: UInt32, rejects: RejectsWriter) {
            self.builder = builder
            self.input = input
            path = input.spec.displayPath
            self.sourceIndex = sourceIndex
            self.rejects = rejects
        }

        mutating func consume(_ batch: Batch) throws {
            let records = batch.records
            // Unsafe views for the whole batch: no reference counting per record (the batch's
            // arrays are shared with the reading thread, so each count is a contended atomic).
            try records.withBytes { fields in
                try records.entries.withUnsafeBufferPointer { entries in
                    try records.keywordFields.withUnsafeBufferPointer { keywordFields in
                        try add(records, entries, keywordFields, fields)
                    }
                }
            }
            if !reserved && counts.accepted > 0 {
                // Size the table from the first batch: rows per input byte × input size.
                reserved = true
                if !input.isGzip && batch.bytesRead > 0 {
                    let estimate = Double(input.fileSize) / Double(batch.bytesRead) * Double(counts.read)
                    builder.reserve(rows: Int(min(estimate, 1e9)) - counts.read)
                }
            }
            let read = counts.read
            let path = self.path
            let started = self.started
            // The share read is known for plain files (gzip's decompressed size is not).
            let fraction =
                !input.isGzip && input.fileSize > 0 ? min(1, Double(batch.bytesRead) / Double(input.fileSize)) : nil
            progress.tick(
                "\(path): \(groupedCount(read)) records, \(IngestDriver.megabytes(batch.bytesRead)) MB, "
                    + "\(IngestDriver.megabytes(UInt64(Double(batch.bytesRead) / max(1e-9, monotonicSeconds() - started)))) MB/s",
                fraction: fraction)
        }

        private mutating func add(
            _ records: RecordBatch, _ entries: UnsafeBufferPointer<RecordBatch.Entry>,
            _ keywordFields: UnsafeBufferPointer<RecordBatch.KeywordField>, _ fields: RecordBatch.FieldResolver
        ) throws {
            builder.prepare(entries, fields, keyNames: records.keyNames)
            var start = 0
            for k in 0..<entries.count {
                if k % 256 == 0 { builder.touchSlots(k..<min(entries.count, k + 256)) }
                let e = entries[k]
                let end = Int(e.keywordEnd)
                counts.read += 1
                if e.rejectSlot >= 0 {
                    let r = records.rejected[Int(e.rejectSlot)]
                    counts.countReject(r.reason)
                    try rejects.write(sourceFile: path, r)
                } else {
                    builder.add(
                        e, k, keywordFields: UnsafeBufferPointer(rebasing: keywordFields[start..<end]), fields,
                        source: sourceIndex, counts: &counts)
                }
                start = end
            }
        }
    }

    /// Reads all records of `source`, applies the coordinate rules, and hands them over in
    /// batches. Runs on the reading thread and touches nothing but the source.
    private static func produce(_ source: RecordSource, _ validator: RecordValidator, _ emit: (Batch) throws -> Bool)
        throws
    {
        if let batchSource = source as? RecordBatchSource {
            var batch = RecordBatch()
            while try batchSource.nextBatch(&batch, limit: batchSize) {
                validate(&batch, validator) { batchSource.recordText(inLastBatch: $0) }
                guard try emit(Batch(records: batch, bytesRead: source.bytesRead)) else { return }
                batch = RecordBatch()
            }
            return
        }
        // Record-at-a-time readers: validate each record while its text is still available.
        let diagnostics = source as? RecordSourceDiagnostics
        var batch = RecordBatch()
        while let result = try source.next() {
            switch result {
            case .rejected(let r):
                batch.append(rejected: r)
            case .record(var record):
                if let field = record.fieldWithNUL {
                    let raw = diagnostics?.lastRecordText() ?? record.descriptionForRejects
                    batch.append(
                        rejected: RejectedRecord(
                            line: record.line, byteOffset: record.byteOffset, reason: Self.nulReason(field), raw: raw))
                } else if let reason = validator.check(
                    lon: &record.lon, lat: &record.lat, coordinateText: diagnostics?.lastCoordinateText())
                {
                    let raw = diagnostics?.lastRecordText() ?? record.descriptionForRejects
                    batch.append(
                        rejected: RejectedRecord(
                            line: record.line, byteOffset: record.byteOffset, reason: reason, raw: raw))
                } else {
                    batch.append(record)
                }
            }
            if batch.count == batchSize {
                guard try emit(Batch(records: batch, bytesRead: source.bytesRead)) else { return }
                batch = RecordBatch()
            }
        }
        if batch.count > 0 { _ = try emit(Batch(records: batch, bytesRead: source.bytesRead)) }
    }

    /// Why a record with a NUL character in `field` is rejected.
    static func nulReason(_ field: String) -> String {
        "NUL character in the \(field): text values cannot hold one (GDAL, PostGIS and Shapefile outputs would "
            + "cut it there)"
    }

    /// Applies the coordinate rules to every record of a batch that the reader accepted, after
    /// rejecting records with a NUL character in a text value.
    private static func validate(_ batch: inout RecordBatch, _ validator: RecordValidator, text: (Int) -> String) {
        // A NUL is rare: two scans of the batch's bytes (memchr's wide loads) rule it out before
        // any record is looked at.
        func hasNUL(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBufferPointer { b in b.baseAddress.map { memchr($0, 0, b.count) != nil } ?? false }
        }
        if hasNUL(batch.text) || hasNUL(batch.extra) {
            for k in 0..<batch.count where !batch.isRejected(k) {
                if let field = batch.fieldWithNUL(k) {
                    let e = batch.entries[k]
                    let reason = nulReason(field)
                    let rejected = RejectedRecord(line: e.line, byteOffset: e.byteOffset, reason: reason, raw: text(k))
                    batch.reject(k, rejected)
                }
            }
        }
        for k in 0..<batch.count where !batch.isRejected(k) {
            var lon = batch.entries[k].lon
            var lat = batch.entries[k].lat
            if let reason = validator.check(lon: &lon, lat: &lat, coordinateText: batch.coordinateText(k)) {
                let e = batch.entries[k]
                batch.reject(k, RejectedRecord(line: e.line, byteOffset: e.byteOffset, reason: reason, raw: text(k)))
            } else {
                batch.entries[k].lon = lon
                batch.entries[k].lat = lat
            }
        }
    }

    fileprivate static func megabytes(_ bytes: UInt64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}
