/// The OSM tags region labels need, carried from a reader to the table as hstore text
/// (`"addr:street"=>"North Clark Street","place"=>"neighbourhood"`): a delimited input's
/// `columns.tags` column as it is (osm2pgsql's and ogr2ogr's `other_tags`), or what an OSM reader
/// found on the element.
///
/// Only `addr:street` (the POI's street) and `place` (a place node's kind) are read; every other
/// tag is left alone (keywords come from the keyword columns). Text cut short (Chicago's cells
/// end at 255 characters) keeps its complete pairs.
enum LabelTags {
    /// The tag keys read.
    static let street = "addr:street"
    static let place = "place"

    /// The street and place kind in hstore text (nil when absent, empty or `NULL`).
    static func read(_ text: UnsafeBufferPointer<UInt8>) -> (street: String?, place: String?) {
        var street: String?
        var place: String?
        var i = 0
        let n = text.count
        func skipBlanks() {
            while i < n, text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D { i += 1 }
        }
        /// A double-quoted string with `\"` and `\\` escapes; nil when it does not end.
        func quoted() -> [UInt8]? {
            guard i < n, text[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < n {
                let c = text[i]
                if c == UInt8(ascii: "\\"), i + 1 < n {
                    out.append(text[i + 1])
                    i += 2
                    continue
                }
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return out
                }
                out.append(c)
                i += 1
            }
            return nil
        }
        while i < n {
            skipBlanks()
            guard let key = quoted() else { break }
            skipBlanks()
            guard i + 1 < n, text[i] == UInt8(ascii: "="), text[i + 1] == UInt8(ascii: ">") else { break }
            i += 2
            skipBlanks()
            var value: [UInt8]?
            if i < n, text[i] == UInt8(ascii: "\"") {
                guard let v = quoted() else { break }
                value = v
            } else {
                // NULL (or a bare word): no value.
                while i < n, text[i] != UInt8(ascii: ",") { i += 1 }
            }
            if let value, !value.isEmpty {
                let k = String(decoding: key, as: UTF8.self)
                let v = String(decoding: value, as: UTF8.self).trimmingASCIIBlanks()
                if k == Self.street, !v.isEmpty { street = v }
                if k == Self.place, !v.isEmpty { place = v }
            }
            skipBlanks()
            guard i < n, text[i] == UInt8(ascii: ",") else { break }
            i += 1
        }
        return (street, place)
    }

    /// hstore text for the tags an OSM reader found ("" when none).
    static func hstore(street: String?, place: String?) -> String {
        func q(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var pairs: [String] = []
        if let street, !street.isEmpty { pairs.append(q(Self.street) + "=>" + q(street)) }
        if let place, !place.isEmpty { pairs.append(q(Self.place) + "=>" + q(place)) }
        return pairs.joined(separator: ",")
    }
}

extension String {
    /// Without leading and trailing ASCII blanks.
    func trimmingASCIIBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
