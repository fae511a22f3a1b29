import Foundation
import RegionSearchModel

/// Helpers shared by the unit tests.
enum TestSupport {
    /// What `body` returns when it returns within `seconds` (run on a thread of its own); nil when
    /// it is still running then (the thread is left to it: a test of a call that must not wait).
    static func finishing(within seconds: Double, _ body: @escaping @Sendable () -> String) -> String? {
        final class Box: @unchecked Sendable {  // written before the signal, read after the wait
            var value: String?
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.value = body()
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success ? box.value : nil
    }

    /// A fresh temporary directory in the process's scratch folder (``TestScratch``, removed when
    /// the tests end; tests write only here).
    static func temporaryDirectory(_ prefix: String = "regionsearch-test-") -> String {
        let path = TestScratch.root + "/" + prefix + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs an executable to its end, with standard output discarded; its status and standard error.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Brute-force symmetric kNN graph with local scales (scale_k-th neighbour distance):
    /// an independent, obviously correct graph for small tests.
    static func bruteForceKNN(x: [Double], y: [Double], k: Int, scaleK: Int = 5) -> AdjacencyGraph {
        let n = x.count
        var edges: [(UInt32, UInt32)] = []
        var scale = [Float](repeating: 1, count: n)
        for i in 0..<n {
            var d: [(Double, Int)] = []
            for j in 0..<n where j != i {
                d.append(((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j]), j))
            }
            d.sort { $0 < $1 }
            for (_, j) in d.prefix(k) { edges.append((UInt32(min(i, j)), UInt32(max(i, j)))) }
            let positive = d.filter { $0.0 > 0 }
            if !positive.isEmpty { scale[i] = Float(positive[min(scaleK, positive.count) - 1].0.squareRoot()) }
        }
        var g = AdjacencyGraph(nodeCount: n, edges: edges, x: x, y: y)
        g.scale = Column(scale)
        return g
    }

    /// Solves A x = b by Gaussian elimination with partial pivoting (dense, small systems).
    static func solve(_ a: [[Double]], _ b: [Double]) -> [Double] {
        var m = a
        var v = b
        let n = b.count
        for col in 0..<n {
            var pivot = col
            for r in col..<n where abs(m[r][col]) > abs(m[pivot][col]) { pivot = r }
            m.swapAt(col, pivot)
            v.swapAt(col, pivot)
            for r in (col + 1)..<n {
                let f = m[r][col] / m[col][col]
                if f == 0 { continue }
                for c in col..<n { m[r][c] -= f * m[col][c] }
                v[r] -= f * v[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var s = v[r]
            for c in (r + 1)..<n { s -= m[r][c] * x[c] }
            x[r] = s / m[r][r]
        }
        return x
    }
}
