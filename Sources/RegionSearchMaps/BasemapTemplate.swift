import RegionSearchCore

/// A basemap tile URL template for the web map (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`),
/// checked before it reaches the page.
///
/// The template ends up in two places of the HTML: the page's data (JSON inside a script
/// element, escaped there) and, as its origin, the `Content-Security-Policy` meta element's
/// attribute. A host is therefore only accepted in the form a CSP host source has — letters,
/// digits, `-` and `.` (a leading `{s}.` for Leaflet's subdomains becomes `*.`), an optional
/// `:port`, or an IPv6 address in brackets — and the whole template only in URL characters
/// (printable ASCII without space, `"`, `<`, `>`, `\`, `^`, `` ` `` and `|`). Anything else is
/// refused with the reason, never pasted into the page.
public struct BasemapTemplate: Equatable, Sendable {
    /// The template as given.
    public let url: String
    /// The CSP source the page allows images from: `https://tile.openstreetmap.org`,
    /// `https://*.tile.example.org:8080`, or the scheme alone (`https:`) when the host holds
    /// another placeholder.
    public let origin: String

    /// Why a template was refused.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// Characters a template may hold: RFC 3986's unreserved, reserved and `%`, and the braces
    /// of Leaflet's placeholders.
    static func isURLCharacter(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~:/?#[]@!$&'()*+,;=%{}".utf8).contains(b)
        }
    }

    /// Checks `text` (see the type's documentation).
    public init(_ text: String) throws(Invalid) {
        let example = "e.g. \"https://tile.openstreetmap.org/{z}/{x}/{y}.png\""
        func invalid(_ reason: String) -> Invalid {
            Invalid(description: "\"\(PrintableText.of(text))\": \(reason)")
        }
        if let bad = text.utf8.first(where: { !Self.isURLCharacter($0) }) {
            let shown = bad < 0x80 ? "'\(PrintableText.of(bytes: [bad]))'" : "a non-ASCII byte"
            throw invalid(
                "\(shown) is not a URL character; write the template percent-encoded (an international "
                    + "domain name in its xn-- form), \(example)")
        }
        guard let separator = text.range(of: "://") else {
            throw invalid("expected an http or https tile URL template with {z}, {x} and {y}, \(example)")
        }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw invalid("the scheme must be https or http, \(example)")
        }
        guard text.contains("{z}"), text.contains("{x}"), text.contains("{y}") else {
            throw invalid("expected a tile URL template with {z}, {x} and {y}, \(example)")
        }
        let authority = String(text[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        guard !authority.isEmpty else { throw invalid("no host after \(scheme)://, \(example)") }
        if authority.contains("@") {
            throw invalid("user names or passwords in the URL are not accepted (the page is shared as a file)")
        }
        var host = authority
        var port = ""
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw invalid("unclosed [ in the host") }
            let address = host[host.index(after: host.startIndex)..<close]
            guard !address.isEmpty, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw invalid("\"[\(address)]\" is not an IPv6 address")
            }
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 address") }
                port = String(rest.dropFirst())
            }
            host = String(host[...close])
        } else if let colon = host.lastIndex(of: ":"), !host[colon...].contains("}") {
            port = String(host[host.index(after: colon)...])
            host = String(host[..<colon])
        }
        if !port.isEmpty || authority.hasSuffix(":") {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw invalid("the port must be digits")
            }
        }
        var origin: String
        if host.hasPrefix("[") {
            origin = "\(scheme)://\(host)"
        } else {
            var name = host
            var wildcard = false
            if name.hasPrefix("{s}.") {
                name.removeFirst(4)
                wildcard = true
            }
            if name.contains("{") || name.contains("}") {
                // Another placeholder in the host: the CSP can only allow the scheme.
                guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.{}".contains($0)) }) else {
                    throw invalid("the host may hold letters, digits, - and . and placeholders in braces")
                }
                self.url = text
                self.origin = scheme + ":"
                return
            }
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            guard !name.isEmpty,
                labels.allSatisfy({ label in
                    !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                })
            else {
                throw invalid(
                    "\"\(host)\" is not a host name (letters, digits and - in dot-separated labels, optionally "
                        + "after {s}.)")
            }
            origin = "\(scheme)://\(wildcard ? "*." : "")\(name)"
        }
        if !port.isEmpty { origin += ":" + port }
        url = text
        self.origin = origin
    }
}
