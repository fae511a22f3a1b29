import RegionSearchCore
import RegionSearchModel
import RegionSearchOutput
import RegionSearchProjection

/// Scores region polygons against ground truth and compares two region files, with the metric
/// definitions of the Python reference's `evaluate.py` (see docs/EVALUATE.md), measured with GEOS
/// in a metric CRS (areas in m²).
///
/// Keyword rule: a region and a truth (or two regions) are paired only when they carry the same
/// `keyword` property. A feature without keyword is a wildcard that pairs with every keyword.
///
/// Not thread-safe (one GEOS and one PROJ context per call); independent calls may run in parallel.
public struct Evaluator: Sendable {
    /// IoU thresholds for recall@t, precision@t and F1@t.
    public var thresholds: [Double]
    /// A CRS definition to measure in; nil chooses one from the extent (``CRSChoice/automatic(for:)``)
    /// of the truth file (truth mode) or of A (compare mode).
    public var crs: String?
    /// The IoU a pair of regions needs to be matched one-to-one in compare mode.
    public var matchThreshold: Double
    /// Region checks (spacing, empty share, area) and member recall in truth mode, with these
    /// thresholds; nil leaves them out (the report then has evaluate.py's metrics only).
    public var checks: CheckOptions?
    /// Land closer than this many metres to a river's water is not one of its banks
    /// (``RiverSpans``): a region's margin that reaches into the water, or across it by less than
    /// this, does not span the river.
    public var riverTolerance: Double

    public init(
        thresholds: [Double] = [0.3, 0.5], crs: String? = nil, matchThreshold: Double = 0.5,
        checks: CheckOptions? = nil,
        riverTolerance: Double = RiverSpans.defaultTolerance
    ) {
        self.thresholds = thresholds
        self.crs = crs
        self.matchThreshold = matchThreshold
        self.checks = checks
        self.riverTolerance = riverTolerance
    }

    /// The region checks, measured where distances are true: in `choice` when it is local (UTM, a
    /// CRS given with `--crs`), otherwise region by region in an azimuthal equal-area frame
    /// centred on the region. An equal-area world projection keeps areas but shears distances far
    /// from its centre, so its discs are ellipses on the ground: an Alaskan seaplane-base region
    /// in Equal Earth centred at 154° E measured 22 % empty, in its own frame 0.4 %.
    package static func regionChecks(
        _ regionFile: RegionFeatureFile, items: [EvaluationLayer.Item], located: LocatedPOIs, choice: CRSChoice,
        options: CheckOptions, geos: GEOSContext, proj: PROJContext
    ) throws -> [RegionCheck?] {
        if choice.isLocal {
            return try RegionCheck.check(regions: items, pois: located, options: options, context: geos)
        }
        var out: [RegionCheck?] = []
        for (feature, item) in zip(regionFile.features, items) {
            var single = regionFile
            single.features = [feature]
            let (lon, lat) = single.allCoordinates
            // Without a keyword there is nothing to check; without vertices nothing to measure.
            guard feature.keyword != nil, !lon.isEmpty else {
                out.append(try RegionCheck.check(regions: [item], pois: located, options: options, context: geos)[0])
                continue
            }
            let extent = lon.withUnsafeBufferPointer { lo in
                lat.withUnsafeBufferPointer { GeographicExtent(lon: lo, lat: $0) }
            }
            let centreLon = normalizeLongitude(extent.west + extent.width / 2)
            let centreLat = (extent.south + extent.north) / 2
            let frame = try proj.transformation(
                from: "EPSG:4326",
                to: "+proj=laea +lat_0=\(centreLat) +lon_0=\(centreLon) +datum=WGS84 +units=m +no_defs +type=crs")
            let layer = try EvaluationLayer(file: single, transform: frame, context: geos)
            let local = try LocatedPOIs(located.pois, transform: frame)
            out.append(try RegionCheck.check(regions: layer.items, pois: local, options: options, context: geos)[0])
        }
        return out
    }

    // MARK: - Truth mode

