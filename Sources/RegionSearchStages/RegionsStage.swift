import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchRegions

/// The `regions` stage: dense, significant regions per keyword.
public enum RegionsStage {
    public static let definition = StageDefinition(
        name: "regions",
        abstract: "extract dense regions of each keyword, test their significance, score and rank them",
        // 3: regions.min_spacing_m floors the keyword spacing.
        // 4: the density measure's nested levels, cut from propagate's keyword densities; level,
        //    parent and band_floor columns.
        // 5: the nested levels only with regions.nested (default false: one level from each keyword
        //    POI's own density, as in 3); extend_ratio 4 again.
        // 6: level 0 leaves its outlying members out (outlier_spacing); fdr_scope "run" pools the
        //    nested levels' candidates over all keywords (they were per keyword whatever it said).
        // 7: level 0 judged against the keyword's density scaled down where POIs of any kind stand
        //    sparser than over the whole data (reference_window, GroundDensity), and against the
        //    ring around each candidate (contrast_ring).
        // 8: level 0 leaves out the members that stand off the street their fellow members form
        //    (off_street, street_aspect).
        // 9: child_extend_ratio 1 by default: a finer region extends through every POI at least as
        //    dense as the region holding it (was 1.5), so a district is drawn to its edges.
        // 10: level 0's streets run on through POIs at street_extend_ratio along their band
        //     (street_ends): a street's last POIs and those beside a gap are its members.
        // 11: the ring test counts the keyword POIs at the corners of a candidate's hull for the
        //     share of a turn its angle there takes in (hull_corners "angle"), not whole, and is
        //     made only where the ring is denser than the candidate's reference.
        // 12: level 0 also leaves out a member beside a street that is dense only by the street
        //     (beside_street).
        // 13: a region that is a street runs on from its ends along a significant street of POIs of
        //     any kind, through the keyword POIs along it (street_run_on).
        // 14: two level-0 candidates joined through POIs near their own density are one region
        //     (persistence).
        // 15: a street's run takes a keyword POI beyond its gap when POIs of any kind stand all
        //     along the way, and joins another candidate it reaches when the two and the run are
        //     one street together (street_run_on).
        // 16: a gap the keyword spans is bridged only where the POI graph goes round it within
        //     wide_detour times its length (facing clusters were joined across rivers).
        // 17: a street's run follows its street round a corner: a hop is along the street when the
        //     POI graph goes round the bend within 1.5 times it, and a candidate reached continues
        //     the street along its own centre line.
        // 18: a street's run looks at every POI within its reach, not only those the POI graph
        //     reaches from its end (a street whose POIs thin out for a stretch is in pieces in the
        //     graph); one the graph does not reach is taken only along the street, whose straight
        //     band may leave up to 1.5 spacings empty.
        // 19: whether a candidate a run reached continues the street is judged on the street's
        //     members within the candidate's reach from the street's end, not on all of them; the
        //     path round a bend is searched in the ellipse it can reach (A*), not in the step's
        //     disc.
        // 20: a level-0 set that the keyword's propagated density shows to be two places (each side
        //     twice as dense as the saddle between them, neither along a line nor splitting again)
        //     is two regions (`split_persistence`).
        // 21: streets inside each level-0 region, its finest level: runs of its keyword POIs along
        //     a band significantly denser than the bands beside it (`street_half_width_m`).
        // 22: two level-0 candidates that are one street with a stretch too sparse for a run's
        //     step between them are joined (facing ends); a level-0 region's streets are finer
        //     regions unless they hold nine in ten of its POIs (21: more than `same_region_share`);
        //     a set mostly on a street is parted into the street and the rest where the street
        //     stands out on its own (`off_street`).
        // 23: a set whose saddle split would leave a side along a street that bends (by its spine)
        //     stays one, as one whose side lies along a straight line did (`split_persistence`).
        // 24: streets inside a region that continue each other round a corner (turning by at most
        //     60°) are one street (`StreetBands.joinedRoundCorners`).
        // 25: a street's run crosses a stretch with no POI of any kind up to 50 m long whatever the
        //     spacing of the POIs around (a side street; 24: 1.5 typical spacings of all POIs, 17 m
        //     where a grid of blocks has its frontages a few metres apart).
        // 26: streets are searched in bands of three widths, each √2 times the one before
        //     (`street_widths`): a wide avenue's two frontages are one street.
        // 27: where a street's run finds too few POIs for one step, the street's whole leg ahead
        //     is judged as one window (`StreetRunOn.leg`).
        // 28: `lift`'s test leaves the hull's corners out of its counts (they match by
        //     construction) and bounds over 2 shapes per keyword POI instead of 10.
        // 29: a set mostly on a street is parted from the street only where every other piece
        //     that is a candidate stands out on its own too (`off_street`): a group that stands
        //     out only with the street is not dropped with its members.
        version: 29,
        inputs: [
            ProjectStage.definition.provides("output", as: "projected"),
            GraphStage.definition.provides("output", as: "graph"),
            PropagateStage.definition.provides("output", as: "scores"),
        ],
        outputs: [.init(option: "output", fileName: "regions.rsa", kind: .regions)],
        options: RegionOptions.self)

