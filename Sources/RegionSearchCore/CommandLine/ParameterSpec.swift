import Foundation

/// One tunable parameter of a stage, declared once and used three ways: as a manifest key
/// (`snake_case`), as a command-line option (`--kebab-case`), and in the canonical parameter set
/// whose hash keys a cached stage run.
public struct ParameterSpec: Sendable {
    /// The value domain, used to validate both manifest values and command-line strings.
    public enum Domain: Sendable {
        case number(min: Double?, max: Double?, minExclusive: Bool = false)
        case integer(min: Int?, max: Int?)
        case choice([String])
        case boolean
        case string
        /// A list of strings (manifest array; repeated option or comma-separated on the CLI).
        case stringList
    }

    /// Manifest key, e.g. `max_edge_m`.
    public var key: String
    var domain: Domain
    /// Default value; `nil` means the parameter is required.
    public var defaultValue: JSONValue?
    /// One or two sentences, in map terms (metres, shares, p-values).
    public var help: String

    public init(_ key: String, _ domain: Domain, default defaultValue: JSONValue?, help: String) {
        self.key = key
        self.domain = domain
        self.defaultValue = defaultValue
        self.help = help
    }

    /// The command-line spelling, e.g. `--max-edge-m`.
    var optionName: String { "--" + key.replacingOccurrences(of: "_", with: "-") }

    /// A description of the domain for messages and help.
    var domainDescription: String {
        switch domain {
        case .number(let lo, let hi, let exclusive):
            return ValueSyntax.numberRange(min: lo, max: hi, minExclusive: exclusive)
        case .integer(let lo, let hi): return ValueSyntax.integerRange(min: lo, max: hi)
        case .choice(let options): return "one of " + options.map { "\"\($0)\"" }.joined(separator: ", ")
        case .boolean: return "true or false"
        case .string: return "a string"
        case .stringList: return "a list of strings"
        }
    }

    private func fmt(_ d: Double) -> String { ValueSyntax.format(d) }

    /// Validates a manifest value; returns the normalised value or a reason.
    public func validate(_ value: JSONValue) -> ParameterCheck {
        switch domain {
        case .number(let lo, let hi, let exclusive):
            guard let d = value.doubleValue else {
                return .failure("expected \(domainDescription), got \(value.typeName)")
            }
            if let lo, exclusive ? d <= lo : d < lo { return .failure("expected \(domainDescription), got \(fmt(d))") }
            if let hi, d > hi { return .failure("expected \(domainDescription), got \(fmt(d))") }
            return .success(.number(d))
        case .integer(let lo, let hi):
            guard let i = value.intValue else {
                return .failure("expected \(domainDescription), got \(value.serialized())")
            }
            if let lo, i < lo { return .failure("expected \(domainDescription), got \(i)") }
            if let hi, i > hi { return .failure("expected \(domainDescription), got \(i)") }
            return .success(.number(Double(i)))
        case .choice(let options):
            guard let s = value.stringValue else {
                return .failure("expected \(domainDescription), got \(value.typeName)")
            }
            guard options.contains(s) else { return .failure("expected \(domainDescription), got \"\(s)\"") }
            return .success(value)
        case .boolean:
            guard value.boolValue != nil else { return .failure("expected true or false, got \(value.typeName)") }
            return .success(value)
        case .string:
            guard value.stringValue != nil else { return .failure("expected a string, got \(value.typeName)") }
            return .success(value)
        case .stringList:
            if let s = value.stringValue { return .success(.array([.string(s)])) }
            guard let items = value.arrayValue else {
                return .failure("expected a list of strings, got \(value.typeName)")
            }
            for item in items where item.stringValue == nil {
                return .failure("expected a list of strings, found a \(item.typeName) in it")
            }
            return .success(value)
        }
    }

    /// Parses command-line text (all occurrences of the option) into a value.
    public func parse(_ texts: [String]) -> ParameterCheck {
        guard let last = texts.last else { return .failure("missing value") }
        switch domain {
        case .number, .integer:
            guard let d = ValueSyntax.number(last) else {
                return .failure("expected \(domainDescription), got \"\(last)\"")
            }
            return validate(.number(d))
        case .choice, .string:
            return validate(.string(last))
        case .boolean:
            guard let b = ValueSyntax.boolean(last) else { return .failure("expected true or false, got \"\(last)\"") }
            return .success(.bool(b))
        case .stringList:
            var items: [JSONValue] = []
            for t in texts {
                for part in t.split(separator: ",", omittingEmptySubsequences: true) {
                    items.append(.string(String(part)))
                }
            }
            return .success(.array(items))
        }
    }
}

/// The outcome of validating a parameter value.
public enum ParameterCheck {
    case success(JSONValue)
    case failure(String)
}

/// Resolved, validated parameter values of one stage (defaults filled in).
public struct Parameters: Sendable {
    public private(set) var values: [(String, JSONValue)]

    public init(values: [(String, JSONValue)]) { self.values = values }

    /// The canonical JSON object (sorted keys) that is hashed into a stage's cache key.
    public var canonical: JSONValue { .object(values.sorted { $0.0 < $1.0 }) }

    /// The value stored under `key`, if any (for code that copies parameter sets, not for reading
    /// a stage's settings: use the typed accessors with the parameter's ``ParameterSpec``).
    public subscript(key: String) -> JSONValue? {
        for (k, v) in values where k == key { return v }
        return nil
    }

