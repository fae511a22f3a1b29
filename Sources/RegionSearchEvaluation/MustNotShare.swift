import RegionSearchCore
import RegionSearchOutput

/// How much of a keyword's region area lies where regions must not be: in `void` areas (no POIs
/// of any kind) and in the keyword's `sparse` areas (the keyword at or below its typical density).
///
/// The must-not file holds polygons with a `kind` property, `void` or `sparse`, and a `keyword`
/// (`*` or none: every keyword). A keyword's region area is the area of the union of its regions.
/// Two more kinds may appear in it: `river` (a void that is water with two banks: it counts as a
/// void here, and ``RiverSpans`` counts the regions that span it) and `downtown` (not a must-not
/// area: a downtown's extent, for ``DowntownCounts``).
public struct MustNotShare: Sendable, Equatable {
    /// Area of the union of the group's regions, m².
    public var regionArea = 0.0
    /// Of that, m² inside the union of the void (sparse) areas that apply to the keyword.
    public var voidArea = 0.0
    public var sparseArea = 0.0

    /// voidArea / regionArea (0 without region area).
    public var voidShare: Double { regionArea > 0 ? voidArea / regionArea : 0 }
    public var sparseShare: Double { regionArea > 0 ? sparseArea / regionArea : 0 }

    static func + (a: MustNotShare, b: MustNotShare) -> MustNotShare {
        MustNotShare(
            regionArea: a.regionArea + b.regionArea, voidArea: a.voidArea + b.voidArea,
            sparseArea: a.sparseArea + b.sparseArea)
    }

    /// The kinds a must-not feature may have.
    static let kinds = ["void", "sparse", "river", "downtown"]
    /// The kinds that count as voids in the void share.
    static let voidKinds = ["void", "river"]

    /// Checks that every feature of the must-not file has a known kind.
    static func validate(_ file: RegionFeatureFile) throws(EvaluateError) {
        for f in file.features where !(f.kind.map { kinds.contains($0) } ?? false) {
            throw EvaluateError.badGeoJSON(
                path: file.path, location: "feature \(f.index)",
                reason:
                    "a must-not area needs the property \"kind\": \"void\", \"sparse\", \"river\" or \"downtown\", "
                    + "found "
                    + (f.kind.map { "\"\($0)\"" } ?? "none"))
        }
    }

    /// The shares per region keyword label (code-point order).
    static func shares(regions: [EvaluationLayer.Item], mustNot: [EvaluationLayer.Item], context: GEOSContext)
        throws -> [String: MustNotShare]
    {
        var out: [String: MustNotShare] = [:]
        for label in Set(regions.map(\.keywordLabel)).sorted(by: codePointOrder) {
            let keyword = label == "*" ? nil : label
            let union = try context.unionAll(regions.filter { $0.keywordLabel == label }.map(\.geometry))
            var s = MustNotShare(regionArea: union.area)
            func overlap(_ kinds: [String]) throws -> Double {
                let parts = mustNot.filter {
                    $0.kind.map { kinds.contains($0) } ?? false && Evaluator.compatible($0.keyword, keyword)
                }
                guard s.regionArea > 0, !parts.isEmpty else { return 0 }
                let area = try context.unionAll(parts.map(\.geometry))
                guard let a = area.envelope, let b = union.envelope, a.intersects(b) else { return 0 }
                return try union.intersection(area).area
            }
            s.voidArea = try overlap(voidKinds)
            s.sparseArea = try overlap(["sparse"])
            out[label] = s
        }
        return out
    }
}
