import Foundation

/// Declares an executable's command line: options, positionals and help text.
///
/// A deliberately small stand-in for swift-argument-parser (which cannot be fetched here):
/// `--name value`, `--name=value`, boolean flags, repeated options, positionals, and `--`.
public struct CommandSpec: Sendable {
    /// An option that is not a stage parameter (paths, switches).
    public struct Option: Sendable, Equatable {
        public enum Kind: Sendable { case flag, value, repeated }
        public var name: String
        public var kind: Kind
        public var placeholder: String
        public var help: String
        public init(_ name: String, _ kind: Kind, placeholder: String = "VALUE", help: String) {
            self.name = name
            self.kind = kind
            self.placeholder = placeholder
            self.help = help
        }

        /// `--quiet`, which every command accepts.
        public static let quiet = Option("quiet", .flag, help: "Print only errors on stderr (no progress).")
        /// `--help`, which every command accepts.
        public static let help = Option("help", .flag, help: "Show this help and exit.")
        /// `--version`, which every command accepts.
        public static let version = Option("version", .flag, help: "Print the version and exit.")
        /// `--log-format human|json`, which every command accepts (``Log/Format``).
        public static let logFormat = Option(
            "log-format", .value, placeholder: "FORMAT",
            help:
                "human (default): lines for people; json: one JSON object per line on stderr with tool, level, stage, "
                + "phase, message, counts and seconds.")
        /// `--strict`, which every command accepts.
        public static let strict = Option(
            "strict", .flag,
            help:
                "Treat a warning about the data (a keyword that matches nothing, a property no feature has) "
                + "as an error: exit status 3.")
        /// The options every command accepts, appended to its own.
        public static let common = [quiet, logFormat, strict, version, help]
    }

    public var name: String
    public var abstract: String
    public var usage: String
    public var discussion: String
    public var options: [Option]
    public var parameters: [ParameterSpec]
    /// Whether positional arguments are accepted (described in `usage`).
    public var acceptsPositionals: Bool

    public init(
        name: String, abstract: String, usage: String, discussion: String = "", options: [Option] = [],
        parameters: [ParameterSpec] = [], acceptsPositionals: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.discussion = discussion
        self.options = options + Option.common
        self.parameters = parameters
        self.acceptsPositionals = acceptsPositionals
    }

    /// The full `--help` text.
    public var helpText: String {
        var out = "\(name) — \(abstract)\n\nUsage: \(usage)\n"
        if !discussion.isEmpty { out += "\n" + discussion + "\n" }
        if !options.isEmpty {
            out += "\nOptions:\n"
            for o in options {
                let head = "  --\(o.name)" + (o.kind == .flag ? "" : " \(o.placeholder)")
                out += Self.wrapHelp(head: head, text: o.help + (o.kind == .repeated ? " (repeatable)" : ""))
            }
        }
        if !parameters.isEmpty {
            out += "\nParameters (manifest key in brackets):\n"
            for p in parameters {
                let head = "  \(p.optionName) \(Self.placeholder(for: p))"
                var text = p.help + " [\(p.key); \(p.domainDescription)"
                if let d = p.defaultValue {
                    text += "; default \(d == .null ? "none" : d.serialized())"
                } else {
                    text += "; required"
                }
                out += Self.wrapHelp(head: head, text: text + "]")
            }
        }
        out += "\n" + ExitStatus.helpText + "\n"
        return out
    }

    static func placeholder(for p: ParameterSpec) -> String {
        switch p.domain {
        case .number: return "NUM"
        case .integer: return "INT"
        case .choice(let c): return c.joined(separator: "|")
        case .boolean: return "true|false"
        case .string: return "TEXT"
        case .stringList: return "A,B,..."
        }
    }

    static func wrapHelp(head: String, text: String, width: Int = 100) -> String {
        let indent = 8
        var out = head + "\n"
        var line = String(repeating: " ", count: indent)
        for word in text.split(separator: " ") {
            if line.count + word.count + 1 > width && line.count > indent {
                out += line + "\n"
                line = String(repeating: " ", count: indent)
            }
            line += (line.count > indent ? " " : "") + word
        }
        if line.count > indent { out += line + "\n" }
        return out
    }

    /// Parses arguments (without the program name).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommandLine {
        var result = ParsedCommandLine(spec: self)
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
                guard acceptsPositionals else {
                    throw UsageError("unexpected argument '\(arg)'")
                }
                result.positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            if arg == "-h" {
                result.flags.insert("help")
                continue
            }
            guard arg.hasPrefix("--") else { throw UsageError("unknown option '\(arg)' (options are spelled --name)") }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            func takeValue() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard i < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                i += 1
                return arguments[i - 1]
            }
            if let o = options.first(where: { $0.name == name }) {
                switch o.kind {
                case .flag:
                    if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                    result.flags.insert(name)
                case .value, .repeated:
                    result.values[name, default: []].append(try takeValue())
                }
            } else if let p = parameters.first(where: { $0.optionName == "--" + name }) {
                result.parameterTexts[p.key, default: []].append(try takeValue())
            } else {
                let all = options.map { $0.name } + parameters.map { String($0.optionName.dropFirst(2)) }
                let hint = closestMatch(name, in: all).map { " (did you mean '--\($0)'?)" } ?? ""
                throw UsageError("unknown option '--\(name)'\(hint)")
            }
        }
        for o in options where o.kind == .value {
            if let v = result.values[o.name], v.count > 1 {
                throw UsageError("option '--\(o.name)' given \(v.count) times")
            }
        }
        return result
    }
}

/// The result of parsing a command line.
public struct ParsedCommandLine: Sendable {
    public let spec: CommandSpec
    public var flags: Set<String> = []
    public var values: [String: [String]] = [:]
    var parameterTexts: [String: [String]] = [:]
    public var positionals: [String] = []

    init(spec: CommandSpec) { self.spec = spec }

    // Options are read through their declarations, never by a name typed again: reading one the
    // command does not declare is a bug, which traps.

    private func declared(_ option: CommandSpec.Option) -> String {
        precondition(spec.options.contains(option), "\(spec.name) declares no option --\(option.name)")
        return option.name
    }

    /// Whether the flag was given.
    public func flag(_ option: CommandSpec.Option) -> Bool { flags.contains(declared(option)) }

    /// The option's value (the last one, for a repeated option), if given.
    public func value(_ option: CommandSpec.Option) -> String? { values[declared(option)]?.last }

    /// Every value of a repeated option, in order.
    public func all(_ option: CommandSpec.Option) -> [String] { values[declared(option)] ?? [] }

    /// A required option's value.
    public func required(_ option: CommandSpec.Option) throws(UsageError) -> String {
        guard let v = value(option) else { throw UsageError("missing required option '--\(option.name)'") }
        return v
    }

    /// Whether any of `options` was given.
    public func givenAny(_ options: [CommandSpec.Option]) -> CommandSpec.Option? {
        options.first { values[declared($0)] != nil || flags.contains($0.name) }
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