    // Typed reads go through the parameter's spec, so a misspelt or foreign key cannot be read:
    // the spec is a declared constant, and reading one that is not part of this set is a bug
    // (the set was resolved from the stage's own specs, defaults filled in), which traps.

    /// The validated value of `spec` (`.null` when it has no value and its default is none).
    public func value(_ spec: ParameterSpec) -> JSONValue {
        guard let v = self[spec.key] else {
            preconditionFailure("parameter '\(spec.key)' is not among the resolved parameters \(values.map { $0.0 })")
        }
        return v
    }

    /// A number or integer parameter that has a value.
    public func double(_ spec: ParameterSpec) -> Double {
        guard let d = value(spec).doubleValue else { preconditionFailure("parameter '\(spec.key)' is not a number") }
        return d
    }

    /// A number parameter whose default is none: nil when not given.
    public func optionalDouble(_ spec: ParameterSpec) -> Double? {
        let v = value(spec)
        if v == .null { return nil }
        guard let d = v.doubleValue else { preconditionFailure("parameter '\(spec.key)' is not a number") }
        return d
    }

    public func int(_ spec: ParameterSpec) -> Int {
        guard let i = value(spec).intValue else { preconditionFailure("parameter '\(spec.key)' is not an integer") }
        return i
    }

    public func string(_ spec: ParameterSpec) -> String {
        guard let s = value(spec).stringValue else { preconditionFailure("parameter '\(spec.key)' is not a string") }
        return s
    }

    /// A string parameter whose default is none: nil when not given.
    public func optionalString(_ spec: ParameterSpec) -> String? {
        let v = value(spec)
        if v == .null { return nil }
        guard let s = v.stringValue else { preconditionFailure("parameter '\(spec.key)' is not a string") }
        return s
    }

    public func bool(_ spec: ParameterSpec) -> Bool {
        guard let b = value(spec).boolValue else { preconditionFailure("parameter '\(spec.key)' is not a boolean") }
        return b
    }

    public func strings(_ spec: ParameterSpec) -> [String] {
        guard let items = value(spec).arrayValue else { preconditionFailure("parameter '\(spec.key)' is not a list") }
        return items.map { item in
            guard let s = item.stringValue else { preconditionFailure("parameter '\(spec.key)' holds a non-string") }
            return s
        }
    }

    /// A choice parameter as its enum: the spec's domain lists exactly the enum's raw values.
    public func choice<Choice: RawRepresentable>(_ spec: ParameterSpec, as type: Choice.Type) -> Choice
    where Choice.RawValue == String {
        let text = string(spec)
        guard let c = Choice(rawValue: text) else { preconditionFailure("parameter '\(spec.key)': no case '\(text)'") }
        return c
    }

    public mutating func set(_ key: String, _ value: JSONValue) {
        if let i = values.firstIndex(where: { $0.0 == key }) {
            values[i].1 = value
        } else {
            values.append((key, value))
        }
    }

    /// Validates a manifest object against specs; unknown keys and bad values are errors that name
    /// the key (prefixed with `context`, e.g. `graph.max_edge_m`).
    public static func resolve(_ object: JSONValue?, specs: [ParameterSpec], context: String) throws(UsageError)
        -> Parameters
    {
        var given: [(String, JSONValue)] = []
        if let object {
            guard let members = object.objectValue else {
                throw UsageError("\(context): expected an object, got \(object.typeName)")
            }
            given = members
        }
        for (k, _) in given where !specs.contains(where: { $0.key == k }) {
            let known = specs.map { $0.key }.joined(separator: ", ")
            let hint = closestMatch(k, in: specs.map { $0.key }).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("\(context).\(k): unknown key\(hint); known keys: \(known)")
        }
        var out: [(String, JSONValue)] = []
        for spec in specs {
            if let v = given.first(where: { $0.0 == spec.key })?.1, v != .null {
                switch spec.validate(v) {
                case .success(let norm): out.append((spec.key, norm))
                case .failure(let reason): throw UsageError("\(context).\(spec.key): \(reason)")
                }
            } else if let d = spec.defaultValue {
                out.append((spec.key, d))
            } else {
                throw UsageError("\(context).\(spec.key): required (\(spec.help))")
            }
        }
        return Parameters(values: out)
    }

    /// Command-line arguments that reproduce these parameters.
    public func commandLine(specs: [ParameterSpec]) -> [String] {
        var args: [String] = []
        for spec in specs {
            guard let v = self[spec.key], v != .null else { continue }
            switch v {
            case .string(let s): args += [spec.optionName, s]
            case .number(let d): args += [spec.optionName, JSONValue.formatNumber(d)]
            case .bool(let b): args += [spec.optionName, b ? "true" : "false"]
            case .array(let items):
                for item in items { if let s = item.stringValue { args += [spec.optionName, s] } }
            default: continue
            }
        }
        return args
    }
}

/// The candidate closest to `word` by edit distance, when it is close enough to be a likely typo.
public func closestMatch(_ word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var prev = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var cur = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
    let w = Array(word)
    let best = candidates.map { ($0, distance(w, Array($0))) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, w.count / 3) else { return nil }
    return best.0
}
