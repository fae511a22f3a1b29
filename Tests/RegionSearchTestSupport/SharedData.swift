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

    /// A file the test cannot do without: missing, it fails the test (as it fails every real-data
    /// test that opens it), never skips it, so a run without the data is not mistaken for a pass.
    static func require(_ relative: String) throws -> String {
        let file = path(relative)
        guard FileManager.default.fileExists(atPath: file) else { throw Missing(path: file) }
        return file
    }

    /// A shared data file that is not there.
    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "\(path) not found: the real-data tests read ../shared/data beside the repository (or "
                + "REGIONSEARCH_SHARED_DATA)"
        }
    }
}

/// Fields of an RFC 4180 CSV text (quotes, doubled quotes, commas and line breaks in quotes) —
/// a second reader, independent of ingest.
func csvRecords(_ text: String) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false
    var chars = Array(text.unicodeScalars)[...]
    while let c = chars.popFirst() {
        if quoted {
            if c == "\"" {
                if chars.first == "\"" {
                    field.unicodeScalars.append("\"")
                    chars = chars.dropFirst()
                } else {
                    quoted = false
                }
            } else {
                field.unicodeScalars.append(c)
            }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            record.append(field)
            field = ""
        } else if c == "\n" || c == "\r" {
            if c == "\r" && chars.first == "\n" { chars = chars.dropFirst() }
            record.append(field)
            field = ""
            records.append(record)
            record = []
        } else {
            field.unicodeScalars.append(c)
        }
    }
    if !field.isEmpty || !record.isEmpty {
        record.append(field)
        records.append(record)
    }
    return records
}
