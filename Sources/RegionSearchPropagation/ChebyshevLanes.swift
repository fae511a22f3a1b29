/// A SIMD vector of Double lanes used by the Chebyshev kernel, with its Float32 counterpart (the
/// step `d` is stored as Float32; see ``LabelPropagation``).
///
/// Every lane is one keyword column and is computed with exactly the operations, in exactly the
/// order, of the scalar formula; so the lane width a column happens to be processed with never
/// changes a result bit.
protocol ChebyshevLanes: SIMD where Scalar == Double {
    associatedtype Narrow: SIMD where Narrow.Scalar == Float
    /// Lane-wise `Double(f)`.
    init(widening: Narrow)
    /// Lane-wise `Float(self)` (round to nearest).
    var narrowed: Narrow { get }
}

extension SIMD2: ChebyshevLanes where Scalar == Double {
    typealias Narrow = SIMD2<Float>
    @inline(__always) init(widening v: SIMD2<Float>) { self.init(v) }
    @inline(__always) var narrowed: SIMD2<Float> { SIMD2<Float>(self) }
}

extension SIMD4: ChebyshevLanes where Scalar == Double {
    typealias Narrow = SIMD4<Float>
    @inline(__always) init(widening v: SIMD4<Float>) { self.init(v) }
    @inline(__always) var narrowed: SIMD4<Float> { SIMD4<Float>(self) }
}

extension SIMD8: ChebyshevLanes where Scalar == Double {
    typealias Narrow = SIMD8<Float>
    // Built from halves: the generic element-type conversion is not inlined for 8 and 16 lanes.
    @inline(__always) init(widening v: SIMD8<Float>) {
        self.init(lowHalf: SIMD4<Double>(widening: v.lowHalf), highHalf: SIMD4<Double>(widening: v.highHalf))
    }
    @inline(__always) var narrowed: SIMD8<Float> {
        SIMD8<Float>(lowHalf: lowHalf.narrowed, highHalf: highHalf.narrowed)
    }
}

extension SIMD16: ChebyshevLanes where Scalar == Double {
    typealias Narrow = SIMD16<Float>
    @inline(__always) init(widening v: SIMD16<Float>) {
        self.init(lowHalf: SIMD8<Double>(widening: v.lowHalf), highHalf: SIMD8<Double>(widening: v.highHalf))
    }
    @inline(__always) var narrowed: SIMD16<Float> {
        SIMD16<Float>(lowHalf: lowHalf.narrowed, highHalf: highHalf.narrowed)
    }
}
