import XCTest

@testable import RegionSearchCore

/// XXH64 (``XXHash64``) against the reference implementation.
final class XXHashTests: XCTestCase {
    private static let prime32: UInt64 = 2_654_435_761
    private static let prime64: UInt64 = 11_400_714_785_074_694_797
    /// ``ContentHasher``'s second seed, "RSHASH12".
    private static let contentSeed: UInt64 = 0x5253_4841_5348_3132

    /// The test buffer of xxHash's own sanity check (xsum_sanity_check.c): byte i is the top byte
    /// of PRIME32 · PRIME64^i (mod 2^64).
    private static func sanityBuffer(_ count: Int) -> [UInt8] {
        var generator = prime32
        return (0..<count).map { _ in
            defer { generator = generator &* prime64 }
            return UInt8(generator >> 56)
        }
    }

    /// (length, seed 0, seed PRIME32, seed "RSHASH12") over the sanity buffer's first bytes.
    ///
    /// Computed with the reference C implementation through PyPI's `xxhash` 4.1.0 (libxxhash
    /// 0.8.4): `xxhash.xxh64(buf[:n], seed=s).intdigest()`. The rows for 0, 1, 4, 14 and 222 bytes
    /// are also the values xxHash's sanity check lists. Lengths cover the tail paths (1-byte,
    /// 4-byte and 8-byte steps), one short of a 32-byte stripe, exactly one stripe, one past it,
    /// two stripes and several.
    private static let vectors: [(Int, UInt64, UInt64, UInt64)] = [
        (0, 0xEF46_DB37_51D8_E999, 0xAC75_FDA2_929B_17EF, 0x9A90_2F0C_BC05_27F7),
        (1, 0xE934_A84A_DB05_2768, 0x5014_6076_43A9_B4C3, 0x87E1_2627_98B0_B668),
        (3, 0xFF7E_1959_CB50_794A, 0xAA85_84E8_3660_F7D1, 0x7025_AD59_8090_5E67),
        (4, 0x9136_A0DC_A574_57EE, 0xCAAB_286B_D8E9_FDB5, 0x8D32_3DD1_D146_A32A),
        (8, 0xCDBC_F538_E71D_1348, 0xFE0C_047A_5353_CDAC, 0xDCB7_4FD6_0C34_76EE),
        (14, 0x8282_DCC4_994E_35C8, 0xC3BD_6BF6_3DEB_6DF0, 0x5A6E_EF10_370E_D85C),
        (31, 0x299B_39A2_90E6_D783, 0xDA67_3D5F_EB5C_1D79, 0x07D5_416E_0C0D_BC68),
        (32, 0x18B2_1649_2BB4_4B70, 0xB3F3_3BDF_93AD_E409, 0xE587_0D59_A87D_A2C1),
        (33, 0x55C8_DC3E_578F_5B59, 0xE92C_292F_64BC_3071, 0x51B1_E097_A9F1_6137),
        (63, 0xA9EF_BE0F_A0F3_F4E7, 0x6C91_1FAD_B05B_6FC2, 0x7C37_3F68_C98E_E88D),
        (64, 0xEF55_8F8A_CAC2_B5CD, 0xB5EE_BA99_264C_C44F, 0xF600_BE14_19EA_1003),
        (65, 0xDE0F_20DC_2631_AF7A, 0xD3F6_FF39_41E3_10CA, 0xC8D4_6DD6_A1D0_3925),
        (100, 0x4BFE_019C_D91D_9EA4, 0x4853_706D_C962_5CAE, 0x8572_3A25_69A6_977C),
        (222, 0xB641_AE8C_B691_C174, 0x20CB_8AB7_AE10_C14A, 0x1D48_603A_B711_0C9D),
        (1000, 0x52BD_1358_F22E_9EF7, 0x7275_1A24_0801_7E26, 0x57CC_B990_0678_1933),
    ]

    func testReferenceVectors() {
        let buffer = Self.sanityBuffer(1000)
        XCTAssertEqual(
            Array(buffer.prefix(4)), [0x00, 0x52, 0x92, 0x9B], "the buffer the reference values were computed on")
        for (n, h0, hPrime, hContent) in Self.vectors {
            buffer.withUnsafeBytes { all in
                let b = UnsafeRawBufferPointer(rebasing: all[0..<n])
                XCTAssertEqual(XXHash64.hash(b), h0, "\(n) bytes, seed 0")
                XCTAssertEqual(XXHash64.hash(b, seed: Self.prime32), hPrime, "\(n) bytes, seed PRIME32")
                XCTAssertEqual(XXHash64.hash(b, seed: Self.contentSeed), hContent, "\(n) bytes, seed RSHASH12")
            }
        }
        XCTAssertEqual(XXHash64.hash(UnsafeRawBufferPointer(start: nil, count: 0)), 0xEF46_DB37_51D8_E999)
        XCTAssertEqual(Array("abc".utf8).withUnsafeBytes { XXHash64.hash($0) }, 0x44BC_2CF5_AD77_0999)
    }

    /// Fed in pieces of any size (each length split at random points, pieces of 0 bytes too), the
    /// streaming hash gives the one-shot value.
    func testStreamingInPiecesGivesTheSameHash() {
        let buffer = Self.sanityBuffer(1000)
        var rng = SeededRandom(seed: 3)
        for (n, h0, hPrime, _) in Self.vectors {
            for seed in [UInt64(0), Self.prime32] {
                var h = XXHash64(seed: seed)
                var at = 0
                while at < n {
                    let take = min(n - at, Int.random(in: 0...40, using: &rng))
                    buffer.withUnsafeBytes { h.update(UnsafeRawBufferPointer(rebasing: $0[at..<at + take])) }
                    at += take
                }
                XCTAssertEqual(h.finalize(), seed == 0 ? h0 : hPrime, "\(n) bytes in pieces, seed \(seed)")
                XCTAssertEqual(h.finalize(), seed == 0 ? h0 : hPrime, "finalize does not consume the state")
            }
        }
    }

    /// `update(String)` feeds the UTF-8 bytes, `update(UInt64)` eight little-endian bytes.
    func testStringAndIntegerUpdates() {
        var a = XXHash64()
        a.update("abc")
        XCTAssertEqual(a.finalize(), 0x44BC_2CF5_AD77_0999)
        var b = XXHash64()
        b.update(UInt64(0x0807_0605_0403_0201))
        XCTAssertEqual(b.finalize(), [UInt8](1...8).withUnsafeBytes { XXHash64.hash($0) })
    }

    /// The two lanes hashed on two threads give the content hash one thread gives, for buffers
    /// of every size around the parallel threshold and stripe, in pieces as the runner reads them.
    func testLanesInParallelGiveTheSameContentHash() {
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<(5 << 20)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        bytes.withUnsafeBytes { all in
            for pieces in [[1 << 20], [(1 << 20) - 1, 1, 33, 3 << 20], [5 << 20], [7, (1 << 20) + 5, (4 << 20) - 12]] {
                var serial = ContentHasher()
                var offset = 0
                for size in pieces {
                    serial.update(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + size)]))
                    offset += size
                }
                for threads in [1, 2, 3] {
                    Parallel.threadCount = threads
                    var parallel = ContentHasher()
                    offset = 0
                    for size in pieces {
                        parallel.updateLanesInParallel(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + size)]))
                        offset += size
                    }
                    XCTAssertEqual(parallel.finalize(), serial.finalize(), "\(pieces), \(threads) threads")
                }
            }
        }
    }
}
