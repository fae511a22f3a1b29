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
}
