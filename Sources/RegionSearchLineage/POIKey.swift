import RegionSearchOutput

/// The key that names one POI from night to night: the input's id when it has one, else its
/// position.
///
/// Ids are what OpenStreetMap extracts, POI databases and most dumps keep stable (`osm_id`); a POI
/// without an id (a CSV without an id column) is known by its coordinates as written (7 decimals,
/// `@lon,lat`), so moving it makes it another POI.
public enum POIKey {
    public static func key(id: String, lon: Double, lat: Double) -> String {
        if !id.isEmpty { return id }
        return "@" + GeoJSONWriter.coordinate(lon) + "," + GeoJSONWriter.coordinate(lat)
    }
}
