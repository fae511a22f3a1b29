/// Membership test for the sorted, unique node ids that POI ways need.
///
/// A value type so each block decoder (possibly on its own thread) has its own cursor over the
/// shared, read-only id array.
struct OSMNodeLookup {
    let ids: [Int64]
    private var cursor = 0
    private var lastQuery = Int64.min

    init(ids: [Int64]) { self.ids = ids }

    var isEmpty: Bool { ids.isEmpty }

    /// Index of `id` in ``ids``, or nil. For ascending queries (node ids in sorted files ascend)
    /// the cursor gallops forward, so a block costs O(its nodes + log(needed ids)) however far
    /// into the id list it starts; ids that go back fall back to binary search.
    @inline(__always)
    mutating func index(of id: Int64) -> Int? {
        let n = ids.count
        if id < lastQuery {
            cursor = lowerBound(id)
        } else if cursor < n && ids[cursor] < id {
            advance(to: id)
        }
        lastQuery = id
        return cursor < n && ids[cursor] == id ? cursor : nil
    }

    /// Moves the cursor to the first id ≥ `id` (given `ids[cursor] < id`): doubling steps, then
    /// binary search within the last step.
    private mutating func advance(to id: Int64) {
        let n = ids.count
        var below = cursor
        var step = 1
        var probe = cursor + 1
        while probe < n && ids[probe] < id {
            below = probe
            step *= 2
            probe = below + step
        }
        var lo = below + 1
        var hi = min(probe, n)
        while lo < hi {
            let mid = (lo + hi) / 2
            if ids[mid] < id { lo = mid + 1 } else { hi = mid }
        }
        cursor = lo
    }

    /// Whether any id lies in `lo...hi` (lets readers skip whole blocks).
    func containsAny(_ lo: Int64, _ hi: Int64) -> Bool {
        let i = lowerBound(lo)
        return i < ids.count && ids[i] <= hi
    }

    /// First index whose id is ≥ `id`.
    func lowerBound(_ id: Int64) -> Int {
        var lo = 0
        var hi = ids.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ids[mid] < id { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
