import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel

/// How densely POIs of any kind occupy the ground around each POI, as a share of the whole data's
/// density, at most 1: what the density measure's reference is scaled by where the city thins out
/// (`regions.reference_window`).
///
/// A keyword's typical density λ (its POIs over the occupied ground) is the metro's: a town 60 km
/// away at a twentieth of the metro's density, or a borough of sparse blocks, holds far fewer of
/// the keyword's POIs per km² even where its dining street is. Judged against λ, that street is
/// not dense, although it is tens of times as dense as the ground around it. Scaled by this share,
/// the reference there is what the keyword would have at the keyword's share of the POIs that are
/// there: the street is judged against its own surroundings. The share is capped at 1, so a
/// downtown is still judged against the city's λ (a downtown with hundreds of restaurants among
/// thousands of shops stays dense, as the density measure means). The share reads POIs of every
/// kind, so a cluster of the keyword raises its own reference only by its own count among them:
/// little in a city (the share is capped at 1 there anyway), more in a small town, where its
/// restaurants may be a third of the window's POIs (the town's cluster in `DensityHierarchyTests`
/// is found all the same).
///
/// The ground is a square window of 3 × 3 grid cells around the POI's cell; a cell is as wide as
/// makes a window hold `windowPOIs` POIs on average over the occupied ground (at least 1 m). A
/// window's density is its POIs over its occupied ground
/// (``DensityRegionFinder/occupiedArea(_:)``'s rule, so rivers and parks inside it
/// count for nothing), and the share is that over the whole data's, N / A. Sums run in POI index order and the window's cells in a fixed order:
/// deterministic on any thread count.
public struct GroundDensity: Sendable {
    /// Per POI: its window's density over the data's, in (0, 1].
    public let share: [Double]
    /// The cell width, metres (0 when the data gives no occupied ground).
    public let cellSize: Double

    /// `ground`: the ground each POI occupies (``DensityRegionFinder/ownedGround(graph:scaleK:)``).
    public init(x: Column<Double>, y: Column<Double>, ground: [Double], windowPOIs: Double) {
        let n = ground.count
        var total = 0.0
        for a in ground { total += a }
        guard n > 0, total > 0, windowPOIs > 0 else {
            share = [Double](repeating: 1, count: n)
            cellSize = 0
            return
        }
        let density = Double(n) / total
        // At least a metre: POIs stacked a few centimetres apart across a continent would
        // otherwise number more cells than an Int64 holds.
        let cell = max(1, (windowPOIs / (9 * density)).squareRoot())
        cellSize = cell
        let box = PointBounds(x: x, y: y)
        let (minX, minY, maxX, maxY) = (box.minX, box.minY, box.maxX, box.maxY)
        // Cells numbered row by row over the data's box, with an empty border so every window's
        // 3 × 3 cells exist; sparse data whose box holds far more cells than POIs (a world of
        // airports) keeps only the occupied cells.
        let columns = Int((maxX - minX) / cell) + 3
        let rows = Int((maxY - minY) / cell) + 3
        let dense = Double(columns) * Double(rows) <= Double(4 * n + 4096)
        let width = Int64(columns)
        func cellIndex(_ i: Int) -> Int64 {
            Int64((x[i] - minX) / cell + 1) + width * Int64((y[i] - minY) / cell + 1)
        }
        var cellOf = [Int64](repeating: 0, count: n)
        for i in 0..<n { cellOf[i] = cellIndex(i) }
        // Each cell's slot in the sums: its place on the grid, or (sparse data) its number in a
        // table of the occupied cells, in order of first appearance.
        var table: [Int64: Int] = [:]
        if !dense {
            for k in cellOf where table[k] == nil { table[k] = table.count }
        }
        func slot(_ k: Int64) -> Int? { dense ? Int(k) : table[k] }
        let slots = dense ? columns * rows : table.count
        var count = [Double](repeating: 0, count: slots)
        var area = [Double](repeating: 0, count: slots)
        for i in 0..<n {
            let s = slot(cellOf[i])!
            count[s] += 1
            area[s] += ground[i]
        }
        var windowShare = [Double](repeating: .nan, count: slots)
        for k in cellOf where windowShare[slot(k)!].isNaN {
            var windowCount = 0.0
            var windowArea = 0.0
            for dr in -1...1 {
                for dc in -1...1 {
                    guard let s = slot(k + Int64(dr) * width + Int64(dc)) else { continue }
                    windowCount += count[s]
                    windowArea += area[s]
                }
            }
            windowShare[slot(k)!] = windowArea > 0 ? min(1, windowCount / windowArea / density) : 1
        }
        share = cellOf.map { windowShare[slot($0)!] }
    }
}