    /// Scores `regions` against `truth`; with `pois` and `members`, also at POI level.
    ///
    /// With ``checks`` set: with `pois`, every region's keyword POIs, spacing, empty share and
    /// density; with `pois` and `members`, member recall and fragmentation per truth item.
    /// With `mustNot`, the share of each keyword's region area in void and sparse areas.
    /// `keywords` adds report columns for keywords that may have neither truth nor region.
    public func scoreTruth(
        regions regionFile: RegionFeatureFile, truth truthFile: RegionFeatureFile, pois: EvaluationPOIs? = nil,
        members: PlantedMembers? = nil, mustNot mustNotFile: RegionFeatureFile? = nil, keywords: [String] = []
    ) throws -> TruthScore {
        let geos = GEOSContext()
        let proj = PROJContext()
        if let mustNotFile { try MustNotShare.validate(mustNotFile) }
        let crsChoice = try chooseCRS([truthFile, regionFile] + (mustNotFile.map { [$0] } ?? []), proj: proj)
        let transform = try crsChoice.map { try proj.transformation(from: "EPSG:4326", to: $0.definition) }
        // Both files empty: nothing to project, every count is 0.
        let truthLayer = try transform.map { try EvaluationLayer(file: truthFile, transform: $0, context: geos) }
        let regionLayer = try transform.map { try EvaluationLayer(file: regionFile, transform: $0, context: geos) }
        let T = truthLayer?.items ?? []
        let R = regionLayer?.items ?? []
        var inputs = [
            truthLayer.map { EvaluationInput(role: "truth", layer: $0) }
                ?? EvaluationInput(role: "truth", unmeasured: truthFile),
            regionLayer.map { EvaluationInput(role: "regions", layer: $0) }
                ?? EvaluationInput(role: "regions", unmeasured: regionFile),
        ]
        var notes: [String] = []

        // Best IoU of every truth over compatible regions, and of every region over compatible truths.
        var truthBest = [Double](repeating: 0, count: T.count)
        var truthMatch = [Int?](repeating: nil, count: T.count)
        var regionBest = [Double](repeating: 0, count: R.count)
        // The same per level of the regions (truths) and per kind of the truths (regions).
        var truthBestByLevel = [[Int: Double]](repeating: [:], count: T.count)
        var regionBestByKind = [[String: Double]](repeating: [:], count: R.count)
        let scored = R.map { r in T.contains { Self.compatible($0.keyword, r.keyword) } }
        // Pairs whose envelopes do not meet have IoU 0, which changes no best value (an absent
        // level or kind reads as 0): they are passed over on plain envelopes, without touching
        // the items, whose geometries would be retained and released for every pair.
        let regionEnvelopes = R.map { $0.area > 0 ? $0.envelope : nil }
        let regionKeywords = R.map(\.keyword)
        for (i, t) in T.enumerated() {
            guard t.area > 0, let et = t.envelope else { continue }
            for j in R.indices where regionEnvelopes[j]?.intersects(et) == true {
                guard Self.compatible(t.keyword, regionKeywords[j]) else { continue }
                let r = R[j]
                let v = try Self.iou(t, r)
                if v > truthBest[i] {
                    truthBest[i] = v
                    truthMatch[i] = j
                }
                regionBest[j] = max(regionBest[j], v)
                truthBestByLevel[i][r.level] = max(truthBestByLevel[i][r.level] ?? 0, v)
                if let kind = t.kind { regionBestByKind[j][kind] = max(regionBestByKind[j][kind] ?? 0, v) }
            }
        }

        // Share of each scored region's area inside the union of its compatible truths: of the
        // truths whose envelopes meet the region's, as the others cannot overlap it. Intersecting
        // each region with the union of every truth clipped that whole union once per region:
        // 10,000 regions against 10,000 truths took 50 s, growing with the square of the count.
        var inside = [Double](repeating: 0, count: R.count)
        let truthEnvelopes = T.map { $0.area > 0 ? $0.envelope : nil }
        for (j, r) in R.enumerated() where scored[j] && r.area > 0 {
            guard let er = r.envelope else { continue }
            let near = T.indices.filter {
                truthEnvelopes[$0]?.intersects(er) == true && Self.compatible(T[$0].keyword, r.keyword)
            }.map { T[$0] }
            if near.isEmpty { continue }
            let u = near.count == 1 ? near[0].geometry : try geos.unionAll(near.map(\.geometry))
            inside[j] = try r.geometry.intersection(u).area / r.area
        }

        // POI level.
        var poiCounts: [String: TruthScore.POICounts]?
        var located: LocatedPOIs?
        if let pois, let transform {
            located = try LocatedPOIs(pois, transform: transform)
            inputs.append(located!.input)
        }
        if let located, let members {
            let planted = located.plantedFlags(members)
            var membersInput = EvaluationInput(role: "members", path: members.path, count: members.count)
            if planted.missing > 0 {
                membersInput.skipped = planted.missing
                membersInput.notes.append("\(planted.missing) member id(s) not found among the POIs")
            }
            inputs.append(membersInput)
            poiCounts = try Self.poiCounts(truths: T, regions: R, pois: located, planted: planted.flags, context: geos)
            notes.append(
                "POI keyword match: KeywordMatcher (NFKC + case fold, word boundaries outside CJK) on the POI's "
                    + "keyword text — "
                    + "the category column of a CSV, the keywords column of pois.rsa — not the name (evaluate.py: "
                    + "substring of name+category)"
            )
        }

        // Region checks and member recall.
        var checks = [RegionCheck?](repeating: nil, count: R.count)
        var outcomes = [MemberRecall.Outcome?](repeating: nil, count: T.count)
        if let options = self.checks, let located {
            checks = try Self.regionChecks(
                regionFile, items: R, located: located, choice: crsChoice!, options: options, geos: geos, proj: proj)
            let wildcards = R.filter { $0.keyword == nil }.count
            if wildcards > 0 {
                notes.append("\(wildcards) region(s) without keyword have no keyword POIs and are not checked")
            }
            let undefined = checks.compactMap { $0 }.filter { $0.emptyShare == nil && $0.area > 0 }.count
            if undefined > 0 {
                notes.append(
                    "\(undefined) region(s) have no empty share: their keyword has no more than "
                        + "\(options.spacingK) distinct locations, so its spacing is undefined")
            }
            if let members {
                let result = try MemberRecall.outcomes(
                    truths: T, regions: R, pois: located, members: members, options: options)
                outcomes = result.outcomes
                if !result.unknownClusters.isEmpty {
                    let shown = result.unknownClusters.prefix(5).joined(separator: ", ")
                    notes.append(
                        "\(result.unknownClusters.count) cluster id(s) of the members file name no truth feature "
                            + "(\(shown)\(result.unknownClusters.count > 5 ? ", …" : ""))")
                }
                // Member rows name a truth by its id: two truths of one id (two generator files
                // scored as one truth, both numbered from 0) each got the other's members.
                var seenIDs = Set<String>()
                var repeated: [String] = []
                for t in T {
                    let id = TruthScore.idText(t.id)
                    if !seenIDs.insert(id).inserted && !repeated.contains(id) { repeated.append(id) }
                }
                if !repeated.isEmpty {
                    let shown = repeated.prefix(5).joined(separator: ", ")
                    notes.append(
                        "\(repeated.count) truth id(s) name more than one truth feature (\(shown)"
                            + "\(repeated.count > 5 ? ", …" : "")): each of those features is scored with every member "
                            + "row of its id; give each truth feature its own cluster_id")
                }
                let empty = T.indices.filter { outcomes[$0]?.members == 0 }.count
                if empty > 0 {
                    notes.append(
                        "\(empty) truth item(s) have member rows but none of their ids is among the POIs; they are "
                            + "left out of member recall")
                }
            }
        }

        // Must-not areas, rivers and downtowns.
        var mustNotShares: [String: MustNotShare]?
        var mustNotItems: [EvaluationLayer.Item] = []
        var rivers: RiverSpans?
        var downtowns: DowntownCounts?
        if let mustNotFile, let transform {
            let layer = try EvaluationLayer(file: mustNotFile, transform: transform, context: geos)
            inputs.append(EvaluationInput(role: "must_not", layer: layer))
            mustNotItems = layer.items
            mustNotShares = try MustNotShare.shares(regions: R, mustNot: layer.items, context: geos)
            if layer.items.contains(where: RiverSpans.isRiver) {
                let box = layer.items.compactMap(\.envelope).reduce(nil) { $0?.union($1) ?? $1 }
                let domain =
                    located.map { $0.convexHull }
                    ?? box.map { ([$0.minX, $0.maxX, $0.maxX, $0.minX], [$0.minY, $0.minY, $0.maxY, $0.maxY]) }
                if let domain {
                    rivers = try RiverSpans.compute(
                        regions: R, mustNot: layer.items, domain: domain, tolerance: riverTolerance, context: geos)
                    let single = rivers!.banks.filter { $0 < 2 }.count
                    if single > 0 {
                        notes.append(
                            "\(single) river(s) do not cut the domain (the "
                                + "\(located == nil ? "bounding box of the must-not features" : "convex hull of the POIs")) "
                                + "into two banks: no region can span them")
                    }
                }
            }
            if layer.items.contains(where: DowntownCounts.isDowntown) {
                downtowns = try DowntownCounts.compute(regions: R, mustNot: layer.items, context: geos)
            }
        }

        func metrics(truths: [Int], regions: [Int], poi: TruthScore.POICounts?, mustNot: MustNotShare?)
            -> TruthScore.Metrics
        {
            let scoredRegions = regions.filter { scored[$0] }
            let nt = Double(truths.count)
            let nr = Double(scoredRegions.count)
            var recall: [Double] = []
            var precision: [Double] = []
            var f1: [Double] = []
            for t in thresholds {
                let r = truths.isEmpty ? 0 : Double(truths.filter { truthBest[$0] >= t }.count) / nt
                let p = scoredRegions.isEmpty ? 0 : Double(scoredRegions.filter { regionBest[$0] >= t }.count) / nr
                recall.append(r)
                precision.append(p)
                f1.append(r + p > 0 ? 2 * r * p / (r + p) : 0)
            }
            return TruthScore.Metrics(
                truthCount: truths.count, regionCount: regions.count, scoredRegionCount: scoredRegions.count,
                meanBestIoU: truths.isEmpty ? nil : truths.reduce(0) { $0 + truthBest[$1] } / nt,
                recall: recall, precision: precision, f1: f1,
                precisionInside: scoredRegions.isEmpty
                    ? 0 : Double(scoredRegions.filter { inside[$0] >= 0.5 }.count) / nr,
                poi: poi,
                members: members == nil || self.checks == nil || located == nil
                    ? nil
                    : truths.reduce(into: MemberRecall()) { m, i in if let o = outcomes[i] { m.add(o) } },
                regionChecks: self.checks.flatMap { options in
                    located == nil ? nil : RegionCheck.Summary(regions.compactMap { checks[$0] }, options: options)
                },
                mustNot: mustNot)
        }

        let labels = Set(T.map(\.keywordLabel) + R.map(\.keywordLabel) + keywords).sorted(by: codePointOrder)
        let overall = metrics(
            truths: Array(T.indices), regions: Array(R.indices),
            poi: poiCounts.map { counts in
                counts.keys.sorted(by: codePointOrder).reduce(TruthScore.POICounts()) { s, k in s + counts[k]! }
            },
            mustNot: mustNotShares.map { shares in
                shares.keys.sorted(by: codePointOrder).reduce(MustNotShare()) { s, k in s + shares[k]! }
            })
        let byKeyword = labels.map { label in
            (
                keyword: label,
                metrics: metrics(
                    truths: T.indices.filter { T[$0].keywordLabel == label },
                    regions: R.indices.filter { R[$0].keywordLabel == label },
                    poi: poiCounts.map { $0[label] ?? TruthScore.POICounts() },
                    mustNot: mustNotShares.map { $0[label] ?? MustNotShare() })
            )
        }
        let truths = T.indices.map { i in
            TruthScore.TruthMatch(
                truthID: T[i].id, keyword: T[i].keywordLabel, bestIoU: truthBest[i],
                regionID: truthMatch[i].map { R[$0].id },
                area: T[i].area, kind: T[i].kind, members: outcomes[i],
                memberRegionIDs: outcomes[i]?.regionCounts.map { R[$0.region].id } ?? [])
        }
        // Member recall per keyword and kind, when the truth has kinds.
        var memberGroups: [(label: String, recall: MemberRecall)] = []
        if T.contains(where: { $0.kind != nil }) && outcomes.contains(where: { $0 != nil }) {
            var groups: [String: MemberRecall] = [:]
            for i in T.indices {
                guard let o = outcomes[i] else { continue }
                groups[T[i].keywordLabel + "/" + (T[i].kind ?? "*"), default: MemberRecall()].add(o)
            }
            memberGroups = groups.keys.sorted(by: codePointOrder).map { ($0, groups[$0]!) }
        }

        // Levels: each level's regions alone against all truths; the best level per threshold.
        let levelValues = Set(R.map(\.level)).sorted()
        let scoredRegions = R.indices.filter { scored[$0] }
        let fit = LevelScore.fit(
            truths: Array(T.indices), regions: scoredRegions, levels: levelValues, thresholds: thresholds,
            truthBestByLevel: truthBestByLevel, regionBest: { regionBest[$0] }, regionLevel: { R[$0].level })
        let levels = fit.levels.map { f in
            let members = R.indices.filter { R[$0].level == f.level }
            var l = LevelScore(level: f.level)
            l.regionCount = members.count
            l.scoredRegionCount = f.scored
            l.recall = f.recall
            l.precision = f.precision
            l.f1 = f.f1
            l.regionsPerKeyword = labels.map { k in (k, members.filter { R[$0].keywordLabel == k }.count) }
            if let options = self.checks, located != nil {
                l.regionChecks = RegionCheck.Summary(members.compactMap { checks[$0] }, options: options)
            }
            l.spanningRivers = rivers?.spanning(members)
            return l
        }
        var levelScores = levels
        if mustNotShares != nil {
            for k in levelScores.indices {
                let level = levelScores[k].level
                let shares = try MustNotShare.shares(
                    regions: R.filter { $0.level == level }, mustNot: mustNotItems, context: geos)
                levelScores[k].mustNot = shares.keys.sorted(by: codePointOrder).reduce(MustNotShare()) {
                    $0 + shares[$1]!
                }
            }
        }

        // Kinds: the truths of each kind on their own.
        let kindLabels = Set(T.compactMap(\.kind)).sorted(by: codePointOrder)
        let kinds = kindLabels.map { kind -> KindScore in
            let truths = T.indices.filter { T[$0].kind == kind }
            let paired = R.indices.filter { j in truths.contains { Self.compatible(T[$0].keyword, R[j].keyword) } }
            let kindFit = LevelScore.fit(
                truths: truths, regions: paired, levels: levelValues, thresholds: thresholds,
                truthBestByLevel: truthBestByLevel, regionBest: { regionBestByKind[$0][kind] ?? 0 },
                regionLevel: { R[$0].level },
                matchesOther: { j, t in regionBest[j] >= t })
            var k = KindScore(kind: kind)
            k.truthCount = truths.count
            k.scoredRegionCount = paired.count
            k.recall = thresholds.map { t in Double(truths.filter { truthBest[$0] >= t }.count) / Double(truths.count) }
            k.bestLevelF1 = kindFit.bestF1
            k.bestLevel = kindFit.bestLevel
            if members != nil && self.checks != nil && located != nil {
                k.members = truths.reduce(into: MemberRecall()) { m, i in if let o = outcomes[i] { m.add(o) } }
            }
            return k
        }

        if T.isEmpty {
            notes.append("the truth file has no features: recall is reported as 0 and mean best IoU as null")
        }
        if overall.scoredRegionCount == 0 {
            notes.append(
                "no region has a same-keyword truth: precision@t and precision_inside are undefined and reported as 0")
        }
        let unscored = R.indices.filter { !scored[$0] }
        if !unscored.isEmpty {
            let kw = Set(unscored.map { R[$0].keywordLabel }).sorted(by: codePointOrder).joined(separator: ", ")
            notes.append(
                "\(unscored.count) region(s) with keyword(s) that have no truth (\(kw)) are left out of precision")
        }
        if T.contains(where: { $0.keyword == nil }) || R.contains(where: { $0.keyword == nil }) {
            notes.append("features without a keyword property are wildcards: they pair with every keyword")
        }
        var score = TruthScore(
            thresholds: thresholds, overall: overall, byKeyword: byKeyword, truths: truths, crs: crsChoice,
            inputs: inputs, notes: notes, checkOptions: located == nil ? nil : self.checks,
            regionChecks: checks.compactMap { $0 }, memberGroups: memberGroups)
        score.levels = levelScores
        score.bestLevelF1 = fit.bestF1
        score.bestLevel = fit.bestLevel
        score.kinds = kinds
        score.rivers = rivers
        score.riverSpans =
            rivers.map { r in
                R.indices.flatMap { j in
                    r.spans[j].map {
                        (regionID: R[j].id, keyword: R[j].keywordLabel, level: R[j].level, river: r.riverIDs[$0])
                    }
                }
            } ?? []
        score.downtowns = downtowns
        score.regionLevels = checks.indices.compactMap { checks[$0] == nil ? nil : R[$0].level }
        return score
    }

