import Foundation
import RegionSearchCore
import RegionSearchProjection

/// Lon/lat → the map's projected CRS (PROJ), and the ground scale that the scale bar needs.
///
/// The CRS is the one the run projected into (recorded in the GeoJSON), so the map shows the
/// shapes the pipeline measured; without one it is chosen as `project`'s `auto` would (UTM zone
/// of the data, equal-area otherwise). Not `Sendable`: it owns a PROJ context.
final class MapProjection {
    /// The PROJ definition (`EPSG:32635`, or a PROJ string).
    let definition: String
    /// For the map's footer: `EPSG:32635 (WGS 84 / UTM zone 35N)`.
    let label: String
    private let context = PROJContext()
    private let forward: PROJTransform

    /// - Parameters:
    ///   - crs: a recorded CRS; nil = chosen from the extent of `lon`/`lat`.
    init(crs: String?, lon: [Double], lat: [Double]) throws {
        var definition = crs
        if definition == nil {
            guard !lon.isEmpty else { throw ToolFailure("nothing to draw: no region polygons and no POIs") }
            let extent = lon.withUnsafeBufferPointer { x in
                lat.withUnsafeBufferPointer { y in
                    GeographicExtent(lon: x, lat: y).trimmed(lon: x, lat: y, share: 0.005)
                }
            }
            definition = CRSChoice.automatic(for: extent).definition
        }
        self.definition = definition!
        forward = try context.transformation(from: "EPSG:4326", to: self.definition)
        let name = (try? context.describe(self.definition).name) ?? ""
        if self.definition.hasPrefix("+") {
            let text = self.definition.replacingOccurrences(of: " +no_defs", with: "")
                .replacingOccurrences(of: " +type=crs", with: "")
            let names = ["+proj=eqearth": "Equal Earth", "+proj=laea": "Lambert azimuthal equal-area"]
            let definition = self.definition
            let known = names.first { definition.hasPrefix($0.key + " ") }?.value
            label = (name.isEmpty || name == "unknown" ? known : name).map { "\($0) (\(text))" } ?? text
        } else {
            label = name.isEmpty ? self.definition : "\(self.definition) (\(name))"
        }
    }

    /// Projects lon/lat; points PROJ cannot project come back as NaN.
    func project(lon: [Double], lat: [Double]) throws -> (x: [Double], y: [Double]) {
        var x = lon
        var y = lat
        let failed = try forward.transform(x: &x, y: &y)
        for i in failed {
            x[i] = .nan
            y[i] = .nan
        }
        return (x, y)
    }

    /// Ground metres per projected unit, measured east–west at (x, y) on the WGS84 ellipsoid.
    func groundMetresPerUnit(x: Double, y: Double, span: Double) -> Double {
        var xs = [x - span / 2, x + span / 2]
        var ys = [y, y]
        guard (try? forward.transform(x: &xs, y: &ys, inverse: true))?.isEmpty == true else { return 1 }
        let d = Geodesic.distance(lon1: xs[0], lat1: ys[0], lon2: xs[1], lat2: ys[1])
        return d > 0 && span > 0 ? d / span : 1
    }
}
