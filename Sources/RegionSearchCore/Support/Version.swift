/// The RegionSearch release; recorded in run records and GeoJSON provenance.
public enum RegionSearchVersion {
    public static let current = "0.1.0"
}
