import Foundation
import XCTest

@testable import RegionSearchCore

/// ``OutputCollision``: an output is refused when it is an input (by path, symbolic link or hard
/// link) or another output; devices may take several outputs.
final class OutputCollisionTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "output-collision-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/in.csv", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/soft.csv", withDestinationPath: dir + "/in.csv")
        try FileManager.default.linkItem(atPath: dir + "/in.csv", toPath: dir + "/hard.csv")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private func message(_ outputs: [String], inputs: [String] = []) -> String? {
        do {
            try OutputCollision.check(
                outputs: outputs.enumerated().map { ("output \($0.offset + 1)", $0.element) },
                inputs: inputs.enumerated().map { ("input \($0.offset + 1)", $0.element) })
            return nil
        } catch {
            return error.message
        }
    }

    func testOutputsNamingAnInputOrEachOtherAreRefused() {
        let input = dir + "/in.csv"
        for spelling in [input, dir + "/soft.csv", dir + "/hard.csv", dir + "/./in.csv"] {
            XCTAssertTrue(message([spelling], inputs: [input])?.contains("is input 1") ?? false, spelling)
        }
        // Two outputs on one path that does not exist yet, or on one existing file.
        XCTAssertTrue(message([dir + "/o.rsa", dir + "/o.rsa"])?.contains("both name") ?? false)
        XCTAssertTrue(message([dir + "/hard.csv", dir + "/soft.csv"])?.contains("both name") ?? false)
        // Distinct files, and devices taking several outputs, are fine.
        XCTAssertNil(message([dir + "/o.rsa", dir + "/p.rsa"], inputs: [input]))
        XCTAssertNil(message(["/dev/null", "/dev/null"], inputs: [input]))
    }
}
