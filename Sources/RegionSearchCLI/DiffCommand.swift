import Foundation
import RegionSearchCore
import RegionSearchLineage

/// `regionsearch diff OLD NEW`: what changed between any two region files — the same report
/// `regionsearch run` writes beside its outputs (`*.changes.json`), as JSON and as GeoJSON for
/// a map of what changed.
public enum DiffCommand {
    static let jsonOption = CommandSpec.Option(
        "json", .path, placeholder: "PATH", help: "Write the report (JSON) to PATH instead of standard output.")
    static let geoJSONOption = CommandSpec.Option(
        "geojson", .path, placeholder: "PATH",
        help: "Also write the map of what changed: every NEW region with its verdict, every retired region at its "
            + "last place (simplestyle colours by verdict).")

    static let spec = CommandSpec(
        name: "regionsearch diff",
        abstract: "report what changed between two region files (new, grown, split, merged, retired, …)",
        positionals: ["OLD NEW"],
        discussion: """
            OLD and NEW are region files: regionsearch outputs in any format (GeoJSON, GeoPackage, Shapefile, …)
            or their lineage files (<output stem>.lineage.json). Regions of one keyword and level are matched by
            the rule `regionsearch run` keeps ids with (docs/RUNNING.md, "Night after night"): by their keyword
            POIs when both files are lineage files, which list each region's POIs by id; by area otherwise.
            Each NEW region gets a verdict — new, unchanged, grown, shrunk, moved, split (with the pieces) or
            merged (with the parts) — with the figures behind it (members before, after and shared, areas, IoU,
            how far its centre moved) and previous_id, the OLD region it continues; each OLD region nothing
            continues is listed as retired, with its geometry. Between two nights of one lineage previous_id
            equals region_id, and the report is the one the run wrote.
            """,
        options: [jsonOption, geoJSONOption])

    static func run(_ cl: ParsedCommandLine) throws {
        guard cl.positionals.count == 2 else {
            throw UsageError("give two region files, OLD and NEW: \(spec.shortUsage)")
        }
        let (oldPath, newPath) = (cl.positionals[0], cl.positionals[1])
        try OutputCollision.check(
            outputs: [("--geojson", cl.value(geoJSONOption)), ("--json", cl.value(jsonOption))].compactMap {
                label, path in
                path.map { (label, $0) }
            },
            inputs: [("OLD", oldPath), ("NEW", newPath)])
        do {
            let old = try RegionFile.read(oldPath)
            let new = try RegionFile.read(newPath)
            let matching = try RegionMatching(
                previous: old.regions, current: new.regions, source: "\(oldPath) and \(newPath)")
            let report = ChangeReport(matching, previousSource: oldPath, currentSource: newPath)
            if let path = cl.value(geoJSONOption) { try AtomicFile.write(report.geoJSON, to: path) }
            if let path = cl.value(jsonOption) {
                try AtomicFile.write(report.jsonText, to: path)
            } else {
                print(report.jsonText, terminator: "")
            }
            Log.info("\(newPath) against \(oldPath): \(report.summary) (compared by \(report.basis))")
        } catch let e as LineageError {
            throw ToolFailure(e.description, status: .inputData)
        }
    }
}
