/// Disjoint sets over 0..<n with path halving, where a union makes the smaller root the root of
/// both: each set's root is its smallest member, so what is built from roots does not depend on
/// the order of the unions (deterministic output wherever sets are numbered by their roots).
public struct UnionFind: Sendable {
    private var parent: [Int32]

    public init(count: Int) { parent = Array(0..<Int32(count)) }

    /// The root of `v`'s set: its smallest member.
    public mutating func find(_ v: Int32) -> Int32 {
        var v = v
        while parent[Int(v)] != v {
            parent[Int(v)] = parent[Int(parent[Int(v)])]
            v = parent[Int(v)]
        }
        return v
    }

    /// Joins the sets of `a` and `b`; the root both then have, and whether they were apart.
    @discardableResult
    public mutating func union(_ a: Int32, _ b: Int32) -> (root: Int32, joined: Bool) {
        let (ra, rb) = (find(a), find(b))
        guard ra != rb else { return (ra, false) }
        parent[Int(max(ra, rb))] = min(ra, rb)
        return (min(ra, rb), true)
    }
}
