import Foundation
import RegionSearchCore

/// `--scenario blocks`: a grid of street blocks; keyword blocks and frontage strips.
///
/// Blocks are 160 m (east–west) × 80 m, streets 20 m wide, over a square of side √(n / 1000) km
/// (about 1,000 POIs per km² on average). Background POIs are drawn as in the `clusters` city (60 %
/// uniform, 40 % in five downtowns), kept off the streets, and 70 % of them moved onto a frontage
/// (2–12 m inside the nearer long edge of their block, where shops are); the rest stay where they
/// fell inside the block. Then `clusters` (12) **blocks** get 24–36 keyword POIs (kind `block`;
/// more in a downtown: at least 8 × what the background puts in such a block on average):
/// 40 % on the north frontage, 40 % on the south one (2–12 m inside the edge), 20 % inside (more
/// than 12 m from both long edges): what a person draws is the block, and the truth is its
/// rectangle. `clusters / 2` **frontages** (kind `frontage`) get 18–27 keyword POIs (at least 8 ×
/// the background's on that frontage) 2–12 m inside the north edge of three blocks in a row, along
/// one side of a street: a person draws a strip,
/// and the truth is the band from 20 m inside the blocks to the middle of the street, 520 m long.
/// Planted blocks and frontages are at least 3 blocks apart (in rows and columns). Truth
/// properties: `block_x`, `block_y` (grid indices), `width_m`, `height_m`, and per block
/// `n_north`, `n_south`, `n_inside`.
extension SyntheticCity {
    static let blockWidth = 160.0
    static let blockHeight = 80.0
    static let streetWidth = 20.0
    /// Frontage POIs lie this far inside a block's long edge.
    static let frontageDepth = (min: 2.0, max: 12.0)
    /// A frontage truth reaches this far into the blocks.
    static let frontageTruthDepth = 20.0
    /// A planted block (frontage) holds at least this many times the keyword POIs the background
    /// puts there on average (on its north frontage: 35 % of a block's).
    static let plantedContrast = 8.0

    static func blockCity(_ config: Config, _ rng: inout SeededRandom) throws -> SyntheticLayout {
        let side = (Double(max(config.n, 1)) / 1000).squareRoot() * 1000
        let px = blockWidth + streetWidth
        let py = blockHeight + streetWidth
        let columns = Int(side / px)
        let rows = Int(side / py)
        guard columns >= 12, rows >= 12 else {
            throw ToolFailure(
                "--scenario blocks needs --n of at least 5000 (a grid of 12 × 12 blocks or more; got \(config.n))",
                status: .usage)
        }
        // Block (i, j) covers [x0 + i px, x0 + i px + blockWidth] × [y0 + j py, y0 + j py + blockHeight].
        let x0 = -Double(columns) * px / 2 + streetWidth / 2
        let y0 = -Double(rows) * py / 2 + streetWidth / 2
        func block(_ i: Int, _ j: Int) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
            let bx = x0 + Double(i) * px
            let by = y0 + Double(j) * py
            return (bx, by, bx + blockWidth, by + blockHeight)
        }
        func blockOf(_ x: Double, _ y: Double) -> (Int, Int)? {
            let i = Int(((x - x0) / px).rounded(.down))
            let j = Int(((y - y0) / py).rounded(.down))
            guard i >= 0, j >= 0, i < columns, j < rows else { return nil }
            let b = block(i, j)
            return x <= b.maxX && y <= b.maxY ? (i, j) : nil
        }
        func frontage(_ rng: inout SeededRandom) -> Double { rng.uniform(frontageDepth.min, frontageDepth.max) }

        // The background's downtowns, and its expected density on block land (POIs per m²; the
        // streets' share of the square is drawn again onto blocks).
        var background = config
        background.extentKm = side / 1000
        let downtowns = Self.downtowns(background, &rng)
        let land = blockWidth * blockHeight / (px * py)
        let expectedTotal = Double(max(0, config.n - 40 * max(0, config.clusters)))
        func density(_ x: Double, _ y: Double) -> Double {
            var d = expectedTotal * (1 - background.downtownShare) / (side * side)
            for (dx, dy, sigma) in downtowns {
                let r2 = (x - dx) * (x - dx) + (y - dy) * (y - dy)
                d +=
                    expectedTotal * background.downtownShare / Double(downtowns.count) * exp(-r2 / (2 * sigma * sigma))
                    / (2 * .pi * sigma * sigma)
            }
            return d / land
        }

