/// One message GDAL reported through `CPLError`.
public struct GDALMessage: Sendable, Equatable, CustomStringConvertible {
    /// The GDAL severity class.
    public enum Level: Sendable, Equatable {
        case warning, failure, fatal
    }

    public var level: Level
    /// The `CPLErrorNum` (e.g. `CPLE_OpenFailed` = 4, `CPLE_AppDefined` = 1).
    public var code: Int32
    public var text: String

    public init(level: Level, code: Int32, text: String) {
        self.level = level
        self.code = code
        self.text = text
    }

    public var description: String { "\(level) \(code): \(text)" }
}
