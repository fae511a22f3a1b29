#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks Linux for transparent huge pages on large, randomly accessed buffers (where the
/// system's policy is "madvise"). Only a hint: nothing changes but speed (macOS has no
/// MADV_HUGEPAGE: nothing is asked there).
enum HugePages {
    static let size = 2 << 20

    static func advise(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        #if os(Linux)
            guard bytes >= 2 * size else { return }
            let start = (Int(bitPattern: pointer) + size - 1) & ~(size - 1)
            let end = (Int(bitPattern: pointer) + bytes) & ~(size - 1)
            guard end > start, let p = UnsafeMutableRawPointer(bitPattern: start) else { return }
            _ = madvise(p, end - start, MADV_HUGEPAGE)
        #endif
    }

    /// Reserves room for `capacity` elements and advises huge pages for the (still untouched)
    /// new storage, so that filling a large column costs few page faults.
    static func reserve<T>(_ array: inout [T], _ capacity: Int) {
        array.reserveCapacity(capacity)
        let bytes = array.capacity * MemoryLayout<T>.stride
        array.withUnsafeMutableBufferPointer { b in
            if let base = b.baseAddress { advise(UnsafeMutableRawPointer(base), bytes: bytes) }
        }
    }
}