    static let discussion = """
        For each keyword, over its own POIs. Keyword graph: the keyword POIs' Delaunay triangulation;
        two of them are joined when at most edge_factor times the keyword spacing apart (s, the
        distance to the neighbours-th nearest keyword POI, at the sparser end) and the POI graph joins
        them by a path at most detour times their distance (not across a river or park), or at most
        wide_detour times it when the keyword spans the gap around both (at most the
        2·neighbours-th nearest distance): a block's empty interior, but never a river.

        measure "density": nested levels of dense subgraphs (nested, the default; false stops at
        level 0). Level 0 (level0 "own", the default): each keyword POI's own density ratio r, its
        neighbours keyword POIs within the distance to its neighbours-th nearest over the keyword's
        typical density (its POIs over the ground the city's POIs occupy, pi·sigma²/scale_k per
        location) — scaled down where POIs of any kind stand sparser than over the whole data, by
        their density in a window of 3 x 3 grid cells holding reference_window POIs on average over
        the data's (never scaled up: a town is judged against its town, a downtown against the
        city) — smoothed over the keyword graph (smoothing); keyword POIs with r >= extend_ratio,
        and those that continue a street of them (street_ends: a POI at r >= street_extend_ratio
        within a member's neighbours-th nearest distance and within street_ends half-widths of the
        axis of the member's street band, as for off_street below, wave by wave), joined on the
        keyword graph, form connected sets, and a set with a POI at r >= core_ratio and
        at least min_keyword_pois POIs is a candidate, without its members whose nearest other
        member is more than outlier_spacing times the set's median spacing away (split where that
        leaves it in pieces: no arm out to a lone POI, no corridor through one), and without its
        members that stand off a street: where a member's fellow members among its 2·neighbours
        nearest keyword locations (at least four) form a band street_aspect times as long as wide (half-width twice their
        median distance from their principal axis), a member more than off_street half-widths from
        that axis is left out (split likewise), and so is a member whose own fellow members form no
        street but which stands more than off_street half-widths off the street of its nearest
        member on a street, unless its own (unsmoothed) density ratio from its neighbours-th nearest
        keyword POI that is not a member on that street is at least beside_street times
        extend_ratio (dense only by the street). A candidate that is a street (its spine, the
        longest path of its POIs' minimum spanning tree smoothed over five nodes, at least
        street_aspect times twice its half-width long, and its last members a band too) runs on
        from each end (street_run_on): a step looks 1.5 typical spacings (1/sqrt of the reference
        density) ahead, turning by up to 60 degrees, for the street-wide band holding the most POIs
        of any kind; when that count is significant against all POIs within that reach (Poisson,
        p <= 0.001, the directions counted), the keyword POIs along it join while each is at most
        street_run_on times the candidate's spacing (and one typical spacing) from the previous,
        or up to twice that where POIs of any kind stand all along the way, at least two from an
        end; the candidate is tested as found. A run that reaches another candidate the same way
        (within that one's gap too) joins it when the two and the run are one street no wider than
        the running one, tested as one. A set that is two places is split first (split_persistence,
        where the propagated density density.c is there): its keyword-graph edges, densest first by
        the lower density.c of their ends, join its POIs; at the last join of two sides of at least
        min_keyword_pois POIs (the saddle s), each side's median at least split_persistence × s,
        both sides candidates, neither along a line (principal axes street_aspect times as long as
        wide) or a street that bends (its spine as long, not turning back) nor splitting again (a
        core holding districts), the two sides (the POIs joined above s) are two sets. Two
        candidates that are one
        place are joined (persistence): where the keyword graph joins them through POIs whose r is at least s (their
        saddle, looked for down to extend_ratio / persistence, through POIs below
        extend_ratio or in sets too small to be candidates, never through a member left out above)
        and neither stands persistence times above it (the median r of its members below
        persistence × s), they are one candidate with the POIs of one path between them. p-value:
        N · P(Poisson(mu) >= m) for its m POIs, mu what the ground they stand for holds at that
        (scaled) typical density, N the keyword's POIs — and, where the keyword's density in the
        ring contrast_ring hull radii around the convex hull of its POIs (walked over the POI graph)
        is higher than that, the larger of that and the same tail for the keyword POIs inside the
        hull against the ring's density, one POI at each corner of the hull counting for the share
        of a full turn the hull's angle there takes in, (v - 2) / 2 for v corners, the count rounded
        down (hull_corners "angle": the hull is drawn through those POIs, so they are inside it
        whatever chance put them there); Benjamini-Hochberg over the keyword's level-0 candidates.
        level0 "propagated" cuts level 0 from the propagated density instead (density.c, below),
        against the keyword's POIs over the ground of the graph's connected piece when the piece
        holds at least own_reference_pois of them (a town the graph does not join to the metro),
        else over the whole data's.
        Finer levels, inside each significant level-0 region, from the keyword density the
        propagate stage spread over the POI graph (density.c: keyword POIs per km² of ground around
        each POI): inside a region of density rho (its POIs over the ground they stand for, sum of
        1/density), its POIs at least child_extend_ratio × rho dense, joined the same way, with a POI
        at child_core_ratio × rho, are the candidates one level down, and so on up to max_levels;
        one holding more than same_region_share of its parent's POIs adds no level. p-value: the
        keyword POIs inside the hull of its POIs against what that ground holds at the larger of rho
        and the parent's own count over its hull's ground, times the POIs it was chosen among;
        Benjamini-Hochberg over all finer levels of the keyword (fdr_scope "run": of every
        keyword); a dropped candidate's children move up a level.

        measure "lift": every POI's share of the keyword (its propagation score over the score of an
        all-ones labelling) against the base rate p, in units of the chance deviation
        sqrt(p(1-p)/n_eff) (n_eff from propagate's random-label probe); keyword POIs at least
        z_extend above it and at least lift_density_ratio times as dense as typical, joined on the
        keyword graph, with a POI z_core above, form candidates. p-value: N_k · 10 ·
        P(Binomial(n, p) >= k) for all and keyword POIs inside the hull of its keyword POIs.

        Benjamini-Hochberg q-values per keyword (fdr_scope "keyword"; "run": over all keywords) keep
        the false discovery rate at `fdr`. Regions are ranked within their keyword by their number of
        keyword POIs, then p-value. Each region records its POIs and the keyword-graph edges between
        them, which the hulls stage draws. Method "dbscan" instead clusters the keyword's POIs with
        DBSCAN (a baseline; its clusters get statistics but no filter).
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation<RegionOptions>(cl, definition)
        let output = try stage.outputPath()
        let files = try stage.inputs(["projected", "graph", "scores"])
        let (projectedFile, graphFile, scoresFile) = (files[0], files[1], files[2])
        let points = try ProjectedPoints(artifact: projectedFile)
        let graph = try AdjacencyGraph(artifact: graphFile)
        let table = try ScoreTable(artifact: scoresFile)
        guard graph.nodeCount == points.count, table.count == points.count else {
            throw ToolFailure(
                "inputs disagree: \(points.count) projected points, \(graph.nodeCount) graph nodes, \(table.count) "
                    + "score rows; rerun graph and propagate on the same projected artifact",
                status: .artifact)
        }
        if stage.options.cutsNestedLevels && table.density.count != table.keywords.count {
            throw ToolFailure(
                "\(scoresFile.path) holds no keyword densities, which regions.nested cuts its levels from: run "
                    + "propagate with --densities true (a manifest with regions.nested true does), or set nested false",
                status: .artifact)
        }
        if stage.options.readsScores && !table.hasScores {
            throw ToolFailure(
                "\(scoresFile.path) holds no scores, which the \(stage.options.method == .dbscan ? "dbscan method" : "lift measure") "
                    + "reads: run propagate with --scores true (a manifest with regions.measure lift or "
                    + "regions.method dbscan does)",
                status: .artifact)
        }
        // The graph records the neighbour its local spacings are measured to (the occupied area
        // needs it); graphs written before it was recorded used the default, 5.
        let scaleK = graphFile.metadata["scale_k"]?.intValue ?? 5
        let result = stage.summary.time(.regions) {
            RegionExtraction.run(points: points, graph: graph, table: table, options: stage.options, scaleK: scaleK)
        }
        let meta: JSONValue = .object([
            ("stage", .string("regions")),
            ("parameters", stage.parameters.canonical),
            ("method", .string(stage.options.method.rawValue)),
            ("measure", .string(stage.options.measure.rawValue)),
            ("occupied_area_m2", .number(result.occupiedArea.rounded())),
            ("windows", .number(Double(points.count))),
            ("keywords", .array(result.keywordMeta)),
            ("candidates", .number(Double(result.candidates))),
            ("regions", .number(Double(result.table.regions.count))),
            ("provenance", stage.provenance(inputs: [projectedFile, graphFile, scoresFile])),
        ])
        try stage.summary.time(.write) { try result.table.writer(metadata: meta).write(to: output) }
        for (c, q) in table.keywords.enumerated() {
            let count = result.table.regions.filter { $0.keyword == c }.count
            Log.info("\"\(q)\": \(count) region(s)")
        }
        stage.summary.set(.candidates, result.candidates)
        stage.summary.set(.regions, result.table.regions.count)
        stage.summary.setDetail("keywords", .array(result.keywordMeta))
        Log.info(
            "\(result.table.regions.count) region(s) from \(result.candidates) candidate(s) in "
                + "\(String(format: "%.3f", stage.summary.seconds(.regions) ?? 0)) s"
        )
        try stage.finish()
    }
}
