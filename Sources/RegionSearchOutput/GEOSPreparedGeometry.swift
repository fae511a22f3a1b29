import CGEOS

/// A GEOS prepared geometry: the geometry plus lazily built indexes that make repeated
/// predicates against it (point-in-polygon above all) fast.
public final class GEOSPreparedGeometry {
    /// The geometry it was prepared from; kept alive because GEOS references it.
    public let geometry: GEOSGeometry
    let pointer: OpaquePointer

    init(geometry: GEOSGeometry, pointer: OpaquePointer) {
        self.geometry = geometry
        self.pointer = pointer
    }

    deinit { GEOSPreparedGeom_destroy_r(geometry.context.handle, pointer) }

    /// Whether `other` lies in the geometry, boundary included (GEOS `covers`); false when GEOS
    /// cannot tell.
    public func covers(_ other: GEOSGeometry) -> Bool {
        GEOSPreparedCovers_r(geometry.context.handle, pointer, other.pointer) == 1
    }

    /// Whether the point lies in the geometry or on its boundary (GEOS `covers`).
    ///
    /// GEOS 3.11 has no coordinate-only predicate (`GEOSPreparedContainsXY_r` came in 3.12), so a
    /// point geometry is made for the call; callers filter by envelope first to keep this rare.
    public func covers(x: Double, y: Double) throws(GEOSError) -> Bool {
        let context = geometry.context
        let h = context.handle
        guard let point = GEOSGeom_createPointFromXY_r(h, x, y) else { throw context.error("GEOS point") }
        defer { GEOSGeom_destroy_r(h, point) }
        let r = GEOSPreparedCovers_r(h, pointer, point)
        if r == 2 { throw context.error("GEOS prepared covers") }
        return r == 1
    }
}