    // MARK: - Compare mode

    /// Compares region files `a` and `b` keyword by keyword; with `pois`, also the POIs inside.
    public func compare(_ aFile: RegionFeatureFile, _ bFile: RegionFeatureFile, pois: EvaluationPOIs? = nil) throws
        -> Comparison
    {
        let geos = GEOSContext()
        let proj = PROJContext()
        let crsChoice = try chooseCRS([aFile, bFile], proj: proj)
        let transform = try crsChoice.map { try proj.transformation(from: "EPSG:4326", to: $0.definition) }
        let aLayer = try transform.map { try EvaluationLayer(file: aFile, transform: $0, context: geos) }
        let bLayer = try transform.map { try EvaluationLayer(file: bFile, transform: $0, context: geos) }
        let A = aLayer?.items ?? []
        let B = bLayer?.items ?? []
        var inputs = [
            aLayer.map { EvaluationInput(role: "a", layer: $0) }
                ?? EvaluationInput(role: "a", unmeasured: aFile),
            bLayer.map { EvaluationInput(role: "b", layer: $0) }
                ?? EvaluationInput(role: "b", unmeasured: bFile),
        ]
        var notes: [String] = []
        var located: LocatedPOIs?
        if let pois, let transform {
            located = try LocatedPOIs(pois, transform: transform)
            inputs.append(located!.input)
        }

        // Keyword pairs as evaluate.py's pair(): a wildcard-only file against each keyword of the
        // other, otherwise same keyword with same keyword.
        let la = Set(A.map(\.keywordLabel)).sorted(by: codePointOrder)
        let lb = Set(B.map(\.keywordLabel)).sorted(by: codePointOrder)
        var pairs: [(String, String)]
        if (la == ["*"] && !lb.isEmpty) || (lb == ["*"] && !la.isEmpty) {
            pairs = la.flatMap { ka in lb.map { (ka, $0) } }
            notes.append("a file without keyword property is compared with every keyword of the other (labels a|b)")
        } else {
            pairs = Set(la + lb).sorted(by: codePointOrder).map { ($0, $0) }
        }

        var out: [Comparison.KeywordComparison] = []
        for (ka, kb) in pairs {
            let a = A.filter { $0.keywordLabel == ka }
            let b = B.filter { $0.keywordLabel == kb }
            let ua = try geos.unionAll(a.map(\.geometry))
            let ub = try geos.unionAll(b.map(\.geometry))
            let areaA = ua.area
            let areaB = ub.area
            var inter = 0.0
            if let ea = ua.envelope, let eb = ub.envelope, ea.intersects(eb) { inter = try ua.intersection(ub).area }
            let un = areaA + areaB - inter
            var rowBest = [Double](repeating: 0, count: a.count)
            var colBest = [Double](repeating: 0, count: b.count)
            var candidates: [(iou: Double, i: Int, j: Int)] = []
            for i in a.indices {
                for j in b.indices {
                    let v = try Self.iou(a[i], b[j])
                    rowBest[i] = max(rowBest[i], v)
                    colBest[j] = max(colBest[j], v)
                    if v >= matchThreshold && v > 0 { candidates.append((v, i, j)) }
                }
            }
            // Greedy one-to-one: highest IoU first, ties by A's then B's position (deterministic).
            candidates.sort { ($0.iou, -$0.i, -$0.j) > ($1.iou, -$1.i, -$1.j) }
            var usedA = [Bool](repeating: false, count: a.count)
            var usedB = [Bool](repeating: false, count: b.count)
            var matches: [Comparison.Match] = []
            for c in candidates where !usedA[c.i] && !usedB[c.j] {
                usedA[c.i] = true
                usedB[c.j] = true
                matches.append(Comparison.Match(aID: a[c.i].id, bID: b[c.j].id, iou: c.iou))
            }
            let both = !a.isEmpty && !b.isEmpty
            var poi: Comparison.POIOverlap?
            if let located {
                let inA = try located.covered(by: PointCoverIndex(ua), where: nil)
                let inB = try located.covered(by: PointCoverIndex(ub), where: nil)
                var nA = 0
                var nB = 0
                var nBoth = 0
                for p in 0..<inA.count {
                    if inA[p] { nA += 1 }
                    if inB[p] { nB += 1 }
                    if inA[p] && inB[p] { nBoth += 1 }
                }
                poi = Comparison.POIOverlap(insideA: nA, insideB: nB, insideBoth: nBoth)
            }
            out.append(
                Comparison.KeywordComparison(
                    label: ka == kb ? ka : "\(ka)|\(kb)", keywordA: ka, keywordB: kb, countA: a.count, countB: b.count,
                    areaA: areaA, areaB: areaB, areaIoU: un > 0 ? inter / un : 1,
                    meanBestIoUAInB: both ? rowBest.reduce(0, +) / Double(a.count) : 0,
                    meanBestIoUBInA: both ? colBest.reduce(0, +) / Double(b.count) : 0, matches: matches, poi: poi))
        }
        if A.isEmpty || B.isEmpty {
            notes.append("\(A.isEmpty ? "A" : "B") has no features: mean best IoUs are reported as 0")
        }
        return Comparison(keywords: out, matchThreshold: matchThreshold, crs: crsChoice, inputs: inputs, notes: notes)
    }

