import XCTest

@testable import RegionSearchCore
@testable import RegionSearchStages

/// What a gather says to rerun for a tile part that is not the one it expects.
final class TilePartCheckTests: XCTestCase {
    private func identity(_ stage: String, tile: Int, input: String = "a1") -> TileArtifacts.Identity {
        TileArtifacts.Identity(stage: stage, tile: tile, tiles: 4, nodes: 100, input: input, parameters: .object([]))
    }

    private func message(_ found: TileArtifacts.Identity, _ expected: TileArtifacts.Identity) -> String {
        do {
            try TileArtifacts.check(found, expected: expected, path: "p.rsa")
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testTheAdviceNamesTheStepThatMakesThePartRight() {
        XCTAssertEqual(message(identity("graph", tile: 2), identity("graph", tile: 2)), "")
        // A propagate part of another tile's number: its window is another tile's, which rerunning
        // the propagate tile would read again (the advice looped).
        let swapped = message(identity("propagate", tile: 1), identity("propagate", tile: 2))
        XCTAssertTrue(swapped.contains("rerun gather-graph (it writes the windows)"), swapped)
        let graph = message(identity("graph", tile: 1), identity("graph", tile: 2))
        XCTAssertTrue(graph.contains("rerun the tile jobs of this plan"), graph)
        let stale = message(identity("propagate", tile: 2, input: "b2"), identity("propagate", tile: 2))
        XCTAssertTrue(stale.contains("a graph made with other parameters is another input"), stale)
    }
}
