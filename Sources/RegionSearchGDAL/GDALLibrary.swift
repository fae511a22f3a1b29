import CGDAL
import RegionSearchCore

/// Process-wide GDAL set-up: driver registration (once, thread-safely), the version, and
/// configuration options scoped to one call on one thread.
public enum GDALLibrary {
    /// GDAL is loaded on first use (the CGDAL target), then `GDALAllRegister` runs, the first time this
    /// is read; nil when it loaded, else why not. Swift initialises a static `let` lazily under
    /// `swift_once`, so concurrent first uses are safe and it runs exactly once.
    private static let registration: String? = {
        if let failure = rs_gdal_load_error() { return String(cString: failure) }
        GDALAllRegister()
        return nil
    }()

    /// Loads GDAL and registers all GDAL/OGR drivers (idempotent, thread-safe). Every wrapper calls
    /// this before any other GDAL function; it throws ``GDALError/unavailable(_:)`` when the
    /// library cannot be loaded.
    public static func ensureRegistered() throws(GDALError) {
        if let failure = registration { throw .unavailable(failure) }
    }

    /// Whether GDAL could be loaded (and its drivers registered).
    public static var isAvailable: Bool { registration == nil }

    /// The runtime GDAL release, e.g. "3.6.2"; nil when GDAL cannot be loaded.
    public static var version: String? {
        isAvailable ? String(cString: GDALVersionInfo("RELEASE_NAME")) : nil
    }

    /// Runs `body` with GDAL configuration options set for the current thread only
    /// (`CPLSetThreadLocalConfigOption`), restoring the previous values afterwards. `body` is
    /// synchronous, so it cannot hop threads. Use it for options a call reads, such as
    /// `PG_USE_COPY` and `OGR_CURRENT_DATE`.
    public static func withThreadLocalConfig<T, E: Error>(
        _ options: [(String, String)], _ body: () throws(E) -> T
    ) throws(E) -> T {
        // Without GDAL there is nothing to configure; the body's first GDAL object will say why.
        guard isAvailable else { return try body() }
        let previous: [(String, String?)] = options.map { key, _ in
            (key, CPLGetThreadLocalConfigOption(key, nil).map { String(cString: $0) })
        }
        for (key, value) in options { CPLSetThreadLocalConfigOption(key, value) }
        defer { for (key, value) in previous { CPLSetThreadLocalConfigOption(key, value) } }
        return try body()
    }

    /// A data source name fit for messages and records: every password of a `PG:` connection
    /// string replaced by `***` (``ConnectionSecrets``; a nightly job's log must not hold it).
    public static func redacted(_ path: String) -> String { ConnectionSecrets.redacted(path) }
}