    // MARK: - Pieces

    /// Whether two keyword properties pair (equal, or either is a wildcard).
    static func compatible(_ a: String?, _ b: String?) -> Bool { a == nil || b == nil || a == b }

    /// Intersection over union of the areas of two items (0 when they do not overlap).
    static func iou(_ a: EvaluationLayer.Item, _ b: EvaluationLayer.Item) throws -> Double {
        guard a.area > 0, b.area > 0, let ea = a.envelope, let eb = b.envelope, ea.intersects(eb) else { return 0 }
        let inter: Double
        do {
            inter = try a.geometry.intersection(b.geometry).area
        } catch {
            throw GEOSError(
                message: "\(error.message) (intersecting feature \(a.id.serialized()) with \(b.id.serialized()))")
        }
        let union = a.area + b.area - inter
        let value = union > 0 ? min(1, inter / union) : 0
        // The intersection of a polygon with itself is computed anew and its area differs from the
        // polygon's in the last bits: a truth scored against itself missed `--thresholds 1`. Two
        // polygons whose symmetric difference is a billionth of their union are one polygon.
        return value > 1 - Self.iouTolerance ? 1 : value
    }

    /// How close to 1 an IoU is taken for 1 (see ``iou(_:_:)``).
    static let iouTolerance = 1e-9

