import Foundation
import RegionSearchCore

/// The ingest stage's parameters that apply to all inputs.
public struct IngestSettings: Sendable, Equatable {
    /// What to do with a record whose id was already seen (in the same input, or an earlier one
    /// with ``IdScope/all``).
    public enum DuplicatePolicy: String, CaseIterable, Sendable {
        /// Keep the first record, drop the later ones (counted as `dropped_duplicates`).
        case keepFirst = "keep_first"
        /// Keep the first record's name and coordinates and add the later records' keyword
        /// values to it (counted as `merged_duplicates`). The default: real dumps list one
        /// place under several categories this way.
        case merge
        /// Keep every record as its own POI (counted in `accepted` and as `kept_duplicates`).
        case keepAll = "keep_all"
    }

    /// Where an id names one POI.
    public enum IdScope: String, CaseIterable, Sendable {
        /// In all the inputs of a run: a record whose id an earlier input had goes through
        /// ``DuplicatePolicy`` like a repeat in one file (two overlapping OSM extracts share
        /// the POIs along their border). The default.
        case all
        /// In its own input only: inputs that number their records independently (two CSV
        /// files whose ids both start at 1) are not merged.
        case input
    }

    public var duplicates = DuplicatePolicy.merge
    public var idScope = IdScope.all
    /// Fail when more than this share of an input's records is rejected.
    var maxRejectRatio = 0.1
    /// Reject records outside this box (WGS84, after conversion).
    public var bbox: GeoBox?
    /// Reject records at exactly lon = lat = 0 (a common "no coordinates" placeholder).
    var rejectNullIsland = true
    /// Add the name to the keyword values.
    var nameAsKeyword = false

    public init() {}
}

extension IngestSettings: StageOptions {
    /// The defaults, declared once by the properties' initial values (see ``GraphOptions`` in the
    /// graph target).
    static let defaults = IngestSettings()

    static let duplicatesSpec = ParameterSpec(
        "duplicates", .choice(DuplicatePolicy.allCases.map { $0.rawValue }),
        default: .string(defaults.duplicates.rawValue),
        help:
            "What to do with a record whose id already occurred (in any input; see id_scope): keep_first drops it, merge adds "
            + "its keywords to the first record (first name and coordinates win), keep_all keeps it as another POI."
    )
    static let idScopeSpec = ParameterSpec(
        "id_scope", .choice(IdScope.allCases.map { $0.rawValue }), default: .string("all"),
        help:
            "Where an id names one POI: all (a record whose id an earlier input had is a repeat, handled by "
            + "duplicates: overlapping extracts are not counted twice) or input (ids repeat only within a file, for "
            + "inputs that number their records independently)."
    )
    static let maxRejectRatioSpec = ParameterSpec(
        "max_reject_ratio", .number(min: 0, max: 1), default: .number(defaults.maxRejectRatio),
        help:
            "Fail (exit 3) when more than this share of an input's "
            + "records is rejected; the rejects file is still written."
    )
    static let bboxSpec = ParameterSpec(
        "bbox", .string, default: defaults.bbox.map { .string($0.description) } ?? .null,
        help:
            "Reject POIs outside west,south,east,north (WGS84 degrees, after CRS conversion); west > east crosses "
            + "the antimeridian."
    )
    static let rejectNullIslandSpec = ParameterSpec(
        "reject_null_island", .boolean, default: .bool(defaults.rejectNullIsland),
        help: "Reject records at exactly lon = lat = 0, the usual placeholder for unknown coordinates.")
    static let nameAsKeywordSpec = ParameterSpec(
        "name_as_keyword", .boolean, default: .bool(defaults.nameAsKeyword),
        help: "Also add each POI's name to its keyword text, so keyword queries match names.")

    public static let specs = [
        duplicatesSpec, idScopeSpec, maxRejectRatioSpec, bboxSpec, rejectNullIslandSpec, nameAsKeywordSpec,
    ]

    public init(_ p: Parameters) throws(ParameterError) {
        duplicates = p.choice(Self.duplicatesSpec, as: DuplicatePolicy.self)
        idScope = p.choice(Self.idScopeSpec, as: IdScope.self)
        maxRejectRatio = p.double(Self.maxRejectRatioSpec)
        if let text = p.optionalString(Self.bboxSpec) {
            switch GeoBox.parse(text) {
            case .success(let b): bbox = b
            case .failure(let e): throw ParameterError(Self.bboxSpec, e.message)
            }
        }
        rejectNullIsland = p.bool(Self.rejectNullIslandSpec)
        nameAsKeyword = p.bool(Self.nameAsKeywordSpec)
    }
}
