import XCTest

@testable import RegionSearchCore

/// The progress line: percentage and time left from the rate so far.
final class ProgressLineTests: XCTestCase {
    func testLineGivesPercentAndTimeLeft() {
        let (text, eta) = ProgressReporter.line(label: "ingest", message: "12 MB", fraction: 0.25, elapsed: 10)
        XCTAssertEqual(text, "ingest: 12 MB — 25%, about 30 s left (10.0 s)")
        XCTAssertEqual(eta, 30)
        XCTAssertEqual(ProgressReporter.line(label: "x", message: "m", fraction: nil, elapsed: 2).0, "x: m (2.0 s)")
        XCTAssertEqual(ProgressReporter.duration(185), "3 min 5 s")
        XCTAssertEqual(ProgressReporter.duration(7_800), "2 h 10 min")
    }
}
