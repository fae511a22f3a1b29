/// The `key = value` items of a libpq connection string, the body of GDAL's `PG:` data source
/// (`host=db dbname=gis user=u password=secret`): values optionally in single quotes with `\'`
/// and `\\` escapes, blanks allowed around `=`. One reader for the password masking
/// (``ConnectionSecrets``), the schema a PostGIS output writes to, and whether two outputs name
/// one database.
public struct ConnectionParameters: Sendable {
    /// One `key = value` item.
    public struct Item: Sendable, Equatable {
        public var key: String
        /// The value as libpq reads it: quotes removed, escapes undone.
        public var value: String
        /// Where the value is written in ``scalars`` (its quotes and escapes included).
        public var written: Range<Int>
    }

    /// The text read, as Unicode scalars.
    public let scalars: [Unicode.Scalar]
    /// Its items in order; a key without `=` is skipped.
    public let items: [Item]

    public init(_ text: some StringProtocol) {
        let s = Array(text.unicodeScalars)
        scalars = s
        var items: [Item] = []
        var i = 0
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
        while i < s.count {
            while i < s.count, isSpace(s[i]) { i += 1 }
            var key = ""
            while i < s.count, s[i] != "=", !isSpace(s[i]) {
                key.unicodeScalars.append(s[i])
                i += 1
            }
            while i < s.count, isSpace(s[i]) { i += 1 }
            guard i < s.count, s[i] == "=" else { continue }
            i += 1
            while i < s.count, isSpace(s[i]) { i += 1 }
            let start = i
            var value = ""
            if i < s.count, s[i] == "'" {
                i += 1
                while i < s.count {
                    if s[i] == "\\", i + 1 < s.count {
                        value.unicodeScalars.append(s[i + 1])
                        i += 2
                        continue
                    }
                    i += 1
                    if s[i - 1] == "'" { break }
                    value.unicodeScalars.append(s[i - 1])
                }
            } else {
                while i < s.count, !isSpace(s[i]) {
                    value.unicodeScalars.append(s[i])
                    i += 1
                }
            }
            items.append(Item(key: key, value: value, written: start..<i))
        }
        self.items = items
    }

    /// The value of the first item whose key is `key`, in any case (as GDAL takes its own keys).
    public func value(of key: String) -> String? {
        let wanted = key.lowercased()
        return items.first { $0.key.lowercased() == wanted }?.value
    }
}
