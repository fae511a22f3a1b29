/// The kinds of synthetic city `regionsearch-generate --scenario` writes, each a test of one
/// thing the region method must get right (docs/EVALUATE.md, "Synthetic scenarios").
public enum SyntheticScenario: String, CaseIterable, Sendable {
    /// The original generator: round (or `aspect`-stretched) planted clusters anywhere in a city
    /// of 60 % uniform and 40 % downtown background.
    case clusters
    /// Dining strips: 30–40 keyword POIs along 1–2 km straight or bent streets (some diagonal), on
    /// a commercial street where the keyword's share is 2–3 × its city share.
    case strips
    /// A metro whose density falls off exponentially from a dense core to a periphery where POIs
    /// are kilometres apart, with parks and lakes (no POIs), a coast with a bay, and clusters in
    /// the core and the mid-density ring.
    case periphery
    /// Pairs of keyword clusters facing each other across meandering empty bands, 2.5–4 × the
    /// local spacing wide (150 m in a field of 50 m spacing), the clusters 15 m from the water.
    case rivers
    /// 5:1 elliptic clusters placed in the downtowns (the densest background).
    case ellipses
    /// Uniform density everywhere and no planted cluster: a null test.
    case uniform
    /// A 150 m river meandering through dense downtowns (POIs ~50 m apart on both banks) with
    /// keyword clusters facing each other 15 m from either bank, and a 400–600 m river between two
    /// boroughs with clusters on both banks; the rivers are written as must-not `river` areas.
    case riversDowntown = "rivers-downtown"
    /// A grid of street blocks; in some, keyword POIs on both long frontages and inside (the truth
    /// is the block), on others along one frontage of three blocks (a frontage strip).
    case blocks
    /// A metro and towns 50–100 km away at 1/20–1/10 of its POI density, with clusters planted in
    /// the metro (kind `cluster`) and in the towns' centres (kind `town`).
    case towns
    /// The `clusters` city with no planted cluster (by default): five downtowns and nothing else, the
    /// downtowns written as must-not `downtown` areas so that regions per downtown can be counted.
    case downtowns
}
