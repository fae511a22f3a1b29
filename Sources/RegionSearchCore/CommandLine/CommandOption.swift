import Foundation

extension CommandSpec {
    /// A command-line option that is not a stage parameter (paths, switches, a tool's settings),
    /// declared once with its value domain and its default: the parser checks every value against
    /// the domain, reads go through the declaration (``ParsedCommandLine/integer(_:)`` and the
    /// like), and `--help` and the usage line are written from it.
    public struct Option: Sendable, Equatable {
        /// What a value of the option may be.
        public indirect enum Domain: Sendable, Equatable {
            /// No value: the option is given or not.
            case flag
            /// An integer in the range.
            case integer(ClosedRange<Int>)
            /// A finite number at least `min` (more than it when `minExclusive`) and at most `max`.
            case number(min: Double? = nil, max: Double? = nil, minExclusive: Bool = false)
            /// One of these words.
            case choice([String])
            /// true or false (also yes/no, 1/0, on/off).
            case boolean
            /// A file or directory (or a `PG:` connection string where the command says so).
            case path
            /// Free text, checked by the command that reads it (a JSON spec, `KEY=VALUE`, an SQL
            /// statement).
            case text
            /// Values of the element domain separated by commas.
            case list(Domain)
        }

        /// What an option that is not given means.
        public enum Default: Sendable, Equatable {
            /// Nothing: the command does without (or reads the option only with another).
            case none
            /// The option must be given.
            case required
            /// This value, read as if it had been given.
            case value(JSONValue)
            /// A value the command works out when it runs (all cores, the input's directory),
            /// described for `--help`.
            case computed(String)
        }

        public var name: String
        public var domain: Domain
        public var `default`: Default
        /// Whether the option may be given several times (``ParsedCommandLine/all(_:)``).
        public var repeatable: Bool
        public var placeholder: String
        public var help: String

        /// - Parameters:
        ///   - placeholder: the value's name in `--help`; by default from the domain (`N`, `X`,
        ///     `a|b`, `PATH`, `TEXT`).
        public init(
            _ name: String, _ domain: Domain, default defaultValue: Default = .none, repeatable: Bool = false,
            placeholder: String? = nil, help: String
        ) {
            self.name = name
            self.domain = domain
            self.default = defaultValue
            self.repeatable = repeatable
            self.placeholder = placeholder ?? domain.placeholder
            self.help = help
        }

        public var isFlag: Bool { domain == .flag }

        /// `--quiet`, which every command accepts.
        public static let quiet = Option("quiet", .flag, help: "Print only errors on stderr (no progress).")
        /// `--help`, which every command accepts.
        public static let help = Option("help", .flag, help: "Show this help and exit.")
        /// `--version`, which every command accepts.
        public static let version = Option("version", .flag, help: "Print the version and exit.")
        /// `--log-format human|json`, which every command accepts (``Log/Format``).
        public static let logFormat = Option(
            "log-format", .choice(Log.Format.allCases.map(\.rawValue)),
            default: .value(.string(Log.Format.human.rawValue)),
            placeholder: "FORMAT",
            help:
                "human: lines for people; json: one JSON object per line on stderr with tool, level, stage, "
                + "phase, message, counts and seconds.")
        /// `--strict`, which every command accepts.
        public static let strict = Option(
            "strict", .flag,
            help:
                "Treat a warning about the data (a keyword that matches nothing, a property no feature has) "
                + "as an error: exit status 3.")
        /// The options every command accepts, appended to its own.
        public static let common = [quiet, logFormat, strict, version, help]

        /// `--threads N`: worker threads, for every command that runs parallel work
        /// (``Parallel/configure(threads:)``); `help` says what does not depend on it.
        public static func threads(_ help: String) -> Option {
            Option(
                "threads", .integer(1...1024), default: .computed("all cores"), placeholder: "N",
                help: "Worker threads. " + help)
        }

        /// A value given on the command line as the domain reads it (a number, a string, an array
        /// for a list), or why it is not one.
        public func read(_ text: String) -> ParameterCheck {
            switch domain.read(text) {
            case .success(let value): return .success(value)
            case .failure(let mismatch):
                var hint = ""
                if case .choice(let words) = domain, let near = closestMatch(text, in: words) {
                    hint = " (did you mean '\(near)'?)"
                }
                return .failure("expected \(mismatch.expected), got \"\(text)\"\(hint)")
            }
        }

