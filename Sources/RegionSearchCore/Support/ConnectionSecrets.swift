/// Passwords in database connection strings, masked before a string is printed or stored.
///
/// A `PG:` data source (GDAL's PostgreSQL driver) is either libpq's `key=value` list —
/// `PG:host=db dbname=gis user=u password=secret`, values optionally in single quotes with
/// `\'` and `\\` escapes, blanks allowed around `=` — or a URI,
/// `PG:postgresql://user:secret@host/db?password=secret`. Every password in either form
/// becomes `***`; everything else is kept, so a message still says which database it means.
public enum ConnectionSecrets {
    /// `text` with every password of a `PG:` connection string replaced by `***`; any other text
    /// unchanged.
    public static func redacted(_ text: String) -> String {
        guard text.count >= 3, text.prefix(3).uppercased() == "PG:" else { return text }
        let body = Array(text.dropFirst(3).unicodeScalars)
        let rest = String(String.UnicodeScalarView(body)).trimmingLeadingSpaces()
        if rest.hasPrefix("postgresql://") || rest.hasPrefix("postgres://") {
            return String(text.prefix(3)) + redactedURI(String(String.UnicodeScalarView(body)))
        }
        return String(text.prefix(3)) + redactedKeywords(body)
    }

    /// libpq's `key = value` form (``ConnectionParameters``): every password's value, as
    /// written, becomes `***`; the rest is kept as it is.
    static func redactedKeywords(_ s: [Unicode.Scalar]) -> String {
        let parameters = ConnectionParameters(String(String.UnicodeScalarView(s)))
        var out = String.UnicodeScalarView()
        var i = 0
        for item in parameters.items where item.key.lowercased() == "password" {
            out.append(contentsOf: s[i..<item.written.lowerBound])
            out.append(contentsOf: "***".unicodeScalars)
            i = item.written.upperBound
        }
        out.append(contentsOf: s[i...])
        return String(out)
    }

    /// The URI form: `scheme://user:password@host…?…password=…&…`.
    static func redactedURI(_ uri: String) -> String {
        var result = uri
        if let scheme = result.range(of: "://") {
            let authorityEnd = result[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? result.endIndex
            let authority = result[scheme.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result.replaceSubrange(result.index(after: colon)..<at, with: "***")
            }
        }
        if let query = result.firstIndex(of: "?") {
            let head = result[...query]
            let items = result[result.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
                .map { item -> String in
                    let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return parts.count == 2 && parts[0].lowercased() == "password" ? parts[0] + "=***" : String(item)
                }
            result = head + items.joined(separator: "&")
        }
        return result
    }
}

extension String {
    fileprivate func trimmingLeadingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" })
    }
}
