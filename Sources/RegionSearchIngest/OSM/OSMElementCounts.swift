/// What an OSM reader has seen so far; complete once ``RecordSource/next()`` has returned nil.
struct OSMElementCounts: Equatable, Sendable, CustomStringConvertible {
    /// Every node, way and relation in the file (deleted ones included).
    public var nodes = 0
    var ways = 0
    var relations = 0
    /// Nodes and ways carrying at least one POI key (accepted or rejected).
    var poiNodes = 0
    var poiWays = 0
    /// POI nodes and ways that were yielded as rejected records.
    var rejectedNodes = 0
    var rejectedWays = 0
    /// Elements marked deleted (`visible="false"` in history XML, `action="delete"` in JOSM
    /// files); they are counted in nodes/ways/relations but are never POIs.
    var deleted = 0

    public init() {}

    /// Adds counts of another part of the same file.
    mutating func add(_ other: OSMElementCounts) {
        nodes += other.nodes
        ways += other.ways
        relations += other.relations
        poiNodes += other.poiNodes
        poiWays += other.poiWays
        rejectedNodes += other.rejectedNodes
        rejectedWays += other.rejectedWays
        deleted += other.deleted
    }

    /// Accepted records: POIs minus rejects.
    public var records: Int { poiNodes + poiWays - rejectedNodes - rejectedWays }

    public var description: String {
        "\(nodes) nodes, \(ways) ways, \(relations) relations; POIs: \(poiNodes) nodes "
            + "(\(rejectedNodes) rejected), \(poiWays) ways (\(rejectedWays) rejected)"
            + (deleted > 0 ? "; \(deleted) deleted elements skipped" : "")
    }
}
