import RegionSearchCore

/// Which OpenStreetMap elements become POIs and which of their tags become name and keywords.
///
/// The rules, shared by ``OSMPBFReader`` and ``OSMXMLReader``:
///
/// - **POI:** a node or way is a POI when it carries at least one of ``poiKeys`` (any value; the
///   value `no` is not special). Relations are never POIs (they are counted and skipped).
///   Defaults: `amenity, shop, tourism, leisure, office, craft, historic, healthcare, sport,
///   public_transport` — the "what is here" keys of OSM map features; `building`, `highway`,
///   `landuse` and `natural` describe structure or terrain, not places people search for.
/// - **Keywords:** the values of ``keywordKeys``, in the order of that list (tags of one key in
///   file order). Each value is split at `;` (OSM's multi-value separator: `cuisine=pizza;burger`
///   gives `pizza` and `burger`), parts are trimmed of spaces, empty parts dropped, and exact
///   duplicates of one key within one element kept only once. The value `yes` means "some kind
///   of this" in OSM (`shop=yes`, `historic=yes`), so it is replaced by the key itself (`shop`,
///   `historic`); all other values are kept as given. Each value records its key: a plain search
///   for `pizza` or `cafe` matches regardless of which key carried it, `cuisine=pizza` only
///   under `cuisine`. Defaults: `amenity, shop, cuisine, tourism,
///   leisure, office, craft, historic, healthcare, sport` (`public_transport` marks POIs but its
///   values — `platform`, `stop_position` — are not useful search words).
/// - **Name:** the value of ``nameKey`` (default `name`), or empty when the element has none.
struct OSMOptions: Equatable, Sendable {
    /// The default POI keys (see the type documentation for the rationale).
    static let defaultPOIKeys = [
        "amenity", "shop", "tourism", "leisure", "office", "craft", "historic", "healthcare", "sport",
        "public_transport",
    ]
    /// The default keyword keys, in keyword order.
    static let defaultKeywordKeys = [
        "amenity", "shop", "cuisine", "tourism", "leisure", "office", "craft", "historic", "healthcare", "sport",
    ]
    /// The manifest keys accepted by ``init(json:context:)``.
    static let jsonKeys = ["poi_keys", "keyword_keys", "name_key"]

    /// Tag keys that make a node or way a POI (at least one must be present).
    var poiKeys: [String]
    /// Tag keys whose values become keywords, in this order.
    var keywordKeys: [String]
    /// Tag key of the POI name.
    var nameKey: String

    /// The defaults described in the type documentation.
    public init() {
        poiKeys = OSMOptions.defaultPOIKeys
        keywordKeys = OSMOptions.defaultKeywordKeys
        nameKey = "name"
    }

    /// Reads options from a manifest object with the optional keys `poi_keys`, `keyword_keys`
    /// (each a list of strings, or one string) and `name_key` (a string); missing keys keep their
    /// defaults. Unknown keys and bad values are errors naming `context.key`.
    public init(json: JSONValue, context: String) throws(UsageError) {
        self.init()
        guard let members = json.objectValue else {
            throw UsageError(
                "\(context): expected an object with "
                    + "keys \(OSMOptions.jsonKeys.joined(separator: ", ")), got \(json.typeName)"
            )
        }
        for (key, value) in members {
            switch key {
            case "poi_keys":
                poiKeys = try OSMOptions.keyList(value, context: "\(context).\(key)", allowEmpty: false)
            case "keyword_keys":
                keywordKeys = try OSMOptions.keyList(value, context: "\(context).\(key)", allowEmpty: true)
            case "name_key":
                guard let s = value.stringValue, !s.isEmpty else {
                    throw UsageError(
                        "\(context).\(key): expected a non-empty string (an OSM tag key), got \(value.serialized())")
                }
                nameKey = s
            default:
                let hint = closestMatch(key, in: OSMOptions.jsonKeys).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError(
                    "\(context).\(key): unknown key\(hint); known keys: \(OSMOptions.jsonKeys.joined(separator: ", "))")
            }
        }
    }

    /// The options as a manifest object (all keys, in ``jsonKeys`` order), e.g. for a stage's
    /// canonical parameter set.
    public var json: JSONValue {
        .object([
            ("poi_keys", .array(poiKeys.map { .string($0) })),
            ("keyword_keys", .array(keywordKeys.map { .string($0) })),
            ("name_key", .string(nameKey)),
        ])
    }

    private static func keyList(_ value: JSONValue, context: String, allowEmpty: Bool) throws(UsageError) -> [String] {
        let items: [JSONValue]
        if value.stringValue != nil {
            items = [value]
        } else if let array = value.arrayValue {
            items = array
        } else {
            throw UsageError("\(context): expected a list of OSM tag keys, got \(value.typeName)")
        }
        var keys: [String] = []
        for item in items {
            guard let s = item.stringValue else {
                throw UsageError("\(context): expected a list of strings, found a \(item.typeName) in it")
            }
            guard !s.isEmpty else { throw UsageError("\(context): empty tag key in the list") }
            guard !keys.contains(s) else { throw UsageError("\(context): '\(s)' is listed twice") }
            keys.append(s)
        }
        if keys.isEmpty && !allowEmpty {
            throw UsageError("\(context): the list is empty, so no element could be a POI; give at least one tag key")
        }
        return keys
    }
}
