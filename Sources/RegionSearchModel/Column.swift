import RegionSearchCore

/// A read-only column of fixed-width values: an array this process built, or a view into a mapped
/// artifact (``ArtifactFile``) that is used in place instead of being copied.
///
/// Copying a column out of a mapped artifact costs little in bytes moved but a page fault per
/// 4 KiB of fresh memory; at a million POIs that made loading the inputs of `regions` take as long
/// as the stage's own work. A column keeps its owner (the artifact, or the array) alive, so the
/// buffer stays valid as long as the column does. It reads like an array (`c[i]`, `c.count`,
/// `withUnsafeBufferPointer`); `Array(c)` makes an owned copy.
public struct Column<Element>: RandomAccessCollection {
    /// The values; valid while this column (or a copy of it) exists.
    public let buffer: UnsafeBufferPointer<Element>
    /// Keeps the memory behind `buffer` alive: an ``ArtifactFile`` or an ``ArrayOwner``.
    private let owner: AnyObject?

    /// Holds an array whose storage a column points into. The array is never mutated and the box
    /// holds a reference to its storage, so the elements stay where they are for the box's life.
    private final class ArrayOwner {
        let array: [Element]
        let buffer: UnsafeBufferPointer<Element>

        init(_ array: [Element]) {
            self.array = array
            buffer = array.withUnsafeBufferPointer { $0 }
        }
    }

    /// A column holding `array` (no copy).
    public init(_ array: [Element]) {
        let box = ArrayOwner(array)
        owner = box
        buffer = box.buffer
    }

    /// A column over memory owned by `owner` (e.g. a column of a mapped artifact).
    public init(view: UnsafeBufferPointer<Element>, owner: AnyObject) {
        buffer = view
        self.owner = owner
    }

    public init() { self.init([]) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { buffer.count }

    @inline(__always)
    public subscript(i: Int) -> Element { buffer[i] }

    @inline(__always)
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try withExtendedLifetime(owner) { try body(buffer) }
    }
}

/// A column of sendable values may cross threads: its buffer is never written after the column is
/// made (an array's storage or a read-only mapping), and its owner (an ``ArtifactFile`` or the array
/// box) is immutable; the compiler cannot see that through the pointer.
extension Column: @unchecked Sendable where Element: Sendable {}

extension Column: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension Column: Equatable where Element: Equatable {
    public static func == (a: Column, b: Column) -> Bool { a.elementsEqual(b) }
}

extension ArtifactFile {
    /// A column used in place (no copy), checked to have `count` elements.
    public func view<T: ArtifactScalar>(_ name: String, as: T.Type = T.self, count: Int? = nil) throws(ArtifactError)
        -> Column<T>
    {
        let v = try column(name, as: T.self)
        if let count, v.count != count {
            throw ArtifactError.malformed(
                path: path, detail: "column '\(name)' has \(v.count) entries, expected \(count)")
        }
        return Column(view: v, owner: self)
    }
}

extension ArtifactFile {
    /// Opens and verifies several artifacts at once, one per thread (checksums are the bulk of
    /// the load and each file's is a single sequential pass). The first failure in list order
    /// is thrown, as opening them one by one would.
    public static func openAll(_ files: [(path: String, expected: ArtifactKind?)]) throws(ArtifactError)
        -> [ArtifactFile]
    {
        var results = [Result<ArtifactFile, ArtifactError>?](repeating: nil, count: files.count)
        results.withUnsafeMutableBufferPointer { out in
            let out = out
            Parallel.forEach(files.count) { i in
                do throws(ArtifactError) {
                    out[i] = .success(try ArtifactFile(path: files[i].path, expected: files[i].expected))
                } catch {
                    out[i] = .failure(error)
                }
            }
        }
        var opened: [ArtifactFile] = []
        for r in results {
            switch r! {
            case .success(let f): opened.append(f)
            case .failure(let e): throw e
            }
        }
        return opened
    }

    /// A string column used in place: `offsets` (count + 1) and UTF-8 `bytes`, validated like
    /// ``strings(_:count:)`` (starts at 0, never decreases, ends at the byte count).
    public func stringView(_ name: String, count: Int? = nil) throws(ArtifactError) -> (
        offsets: Column<UInt64>, bytes: Column<UInt8>
    ) {
        let offsets = try view(name + ".offsets", as: UInt64.self)
        let bytes = try view(name + ".bytes", as: UInt8.self)
        let o = offsets.buffer
        guard let last = o.last, o.first == 0, Int(last) == bytes.count else {
            throw ArtifactError.malformed(path: path, detail: "string column '\(name)' has inconsistent offsets")
        }
        for i in 1..<o.count where o[i] < o[i - 1] {
            throw ArtifactError.malformed(path: path, detail: "string column '\(name)' has decreasing offsets")
        }
        if let count, o.count != count + 1 {
            throw ArtifactError.malformed(
                path: path, detail: "string column '\(name)' has \(o.count - 1) entries, expected \(count)")
        }
        return (offsets, bytes)
    }
}

extension ArtifactWriter {
    /// Adds a numeric column held in a ``Column``.
    public mutating func add<T: ArtifactScalar>(_ name: String, _ values: Column<T>) {
        add(name, values.buffer, keepingAlive: values)
    }
}
