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

    /// Index of `id` in ``ids``, or nil. Amortised O(1) for ascending queries (a merge walk, as
    /// node ids in sorted files ascend); falls back to binary search when ids go back.
    @inline(__always)
    mutating func index(of id: Int64) -> Int? {
        if id < lastQuery { cursor = lowerBound(id) }
        lastQuery = id
        let n = ids.count
        while cursor < n && ids[cursor] < id { cursor += 1 }
        return cursor < n && ids[cursor] == id ? cursor : nil
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
