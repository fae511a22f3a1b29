/// Order statistics without sorting.
public enum Selection {
    /// The k-th smallest value of `a` (0-based), by quickselect with a median-of-three pivot:
    /// the same value `a.sorted()[k]` gives, in linear expected time. Reorders `a`.
    public static func kthSmallest(_ a: inout [Double], _ k: Int) -> Double {
        precondition(k >= 0 && k < a.count)
        return a.withUnsafeMutableBufferPointer { b in
            var lo = 0
            var hi = b.count - 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if b[mid] < b[lo] { b.swapAt(mid, lo) }
                if b[hi] < b[lo] { b.swapAt(hi, lo) }
                if b[hi] < b[mid] { b.swapAt(hi, mid) }
                let pivot = b[mid]
                var i = lo
                var j = hi
                while i <= j {
                    while b[i] < pivot { i += 1 }
                    while b[j] > pivot { j -= 1 }
                    if i <= j {
                        b.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if k <= j { hi = j } else if k >= i { lo = i } else { return b[k] }
            }
            return b[k]
        }
    }

    /// The median of `values` (the mean of the two middle values for an even count; 0 when empty).
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        var a = values
        let n = a.count
        let upper = kthSmallest(&a, n / 2)
        if n % 2 == 1 { return upper }
        // After the selection a[0..<n/2] holds the lower half: its largest is the other middle value.
        var lower = -Double.infinity
        for i in 0..<(n / 2) { lower = max(lower, a[i]) }
        return (lower + upper) / 2
    }
}
