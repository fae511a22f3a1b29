import RegionSearchEvaluation
import RegionSearchOutput
import RegionSearchProjection

extension Evaluator {
    /// The region checks alone (``RegionCheck``: keyword POIs inside, spacing, empty share, area;
    /// the `evaluate` command runs them with truth scoring), which tests hold every region of a
    /// real output to: every feature of `regions` against `pois`, with ``checks`` (or the
    /// defaults), measured in ``crs`` or a CRS chosen for the regions' extent; nil for a feature
    /// without keyword.
    func checkRegions(_ regionFile: RegionFeatureFile, pois: EvaluationPOIs) throws -> [RegionCheck?] {
        let geos = GEOSContext()
        let proj = PROJContext()
        guard let choice = try chooseCRS([regionFile], proj: proj) else { return [] }
        let transform = try proj.transformation(from: "EPSG:4326", to: choice.definition)
        let layer = try EvaluationLayer(file: regionFile, transform: transform, context: geos)
        let located = try LocatedPOIs(pois, transform: transform)
        return try Self.regionChecks(
            regionFile, items: layer.items, located: located, choice: choice, options: checks ?? CheckOptions(),
            geos: geos, proj: proj)
    }

}