        /// The parenthesised note `--help` adds to the option's own text: its domain (when the
        /// placeholder does not say it all), whether it is required, its default, and whether it
        /// repeats.
        var helpNote: String {
            var parts: [String] = []
            switch domain {
            case .integer, .number, .list: parts.append(domain.description)
            case .flag, .choice, .boolean, .path, .text: break
            }
            switch self.default {
            case .none: break
            case .required: parts.append("required")
            case .value(let v): parts.append("default " + Self.text(of: v))
            case .computed(let what): parts.append("default: " + what)
            }
            if repeatable { parts.append("repeatable") }
            return parts.isEmpty ? "" : " (" + parts.joined(separator: "; ") + ")"
        }

        /// A value as it would be typed: numbers in JSON form, strings bare, lists comma-separated.
        static func text(of value: JSONValue) -> String {
            switch value {
            case .number(let d): return JSONValue.formatNumber(d)
            case .string(let s): return s
            case .array(let items): return items.map { text(of: $0) }.joined(separator: ",")
            default: return value.serialized()
            }
        }
    }
}

extension CommandSpec.Option.Domain {
    /// The value's name in `--help` and usage lines when the declaration gives none.
    var placeholder: String {
        switch self {
        case .flag: return ""
        case .integer: return "N"
        case .number: return "X"
        case .choice(let words): return words.joined(separator: "|")
        case .boolean: return "true|false"
        case .path: return "PATH"
        case .text: return "TEXT"
        case .list(let element): return element.placeholder + ",..."
        }
    }

    /// What a value must be, for messages: "an integer in [1, 1024]".
    public var description: String {
        switch self {
        case .flag: return "no value"
        case .integer(let range):
            return ValueSyntax.integerRange(
                min: range.lowerBound == Int.min ? nil : range.lowerBound,
                max: range.upperBound == Int.max ? nil : range.upperBound)
        case .number(let lo, let hi, let exclusive):
            return ValueSyntax.numberRange(min: lo, max: hi, minExclusive: exclusive)
        case .choice(let words): return "one of " + words.joined(separator: ", ")
        case .boolean: return "true or false"
        case .path: return "a path"
        case .text: return "a text"
        case .list(let element): return "a list, each " + element.description + ", separated by commas"
        }
    }

    /// The largest integer an ``integer(_:)`` option takes whatever its range: every integer up to
    /// it is carried exactly by a JSON number and read back by ``JSONValue/intValue``.
    static let largestInteger = 8_999_999_999_999_999

    /// Reads one value, or says what it should have been.
    func read(_ text: String) -> Result<JSONValue, DomainMismatch> {
        switch self {
        case .flag: return .failure(DomainMismatch(description))
        case .integer(let range):
            guard let n = ValueSyntax.integer(text), range.contains(n) else {
                return .failure(DomainMismatch(description))
            }
            // The value is carried as a JSON number (a Double), which ``JSONValue/intValue`` reads
            // back only below 9e15: a larger one (a seed of 2^63 − 1) would be rounded, then fail
            // to read as an integer at all.
            guard n.magnitude <= Self.largestInteger else {
                return .failure(
                    DomainMismatch(
                        "\(description), at most \(Self.largestInteger) in magnitude (larger integers are not "
                            + "carried exactly)"))
            }
            return .success(.number(Double(n)))
        case .number(let lo, let hi, let exclusive):
            guard let d = ValueSyntax.number(text) else { return .failure(DomainMismatch(description)) }
            if let lo, exclusive ? d <= lo : d < lo { return .failure(DomainMismatch(description)) }
            if let hi, d > hi { return .failure(DomainMismatch(description)) }
            return .success(.number(d))
        case .choice(let words):
            guard words.contains(text) else { return .failure(DomainMismatch(description)) }
            return .success(.string(text))
        case .boolean:
            guard let b = ValueSyntax.boolean(text) else { return .failure(DomainMismatch(description)) }
            return .success(.bool(b))
        case .path, .text:
            return .success(.string(text))
        case .list(let element):
            var items: [JSONValue] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                let item = String(part).trimmingCharacters(in: .whitespaces)
                guard case .success(let value) = element.read(item) else {
                    return .failure(DomainMismatch(description))
                }
                items.append(value)
            }
            return .success(.array(items))
        }
    }
}

/// A value outside an option's domain: the domain's description.
struct DomainMismatch: Error {
    var expected: String
    init(_ expected: String) { self.expected = expected }
}