    /// The metric CRS: the given one, or the automatic choice for the first non-empty file's extent.
    package func chooseCRS(_ files: [RegionFeatureFile], proj: PROJContext) throws -> CRSChoice? {
        if let crs {
            let d = try proj.describe(crs)
            guard d.isProjected, let unit = d.metresPerUnit, abs(unit - 1) < 1e-12 else {
                throw UsageError("--crs \(crs): \(d.name) is not a projected CRS in metres (areas are reported in m²)")
            }
            return CRSChoice(definition: crs, explanation: "\(d.name) (\(crs)), as given", isLocal: true)
        }
        for file in files {
            // A file whose features all have empty geometries (`"coordinates": []`) has no extent.
            let (lon, lat) = file.allCoordinates
            if lon.isEmpty { continue }
            let extent = lon.withUnsafeBufferPointer { lo in
                lat.withUnsafeBufferPointer { GeographicExtent(lon: lo, lat: $0) }
            }
            var choice = CRSChoice.automatic(for: extent)
            choice.explanation += " (chosen for the extent of \(file.path))"
            return choice
        }
        return nil
    }

    /// POI-level counts per truth keyword label.
    ///
    /// For a truth keyword k: the POIs whose keyword text matches k (``KeywordMatcher``); "inside"
    /// means covered by a region of keyword k or a wildcard region. For wildcard truths (no
    /// keyword): every planted POI counts, "inside" is inside any region, and a keyword POI inside
    /// is a POI that lies in a region whose keyword it matches (any POI for wildcard regions).
    static func poiCounts(
        truths T: [EvaluationLayer.Item], regions R: [EvaluationLayer.Item], pois: LocatedPOIs, planted: [Bool],
        context: GEOSContext
    ) throws -> [String: TruthScore.POICounts] {
        var out: [String: TruthScore.POICounts] = [:]
        let regionLabels = Set(R.map(\.keywordLabel)).sorted(by: codePointOrder)
        for label in Set(T.map(\.keywordLabel)).sorted(by: codePointOrder) {
            var c = TruthScore.POICounts()
            if label != "*" {
                let keyword: String? = label
                let union = try context.unionAll(R.filter { compatible($0.keyword, keyword) }.map(\.geometry))
                let matcher = pois.matcher(label)
                let matching = pois.matching(matcher)
                let inside = try pois.covered(by: PointCoverIndex(union), where: matching)
                for p in 0..<pois.count where matching[p] {
                    if planted[p] {
                        c.planted += 1
                        if inside[p] { c.plantedInside += 1 }
                    }
                    if inside[p] { c.keywordInside += 1 }
                }
            } else {
                let anyRegion = try pois.covered(by: PointCoverIndex(context.unionAll(R.map(\.geometry))), where: nil)
                var keywordInside = [Bool](repeating: false, count: pois.count)
                for k in regionLabels {
                    let group = R.filter { $0.keywordLabel == k }.map(\.geometry)
                    let matching = k == "*" ? nil : pois.matching(pois.matcher(k))
                    let inside = try pois.covered(by: PointCoverIndex(context.unionAll(group)), where: matching)
                    for p in 0..<pois.count where inside[p] { keywordInside[p] = true }
                }
                for p in 0..<pois.count where pois.valid[p] {
                    if planted[p] {
                        c.planted += 1
                        if anyRegion[p] { c.plantedInside += 1 }
                    }
                    if keywordInside[p] { c.keywordInside += 1 }
                }
            }
            out[label] = c
        }
        return out
    }
}
