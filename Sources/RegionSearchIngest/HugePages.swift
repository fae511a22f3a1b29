import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Asks Linux for transparent huge pages on large, randomly accessed buffers (where the
/// system's policy is "madvise"). Only a hint: nothing changes but speed.
enum HugePages {
    static let size = 2 << 20

    static func advise(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        guard bytes >= 2 * size else { return }
        let start = (Int(bitPattern: pointer) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: pointer) + bytes) & ~(size - 1)
        guard end > start, let p = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(p, end - start, MADV_HUGEPAGE)
    }

    /// Reserves room for `capacity` elements and advises huge pages for the (still untouched)
    /// new storage, so that filling a large column costs few page faults. Returns the untouched
    /// part (for ``Prefault``).
    @discardableResult
    static func reserve<T>(_ array: inout [T], _ capacity: Int) -> Prefault.Region? {
        array.reserveCapacity(capacity)
        let bytes = array.capacity * MemoryLayout<T>.stride
        let used = array.count * MemoryLayout<T>.stride
        return array.withUnsafeMutableBufferPointer { b -> Prefault.Region? in
            guard let base = b.baseAddress else { return nil }
            advise(UnsafeMutableRawPointer(base), bytes: bytes)
            return Prefault.Region(start: UnsafeMutableRawPointer(base) + used, bytes: bytes - used)
        }
    }
}

/// Faults in reserved, still untouched memory on a helper thread, so that the thread that fills
/// it later finds its pages present. A first touch is the dearest part of filling a fresh column
/// on this kind of machine (zeroing the page and, on a VM, having the host back it: 28–33 % of the
/// ingest of 1M POIs in the building thread), while the reading thread leaves a core half idle.
///
/// `madvise(MADV_POPULATE_WRITE)` (Linux ≥ 5.14) faults pages in as a write would, without
/// storing anything: pages the builder has meanwhile filled keep their contents, so racing it is
/// harmless; elsewhere the call fails and nothing changes but speed.
enum Prefault {
    /// A range of memory to fault in; valid as long as the buffer it lies in.
    struct Region: @unchecked Sendable {
        var start: UnsafeMutableRawPointer
        var bytes: Int
    }

    /// Starts a detached thread that faults in `regions`, in order, in 2 MiB steps. The buffers
    /// must outlive it or stay mapped (a freed buffer's range is faulted in as plain heap).
    static func start(_ regions: [Region]) {
        let work = regions.filter { $0.bytes >= 1 << 20 }
        guard !work.isEmpty else { return }
        let thread = Thread {
            for r in work {
                var offset = 0
                while offset < r.bytes {
                    let n = min(HugePages.size, r.bytes - offset)
                    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
                    let start = (Int(bitPattern: r.start) + offset) / page * page
                    let end = Int(bitPattern: r.start) + offset + n
                    if let p = UnsafeMutableRawPointer(bitPattern: start) {
                        if madvise(p, end - start, MADV_POPULATE_WRITE) != 0 { return }
                    }
                    offset += n
                }
            }
        }
        thread.start()
    }
}
