import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// ``ByteWindow``, the sliding window under the delimited, GeoJSON and OSM XML readers.
final class ByteWindowTests: XCTestCase {
    let scratch = IngestScratch()

    /// Whatever the reader keeps, the window holds the input bytes `base..<base + end`: what it
    /// keeps stays, what it drops goes, and it doubles only when the kept bytes fill it.
    func testRefillKeepsFromTheGivenPointAndTracksTheOffset() throws {
        var rng = SeededRandom(seed: 5)
        let input = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let path = scratch.write(input)
        for capacity in [1, 3, 64, 1 << 20] {
            var w = ByteWindow(reader: try ByteReader(path: path), capacity: capacity)
            defer { w.deallocate() }
            XCTAssertEqual(w.end, 0)
            var steps = 0
            while !w.atEOF {
                steps += 1
                // Consume a random part of what is there; keep a random part of that.
                w.pos = Int.random(in: w.pos...w.end, using: &rng)
                let keep = Int.random(in: 0...w.pos, using: &rng)
                let keptAbs = w.base + UInt64(keep)
                let posAbs = w.absolutePosition
                let before = (w.capacity, w.end - keep)
                let n = try w.refill(keepingFrom: keep)
                XCTAssertEqual(w.base, keptAbs, "the kept bytes move to the front")
                XCTAssertEqual(w.absolutePosition, posAbs, "pos moves with the bytes")
                XCTAssertEqual(w.capacity, before.1 == before.0 ? before.0 * 2 : before.0, "doubles only when full")
                XCTAssertEqual(w.end, before.1 + n)
                XCTAssertEqual(n == 0, w.atEOF)
                XCTAssertEqual(
                    Array(UnsafeBufferPointer(start: w.bytes, count: w.end)),
                    Array(input[Int(w.base)..<Int(w.base) + w.end]))
                if steps > 100_000 { return XCTFail("no end of input") }
            }
            // At the end of the input nothing moves any more.
            let (base, end) = (w.base, w.end)
            XCTAssertEqual(try w.refill(), 0)
            XCTAssertEqual(w.base, base)
            XCTAssertEqual(w.end, end)
        }
    }

    func testContentsWindowIsAtTheEndFromTheStart() throws {
        var w = ByteWindow(contents: Array("\u{FEFF}a\nb\n\nc".utf8))
        defer { w.deallocate() }
        XCTAssertTrue(w.atEOF)
        XCTAssertEqual(w.end, 9)
        XCTAssertTrue(w.startsWithByteOrderMark)
        XCTAssertEqual(w.newlines(from: 0, to: w.end), 3)
        XCTAssertEqual(w.newlines(from: 5, to: 8), 2)
        XCTAssertEqual(w.newlines(from: 4, to: 4), 0)
        XCTAssertEqual(w.text(from: 3, to: 6), "a\nb")
        w.pos = 4
        XCTAssertEqual(try w.refill(), 0)
        XCTAssertEqual(w.base, 0, "nothing is dropped once the input has ended")
        XCTAssertEqual(w.pos, 4)
        var empty = ByteWindow(contents: [])
        defer { empty.deallocate() }
        XCTAssertEqual(empty.end, 0)
        XCTAssertFalse(empty.startsWithByteOrderMark)
        XCTAssertEqual(try empty.refill(), 0)
    }

    /// A byte-order mark counts only at the start of the input, and only when whole.
    func testByteOrderMarkOnlyAtTheStart() throws {
        let path = scratch.write([0xEF, 0xBB, 0xBF] + Array("xyz".utf8) + [0xEF, 0xBB, 0xBF, 0x41])
        var w = ByteWindow(reader: try ByteReader(path: path), capacity: 4)
        defer { w.deallocate() }
        try w.refill()
        XCTAssertTrue(w.startsWithByteOrderMark)
        w.pos = 4
        try w.refill()
        XCTAssertEqual(w.base, 4)
        w.pos = 2
        try w.refill()
        XCTAssertEqual(w.base, 6)
        XCTAssertEqual(w.bytes[0], 0xEF)
        XCTAssertFalse(w.startsWithByteOrderMark)
        let short = scratch.write([0xEF, 0xBB])
        var s = ByteWindow(reader: try ByteReader(path: short), capacity: 16)
        defer { s.deallocate() }
        try s.refill()
        XCTAssertFalse(s.startsWithByteOrderMark)
    }

    /// A named pipe is opened without blocking and read when its writer, slower than the wait
    /// for it, writes; a pipe with a writer reads its bytes.
    func testANamedPipeIsOpenedWithoutWaitingForAWriter() throws {
        let fifo = TestSupport.temporaryDirectory() + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        ReadOpening.writerWait = 0.2
        defer { ReadOpening.writerWait = 10 }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.8)
            let fd = open(fifo, O_WRONLY)
            _ = write(fd, "late", 4)
            close(fd)
        }
        let late = TestSupport.finishing(within: 20) {
            (try? ByteReader(path: fifo).readAll()).map { String(decoding: $0, as: UTF8.self) } ?? "failed"
        }
        XCTAssertEqual(late, "late")
        // A pipe with what its writer wrote (`<(…)`, a pipe's /dev/fd path) reads it.
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        XCTAssertEqual(write(ends[1], "hello", 5), 5)
        close(ends[1])
        let path = "/dev/fd/\(ends[0])"
        let written = TestSupport.finishing(within: 20) {
            (try? ByteReader(path: path).readAll()).map { String(decoding: $0, as: UTF8.self) } ?? "failed"
        }
        XCTAssertEqual(written, "hello")
    }
}
