import RegionSearchOutput

/// The key that names one POI from night to night: the input's id when it has one, else its
/// position.
///
/// Ids are what OpenStreetMap extracts, POI databases and most dumps keep stable (`osm_id`); a POI
/// without an id (a CSV without an id column) is known by its coordinates as written (7 decimals,
/// `@lon,lat`), so moving it makes it another POI.
///
/// Where each input numbers its records on its own (`ingest.id_scope: input`), one id names a
/// different POI in each input: the id of a POI from `inputs[k]`, k ≥ 1, is written
/// `inputs[k]:id`. (Bare ids of two inputs had made regions 50 km apart share their members,
/// and every region of such a night was called merged.) The first input's keys stay bare, so a
/// lineage keeps its keys when a second input is added.
public enum POIKey {
    public static func key(id: String, lon: Double, lat: Double, input: Int? = nil) -> String {
        if !id.isEmpty {
            if let input, input > 0 { return "inputs[\(input)]:" + id }
            return id
        }
        return "@" + GeoJSONWriter.coordinate(lon) + "," + GeoJSONWriter.coordinate(lat)
    }
}
