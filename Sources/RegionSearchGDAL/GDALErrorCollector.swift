import CGDAL
import RegionSearchCore

/// Collects the messages GDAL reports on the current thread while a synchronous body runs.
///
/// GDAL's error-handler stack is thread-local: ``capture(_:)`` pushes a handler with
/// `CPLPushErrorHandlerEx` whose user-data pointer is this collector (unretained), runs the body
/// and pops the handler. The body is synchronous, so push and pop happen on the same thread even
/// under Swift concurrency, and no global mutable state is involved; a handler tied to an
/// object's lifetime instead would not be safe, because an object can move between threads.
/// Failures (`CE_Failure`, `CE_Fatal`) and warnings are kept apart; debug messages are dropped.
/// Message text is made one printable line (``PrintableText/oneLine(_:limit:)``): GDAL quotes
/// input lines in some messages and spreads others over several lines.
///
/// Not `Sendable`: one per owner object (each ``GDALDataset`` has one).
public final class GDALErrorCollector {
    /// `CE_Failure`/`CE_Fatal` messages not yet taken by ``takeFailures()``.
    public private(set) var failures: [GDALMessage] = []
    /// `CE_Warning` messages collected so far (kept until ``takeWarnings()``).
    public private(set) var warnings: [GDALMessage] = []
    /// At most this many messages of each kind are kept (GDAL can warn once per feature).
    public var limit = 100
    private var depth = 0

    public init() {}

    /// Runs `body` with this collector installed as the thread's GDAL error handler.
    ///
    /// Nested calls (also through other collectors) are fine: GDAL's handler stack is LIFO.
    /// Failures left from an earlier outermost scope are dropped first, so that an error only
    /// carries the messages of the operation that failed.
    public func capture<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        CPLErrorReset()
        if depth == 0 { failures.removeAll() }
        CPLPushErrorHandlerEx(
            { level, code, message in
                // @convention(c): no captures. The collector arrives through the user-data
                // pointer of the handler on top of this thread's stack.
                guard let raw = CPLGetErrorHandlerUserData() else { return }
                let collector = Unmanaged<GDALErrorCollector>.fromOpaque(raw).takeUnretainedValue()
                collector.record(level: level, code: code, message: message)
            }, Unmanaged.passUnretained(self).toOpaque())
        depth += 1
        defer {
            depth -= 1
            CPLPopErrorHandler()
        }
        return try body()
    }

    fileprivate func record(level: CPLErr, code: CPLErrorNum, message: UnsafePointer<CChar>?) {
        // GDAL's messages may span lines (a quoted SQL statement, an XML parser's context): one
        // line each, so a message reads as GDAL meant it, not with a literal "\n".
        let text = PrintableText.oneLine(message.map { String(cString: $0) } ?? "", limit: 500)
        switch level {
        case CE_Failure, CE_Fatal:
            if failures.count < limit {
                failures.append(GDALMessage(level: level == CE_Fatal ? .fatal : .failure, code: code, text: text))
            }
        case CE_Warning:
            if warnings.count < limit { warnings.append(GDALMessage(level: .warning, code: code, text: text)) }
        default:
            break
        }
    }

    /// Returns and clears the collected failures.
    public func takeFailures() -> [GDALMessage] {
        defer { failures.removeAll() }
        return failures
    }

    /// Returns and clears the collected warnings.
    public func takeWarnings() -> [GDALMessage] {
        defer { warnings.removeAll() }
        return warnings
    }

    /// A ``GDALError/operationFailed(operation:code:messages:)`` with the collected failures
    /// (which are cleared).
    func failure(_ operation: String, code: OGRErr = OGRERR_FAILURE) -> GDALError {
        .operationFailed(operation: operation, code: Int32(code), messages: takeFailures())
    }

    /// Throws when `code` is not `OGRERR_NONE`.
    func check(_ code: OGRErr, _ operation: @autoclosure () -> String) throws(GDALError) {
        if code != OGRERR_NONE { throw failure(operation(), code: code) }
    }
}
