import Foundation

/// The real POI dumps in `../shared/data` beside the repository (read-only; tests never write
/// there). `REGIONSEARCH_SHARED_DATA` overrides the location.
enum SharedData {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["REGIONSEARCH_SHARED_DATA"] { return dir }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repository.deletingLastPathComponent().appendingPathComponent("shared/data").path
    }()

    /// A file under the shared data directory, e.g. `path("spb-2gis-geomarketing/poi.csv")`.
    static func path(_ relative: String) -> String { directory + "/" + relative }
}
