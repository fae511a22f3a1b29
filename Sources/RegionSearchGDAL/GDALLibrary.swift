import CGDAL

/// Process-wide GDAL set-up: driver registration (once, thread-safely), the version, and
/// configuration options scoped to one call on one thread.
public enum GDALLibrary {
    /// `GDALAllRegister` runs the first time this is read. Swift initialises a static `let`
    /// lazily under `swift_once`, so concurrent first uses are safe and it runs exactly once.
    private static let registration: Void = {
        GDALAllRegister()
    }()

    /// Registers all GDAL/OGR drivers (idempotent, thread-safe). Every wrapper calls this first.
    public static func ensureRegistered() {
        _ = registration
    }

    /// The runtime GDAL release, e.g. "3.6.2".
    public static var version: String {
        String(cString: GDALVersionInfo("RELEASE_NAME"))
    }

    /// Short names of the registered drivers that read or write vector data.
    public static func vectorDriverNames() -> [String] {
        ensureRegistered()
        var names: [String] = []
        for i in 0..<GDALGetDriverCount() {
            guard let driver = GDALGetDriver(i) else { continue }
            if GDALGetMetadataItem(driver, GDAL_DCAP_VECTOR, nil) != nil {
                names.append(String(cString: GDALGetDriverShortName(driver)))
            }
        }
        return names
    }

    /// Runs `body` with GDAL configuration options set for the current thread only
    /// (`CPLSetThreadLocalConfigOption`), restoring the previous values afterwards. `body` is
    /// synchronous, so it cannot hop threads. Use it for options a call reads, such as
    /// `PG_USE_COPY` and `OGR_CURRENT_DATE`.
    public static func withThreadLocalConfig<T, E: Error>(
        _ options: [(String, String)], _ body: () throws(E) -> T
    ) throws(E) -> T {
        ensureRegistered()
        let previous: [(String, String?)] = options.map { key, _ in
            (key, CPLGetThreadLocalConfigOption(key, nil).map { String(cString: $0) })
        }
        for (key, value) in options { CPLSetThreadLocalConfigOption(key, value) }
        defer { for (key, value) in previous { CPLSetThreadLocalConfigOption(key, value) } }
        return try body()
    }

    /// A data source name fit for messages: the value of a `password=` item of a `PG:`
    /// connection string is replaced by `***` (a nightly job's log must not hold it).
    public static func redacted(_ path: String) -> String {
        guard path.hasPrefix("PG:"), let range = path.range(of: "password=") else { return path }
        var end = range.upperBound
        if end < path.endIndex, path[end] == "'" {
            end = path[path.index(after: end)...].firstIndex(of: "'").map { path.index(after: $0) } ?? path.endIndex
        } else {
            end = path[end...].firstIndex(of: " ") ?? path.endIndex
        }
        return String(path[..<range.upperBound]) + "***" + String(path[end...])
    }
}
