import RegionSearchCore

/// Dense regions, the output of `regions` and the `regions` artifact.
///
/// One row per region, grouped by keyword and ordered by rank within the keyword. Columns:
/// `keyword` (u32, index into `metadata.keywords`), `rank` (u32, 1 = strongest), counts
/// `n_pois` (members), `n_keyword` (matching members), `n_footprint` / `n_footprint_keyword`
/// (all / matching POIs inside the hull of the matching members — what the significance test
/// counts), scores `score_sum`, `score_mean`, `score_max` (Zhou's F over members), `share` and
/// `lift` (matching share in the footprint, and that share over the keyword's base rate),
/// `p_value` and `q_value` (significance, see `Significance`), `area_m2` and `density` (POIs per
/// km²) of the matching members' convex hull in the projected CRS, `spacing_m` (median local POI
/// spacing of the matching members). Membership is CSR:
/// `member_offsets` (u64, regions + 1), `members` (u32, projected point indices, ascending) and
/// `member_match` (u8, 1 when the member matches the keyword). The edges that join the members
/// (the region's skeleton, which the hulls stage draws) are CSR too: `edge_offsets` (u64,
/// regions + 1) and `edges` (u32, two projected point indices per edge).
///
/// Regions nest: `level` (u32, 0 = coarsest) and `parent` (i32, the row of the enclosing region one
/// level up, −1 at level 0) — a region's members are a subset of its parent's — and `band_floor`
/// (f64, keyword POIs per km²: the density its members were cut at, the band it stands for). Rows
/// are ordered by keyword, then level, then rank, so a parent's row precedes its children's.
public struct RegionTable: Sendable {
    public struct Region: Sendable {
        public var keyword: Int
        public var rank: Int = 0
        /// 0 = the coarsest level; a region of level ℓ + 1 lies inside one of level ℓ.
        public var level: Int = 0
        /// Row of the enclosing region (one level up; for a street, its level-0 region), or −1.
        public var parent: Int = -1
        /// The keyword density (POIs per km²) its members were cut at: the floor of its band.
        public var bandFloor: Double = 0
        public var members: [UInt32]
        public var memberMatch: [UInt8]
        public var nFootprint: Int = 0
        public var nFootprintKeyword: Int = 0
        public var scoreSum: Double = 0
        public var scoreMean: Double = 0
        public var scoreMax: Double = 0
        public var share: Double = 0
        public var lift: Double = 0
        public var pValue: Double = 1
        public var qValue: Double = 1
        public var areaM2: Double = 0
        public var density: Double = 0
        /// Median spacing of the members, metres (the measure's own notion: nearest keyword POI for
        /// the density and lift measures, local POI spacing for DBSCAN).
        public var spacing: Double = 0
        /// Edges between members (projected point indices), each once: what joins the region.
        public var edges: [(UInt32, UInt32)] = []

        public init(keyword: Int, members: [UInt32], memberMatch: [UInt8]) {
            self.keyword = keyword
            self.members = members
            self.memberMatch = memberMatch
        }

        public var nPOIs: Int { members.count }
        public var nKeyword: Int { memberMatch.reduce(0) { $0 + Int($1 & 1) } }

        /// Flag bits of `memberMatch`.
        public static let matchesFlag: UInt8 = 1
        public static let shapeFlag: UInt8 = 2

        /// Members whose position defines the polygon: shape members, else matching members,
        /// else all members.
        public var shapeMembers: [UInt32] {
            let shape = zip(members, memberMatch).filter { $0.1 & Self.shapeFlag != 0 }.map { $0.0 }
            if !shape.isEmpty { return shape }
            let matching = zip(members, memberMatch).filter { $0.1 & Self.matchesFlag != 0 }.map { $0.0 }
            return matching.isEmpty ? members : matching
        }
    }

    public var regions: [Region]

    public init(regions: [Region]) { self.regions = regions }

