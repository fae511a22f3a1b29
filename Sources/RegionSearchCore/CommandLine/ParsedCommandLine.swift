/// The result of parsing a command line: flags, option values (checked against their domains)
/// and positionals.
///
/// Options are read through their declarations, never by a name typed again: reading one the
/// command does not declare is a bug, which traps. A typed read returns the given value, or the
/// declared default when the option was not given, or nil.
public struct ParsedCommandLine: Sendable {
    public let spec: CommandSpec
    var flags: Set<String> = []
    /// Per option name, each value as typed and as its domain read it.
    var values: [String: [(text: String, value: JSONValue)]] = [:]
    var parameterTexts: [String: [String]] = [:]
    public var positionals: [String] = []

    init(spec: CommandSpec) { self.spec = spec }

    private func declared(_ option: CommandSpec.Option) -> CommandSpec.Option {
        guard let declared = spec.options.first(where: { $0.name == option.name }), declared == option else {
            preconditionFailure("\(spec.name) declares no option --\(option.name)")
        }
        return declared
    }

    /// Whether the flag was given.
    public func flag(_ option: CommandSpec.Option) -> Bool { flags.contains(declared(option).name) }

    /// Whether the option was given (a flag, or a value).
    public func isGiven(_ option: CommandSpec.Option) -> Bool {
        let o = declared(option)
        return flags.contains(o.name) || values[o.name] != nil
    }

    /// The option's value as typed (the last one, for a repeated option), if given.
    public func value(_ option: CommandSpec.Option) -> String? { values[declared(option).name]?.last?.text }

    /// Every value of a repeated option as typed, in order.
    public func all(_ option: CommandSpec.Option) -> [String] { (values[declared(option).name] ?? []).map(\.text) }

    /// A required option's value as typed.
    public func required(_ option: CommandSpec.Option) throws(UsageError) -> String {
        guard let v = value(option) else { throw UsageError("missing required option '--\(option.name)'") }
        return v
    }

    /// The option's value as its domain reads it (the last one given), else its default value.
    public func typedValue(_ option: CommandSpec.Option) -> JSONValue? {
        let o = declared(option)
        if let given = values[o.name]?.last { return given.value }
        if case .value(let v) = o.default { return v }
        return nil
    }

    /// Every value of a repeated option as its domain reads it, in order.
    public func typedValues(_ option: CommandSpec.Option) -> [JSONValue] {
        (values[declared(option).name] ?? []).map(\.value)
    }

    // Typed reads, in pairs as for parameters: `integer` for an option with a default value (or
    // one the command has checked is given), `optionalInteger` for one that may be absent.

    private func present(_ option: CommandSpec.Option) -> JSONValue {
        guard let v = typedValue(option) else {
            preconditionFailure("--\(option.name) has no default value: read it with an optional… accessor")
        }
        return v
    }

    /// An ``CommandSpec/Option/Domain/integer(_:)`` option with a default value.
    public func integer(_ option: CommandSpec.Option) -> Int { Self.integer(present(option), option) }

    /// An ``CommandSpec/Option/Domain/integer(_:)`` option: nil when not given and without default.
    public func optionalInteger(_ option: CommandSpec.Option) -> Int? {
        typedValue(option).map { Self.integer($0, option) }
    }

    /// A ``CommandSpec/Option/Domain/number(min:max:minExclusive:)`` option with a default value.
    public func number(_ option: CommandSpec.Option) -> Double { Self.number(present(option), option) }

    /// A number option: nil when not given and without default.
    public func optionalNumber(_ option: CommandSpec.Option) -> Double? {
        typedValue(option).map { Self.number($0, option) }
    }

    /// A choice, path or text option with a default value.
    public func string(_ option: CommandSpec.Option) -> String { Self.string(present(option), option) }

    /// A choice, path or text option: nil when not given and without default.
    public func optionalString(_ option: CommandSpec.Option) -> String? {
        typedValue(option).map { Self.string($0, option) }
    }

    /// A choice option with a default value as its enum: the domain lists exactly the enum's raw
    /// values.
    public func choice<Choice: RawRepresentable>(_ option: CommandSpec.Option, as type: Choice.Type) -> Choice
    where Choice.RawValue == String {
        Self.choice(string(option), option)
    }

    /// A choice option as its enum: nil when not given and without default.
    public func optionalChoice<Choice: RawRepresentable>(_ option: CommandSpec.Option, as type: Choice.Type) -> Choice?
    where Choice.RawValue == String {
        optionalString(option).map { Self.choice($0, option) }
    }

    /// A ``CommandSpec/Option/Domain/boolean`` option: nil when not given and without default.
    public func optionalBool(_ option: CommandSpec.Option) -> Bool? {
        typedValue(option).map { v in
            guard let b = v.boolValue else { preconditionFailure("--\(option.name) is not a boolean option") }
            return b
        }
    }

    /// A list option's items (with a default value).
    public func list(_ option: CommandSpec.Option) -> [JSONValue] { Self.list(present(option), option) }

    /// A list option's items: nil when not given and without default.
    public func optionalList(_ option: CommandSpec.Option) -> [JSONValue]? {
        typedValue(option).map { Self.list($0, option) }
    }

    private static func integer(_ v: JSONValue, _ option: CommandSpec.Option) -> Int {
        guard let i = v.intValue else { preconditionFailure("--\(option.name) is not an integer option") }
        return i
    }

    private static func number(_ v: JSONValue, _ option: CommandSpec.Option) -> Double {
        guard let d = v.doubleValue else { preconditionFailure("--\(option.name) is not a number option") }
        return d
    }

    private static func string(_ v: JSONValue, _ option: CommandSpec.Option) -> String {
        guard let s = v.stringValue else { preconditionFailure("--\(option.name) is not a text option") }
        return s
    }

    private static func choice<Choice: RawRepresentable>(_ text: String, _ option: CommandSpec.Option) -> Choice
    where Choice.RawValue == String {
        guard let c = Choice(rawValue: text) else { preconditionFailure("--\(option.name): no case '\(text)'") }
        return c
    }

    private static func list(_ v: JSONValue, _ option: CommandSpec.Option) -> [JSONValue] {
        guard let items = v.arrayValue else { preconditionFailure("--\(option.name) is not a list option") }
        return items
    }

    /// Whether any of `options` was given; the first that was.
    public func givenAny(_ options: [CommandSpec.Option]) -> CommandSpec.Option? {
        options.first { isGiven($0) }
    }

    /// Stage parameters: command-line values over defaults, validated.
    public func parameters() throws(UsageError) -> Parameters {
        var out: [(String, JSONValue)] = []
        for p in spec.parameters {
            if let texts = parameterTexts[p.key] {
                switch p.parse(texts) {
                case .success(let v): out.append((p.key, v))
                case .failure(let reason): throw UsageError("\(p.optionName): \(reason)")
                }
            } else if let d = p.defaultValue {
                out.append((p.key, d))
            } else {
                throw UsageError("missing required option '\(p.optionName)' (\(p.help))")
            }
        }
        return Parameters(values: out)
    }
}
