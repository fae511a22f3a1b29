/// POIs sorted by longitude, so a region only tests the POIs within its longitude span.
struct PointIndex {
    private let order: [Int]
    private let sortedLon: [Double]

    init(lon: [Double]) {
        order = lon.indices.sorted { lon[$0] < lon[$1] || (lon[$0] == lon[$1] && $0 < $1) }
        sortedLon = order.map { lon[$0] }
    }

    /// Calls `body` with every POI whose longitude is in [west, east].
    func forEach(west: Double, east: Double, _ body: (Int) -> Void) {
        var lo = 0
        var hi = sortedLon.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sortedLon[mid] < west { lo = mid + 1 } else { hi = mid }
        }
        var i = lo
        while i < sortedLon.count && sortedLon[i] <= east {
            body(order[i])
            i += 1
        }
    }
}