        // The planted blocks and frontages: rows and columns 3 apart from each other, 2 from the edge;
        // each at least `plantedContrast` × as dense in its keyword as the background expects there.
        var taken: [(Int, Int, Int)] = []  // (i, j, width in blocks)
        func free(_ i: Int, _ j: Int, _ w: Int) -> Bool {
            !taken.contains { t in abs(t.1 - j) < 3 && i < t.0 + t.2 + 3 && t.0 < i + w + 3 }
        }
        var planted: [(i: Int, j: Int, width: Int, count: Int)] = []
        let wanted =
            [Int](repeating: 1, count: max(0, config.clusters))
            + [Int](repeating: 3, count: max(0, config.clusters / 2))
        var attempts = 0
        for w in wanted {
            while true {
                attempts += 1
                if attempts > 100_000 {
                    throw ToolFailure(
                        "cannot place \(config.clusters) keyword blocks 3 blocks apart in a grid of \(columns) × \(rows)",
                        status: .usage)
                }
                let i = 2 + rng.below(columns - w - 3)
                let j = 2 + rng.below(rows - 4)
                guard free(i, j, w) else { continue }
                taken.append((i, j, w))
                let keyword = config.keywords[planted.count % max(config.keywords.count, 1)]
                let first = block(i, j)
                let last = block(i + w - 1, j)
                let expected =
                    density((first.minX + last.maxX) / 2, (first.minY + first.maxY) / 2) * blockWidth * blockHeight
                    * Double(w) * backgroundShare(keyword, config) * (w == 1 ? 1 : 0.35)
                let least = Int((plantedContrast * expected).rounded(.up))
                planted.append((i, j, w, max(least, w == 1 ? 24 + rng.below(13) : 18 + rng.below(10))))
                break
            }
        }

        // Background: the clusters city's mix, off the streets, 70 % on a frontage.
        var layout = SyntheticLayout()
        let categories = CategoryDraw(config)
        let half = side / 2
        let total = max(0, config.n - planted.reduce(0) { $0 + $1.count })
        for k in 0..<total {
            var x = 0.0
            var y = 0.0
            var cell: (Int, Int)?
            repeat {
                if Double(k) < Double(total) * (1 - background.downtownShare) {
                    x = rng.uniform(-half, half)
                    y = rng.uniform(-half, half)
                } else {
                    let d = downtowns[rng.below(downtowns.count)]
                    x = d.0 + rng.normal() * d.2
                    y = d.1 + rng.normal() * d.2
                }
                cell = blockOf(x, y)
            } while cell == nil
            if rng.uniform() < 0.7 {
                let b = block(cell!.0, cell!.1)
                y = y - b.minY < b.maxY - y ? b.minY + frontage(&rng) : b.maxY - frontage(&rng)
            }
            let category = categories.draw(&rng)
            layout.append(x: x, y: y, category: category, name: name(category, &rng), cluster: -1)
        }

        // The keyword blocks and frontages.
        for (index, p) in planted.enumerated() {
            let keyword = config.keywords[index % max(config.keywords.count, 1)]
            let first = block(p.i, p.j)
            let last = block(p.i + p.width - 1, p.j)
            var north = 0
            var south = 0
            var inside = 0
            for k in 0..<p.count {
                let x = rng.uniform(first.minX, last.maxX)
                var y: Double
                if p.width == 1 {
                    let u = Double(k) / Double(p.count)
                    if u < 0.4 {
                        y = first.maxY - frontage(&rng)
                        north += 1
                    } else if u < 0.8 {
                        y = first.minY + frontage(&rng)
                        south += 1
                    } else {
                        y = rng.uniform(first.minY + frontageDepth.max, first.maxY - frontageDepth.max)
                        inside += 1
                    }
                    layout.append(x: x, y: y, category: keyword, name: name(keyword, &rng), cluster: index)
                } else {
                    // Along one street side: on the three blocks, not in the cross streets between them.
                    var along = x
                    while blockOf(along, first.maxY - 1) == nil { along = rng.uniform(first.minX, last.maxX) }
                    y = first.maxY - frontage(&rng)
                    north += 1
                    layout.append(x: along, y: y, category: keyword, name: name(keyword, &rng), cluster: index)
                }
            }
            var properties: [(String, JSONValue)] = [
                ("block_x", .number(Double(p.i))), ("block_y", .number(Double(p.j))),
            ]
            let polygon: Area.Ring
            if p.width == 1 {
                polygon = (
                    [first.minX, first.maxX, first.maxX, first.minX], [first.minY, first.minY, first.maxY, first.maxY]
                )
                properties += [
                    ("width_m", .number(blockWidth)), ("height_m", .number(blockHeight)),
                    ("n_north", .number(Double(north))), ("n_south", .number(Double(south))),
                    ("n_inside", .number(Double(inside))),
                ]
            } else {
                let bottom = first.maxY - frontageTruthDepth
                let top = first.maxY + streetWidth / 2
                polygon = ([first.minX, last.maxX, last.maxX, first.minX], [bottom, bottom, top, top])
                properties += [
                    ("width_m", .number(last.maxX - first.minX)), ("height_m", .number(top - bottom)),
                    ("blocks", .number(Double(p.width))),
                ]
            }
            layout.truths.append(
                Area(
                    keyword: keyword, kind: p.width == 1 ? "block" : "frontage", polygons: [[polygon]], count: p.count,
                    properties: properties))
        }
        return layout
    }
}
