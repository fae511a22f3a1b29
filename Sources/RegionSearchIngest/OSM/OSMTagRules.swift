#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one tag key means under a set of ``OSMOptions``.
struct OSMKeyRole: Equatable {
    /// The key marks its element as a POI.
    var isPOI = false
    /// The key carries the POI name.
    var isName = false
    /// Position of the key in ``OSMOptions/keywordKeys``, or -1.
    var keywordRank: Int32 = -1
    /// The key is one region labels read (``LabelTags``: `addr:street`, `place`).
    var isLabel = false

    /// Whether a tag with this key matters at all (anything else is skipped unread).
    var isRelevant: Bool { isPOI || isName || keywordRank >= 0 || isLabel }

    static let none = OSMKeyRole()
}

/// The options compiled for fast byte-level key lookup, shared by both OSM readers so that PBF
/// and XML input give identical records.
struct OSMTagRules {
    let options: OSMOptions
    private let keyBytes: [[UInt8]]
    private let roles: [OSMKeyRole]

    init(options: OSMOptions) {
        self.options = options
        var keys: [[UInt8]] = []
        var roles: [OSMKeyRole] = []
        func slot(_ key: String) -> Int {
            let bytes = Array(key.utf8)
            if let i = keys.firstIndex(of: bytes) { return i }
            keys.append(bytes)
            roles.append(.none)
            return keys.count - 1
        }
        for key in options.poiKeys { roles[slot(key)].isPOI = true }
        for (rank, key) in options.keywordKeys.enumerated() {
            let i = slot(key)
            if roles[i].keywordRank < 0 { roles[i].keywordRank = Int32(rank) }
        }
        roles[slot(options.nameKey)].isName = true
        for key in [LabelTags.street, LabelTags.place] { roles[slot(key)].isLabel = true }
        keyBytes = keys
        self.roles = roles
    }

    /// The role of a tag key given as UTF-8 bytes.
    @inline(__always)
    func role(of key: UnsafeRawBufferPointer) -> OSMKeyRole {
        let n = key.count
        for i in 0..<keyBytes.count where keyBytes[i].count == n {
            let equal = keyBytes[i].withUnsafeBytes { candidate in
                n == 0 || memcmp(candidate.baseAddress!, key.baseAddress!, n) == 0
            }
            if equal { return roles[i] }
        }
        return .none
    }
}