    public init(artifact: ArtifactFile) throws(ArtifactError) {
        let r = artifact.rowCount
        let keyword: [UInt32] = try artifact.array("keyword", count: r)
        let rank: [UInt32] = try artifact.array("rank", count: r)
        let level: [UInt32] = try artifact.array("level", count: r)
        let parent: [Int32] = try artifact.array("parent", count: r)
        let bandFloor: [Double] = try artifact.array("band_floor", count: r)
        let nFoot: [UInt32] = try artifact.array("n_footprint", count: r)
        let nFootK: [UInt32] = try artifact.array("n_footprint_keyword", count: r)
        let doubles = try [
            "score_sum", "score_mean", "score_max", "share", "lift", "p_value", "q_value", "area_m2", "density",
            "spacing_m",
        ]
        .map { (name) throws(ArtifactError) -> [Double] in try artifact.array(name, as: Double.self, count: r) }
        let offsets: [UInt64] = try artifact.array("member_offsets", count: r + 1)
        let edgeOffsets: [UInt64] = try artifact.array("edge_offsets", count: r + 1)
        let edgeList: [UInt32] = try artifact.array("edges")
        guard edgeOffsets.first == 0, edgeOffsets.last.map({ 2 * Int($0) }) == edgeList.count else {
            throw ArtifactError.malformed(path: artifact.path, detail: "edge offsets do not match the edge count")
        }
        let members: [UInt32] = try artifact.array("members")
        let match: [UInt8] = try artifact.array("member_match", count: members.count)
        guard offsets.first == 0, offsets.last.map({ Int($0) }) == members.count else {
            throw ArtifactError.malformed(path: artifact.path, detail: "member offsets do not match the member count")
        }
        var out: [Region] = []
        for i in 0..<r {
            guard offsets[i] <= offsets[i + 1] else {
                throw ArtifactError.malformed(path: artifact.path, detail: "member offsets decrease at region \(i)")
            }
            let range = Int(offsets[i])..<Int(offsets[i + 1])
            var reg = Region(keyword: Int(keyword[i]), members: Array(members[range]), memberMatch: Array(match[range]))
            reg.rank = Int(rank[i])
            reg.level = Int(level[i])
            guard parent[i] >= -1, Int(parent[i]) < i else {
                throw ArtifactError.malformed(
                    path: artifact.path, detail: "region \(i) names parent \(parent[i]), which does not precede it")
            }
            reg.parent = Int(parent[i])
            reg.bandFloor = bandFloor[i]
            reg.nFootprint = Int(nFoot[i])
            reg.nFootprintKeyword = Int(nFootK[i])
            reg.scoreSum = doubles[0][i]
            reg.scoreMean = doubles[1][i]
            reg.scoreMax = doubles[2][i]
            reg.share = doubles[3][i]
            reg.lift = doubles[4][i]
            reg.pValue = doubles[5][i]
            reg.qValue = doubles[6][i]
            reg.areaM2 = doubles[7][i]
            reg.density = doubles[8][i]
            reg.spacing = doubles[9][i]
            guard edgeOffsets[i] <= edgeOffsets[i + 1] else {
                throw ArtifactError.malformed(path: artifact.path, detail: "edge offsets decrease at region \(i)")
            }
            reg.edges = (Int(edgeOffsets[i])..<Int(edgeOffsets[i + 1])).map { (edgeList[2 * $0], edgeList[2 * $0 + 1]) }
            out.append(reg)
        }
        regions = out
    }

    public func writer(metadata: JSONValue) -> ArtifactWriter {
        var w = ArtifactWriter(kind: .regions, rowCount: regions.count, metadata: metadata)
        w.add("keyword", regions.map { UInt32($0.keyword) })
        w.add("rank", regions.map { UInt32($0.rank) })
        w.add("level", regions.map { UInt32($0.level) })
        w.add("parent", regions.map { Int32($0.parent) })
        w.add("band_floor", regions.map { $0.bandFloor })
        w.add("n_pois", regions.map { UInt32($0.nPOIs) })
        w.add("n_keyword", regions.map { UInt32($0.nKeyword) })
        w.add("n_footprint", regions.map { UInt32($0.nFootprint) })
        w.add("n_footprint_keyword", regions.map { UInt32($0.nFootprintKeyword) })
        w.add("score_sum", regions.map { $0.scoreSum })
        w.add("score_mean", regions.map { $0.scoreMean })
        w.add("score_max", regions.map { $0.scoreMax })
        w.add("share", regions.map { $0.share })
        w.add("lift", regions.map { $0.lift })
        w.add("p_value", regions.map { $0.pValue })
        w.add("q_value", regions.map { $0.qValue })
        w.add("area_m2", regions.map { $0.areaM2 })
        w.add("density", regions.map { $0.density })
        w.add("spacing_m", regions.map { $0.spacing })
        var offsets: [UInt64] = [0]
        var members: [UInt32] = []
        var match: [UInt8] = []
        for r in regions {
            members += r.members
            match += r.memberMatch
            offsets.append(UInt64(members.count))
        }
        w.add("member_offsets", offsets)
        w.add("members", members)
        w.add("member_match", match)
        var edgeOffsets: [UInt64] = [0]
        var edgeList: [UInt32] = []
        for r in regions {
            for (a, b) in r.edges { edgeList += [a, b] }
            edgeOffsets.append(UInt64(edgeList.count / 2))
        }
        w.add("edge_offsets", edgeOffsets)
        w.add("edges", edgeList)
        return w
    }
}
