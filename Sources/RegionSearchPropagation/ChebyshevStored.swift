/// The element type the Chebyshev solver stores its iterate x and residual r in (see
/// ``LabelPropagation/Precision``). Every operation runs in Float64 whichever it is: a value is
/// widened when loaded and rounded only when stored, so Float64 gives exactly the arithmetic of a
/// plain Double solver and Float32 halves the traffic of the two arrays every step reads and writes.
protocol ChebyshevStored: BinaryFloatingPoint {
    /// Lanes `V.scalarCount` consecutive values at `p`, widened to Float64.
    static func load<V: ChebyshevLanes>(_ p: UnsafeRawPointer, _: V.Type) -> V
    /// Stores the lanes of `v` at `p`, rounded to this type.
    static func store<V: ChebyshevLanes>(_ v: V, _ p: UnsafeMutableRawPointer)
}

extension Double: ChebyshevStored {
    @inline(__always) static func load<V: ChebyshevLanes>(_ p: UnsafeRawPointer, _: V.Type) -> V {
        p.loadUnaligned(as: V.self)
    }
    @inline(__always) static func store<V: ChebyshevLanes>(_ v: V, _ p: UnsafeMutableRawPointer) {
        p.storeBytes(of: v, as: V.self)
    }
}

extension Float: ChebyshevStored {
    @inline(__always) static func load<V: ChebyshevLanes>(_ p: UnsafeRawPointer, _: V.Type) -> V {
        V(widening: p.loadUnaligned(as: V.Narrow.self))
    }
    @inline(__always) static func store<V: ChebyshevLanes>(_ v: V, _ p: UnsafeMutableRawPointer) {
        p.storeBytes(of: v.narrowed, as: V.Narrow.self)
    }
}
