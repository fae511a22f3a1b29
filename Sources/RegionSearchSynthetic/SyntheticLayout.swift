/// A synthetic city before it is shuffled and projected: POIs in the local plane (metres from
/// the centre) with category, name and planted cluster (-1 for background), and the truth and
/// must-not areas.
struct SyntheticLayout {
    var x: [Double] = []
    var y: [Double] = []
    var category: [String] = []
    var name: [String] = []
    var cluster: [Int] = []
    var truths: [SyntheticCity.Area] = []
    var mustNot: [SyntheticCity.Area] = []

    var count: Int { x.count }

    mutating func append(x px: Double, y py: Double, category c: String, name n: String, cluster k: Int) {
        x.append(px)
        y.append(py)
        category.append(c)
        name.append(n)
        cluster.append(k)
    }
}
