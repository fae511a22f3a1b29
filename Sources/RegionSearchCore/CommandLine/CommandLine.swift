import Foundation

/// Declares an executable's command line: options, positionals and help text.
///
/// A deliberately small stand-in for swift-argument-parser (which cannot be fetched here):
/// `--name value`, `--name=value`, boolean flags, repeated options, positionals, and `--`. Every
/// option and parameter declares its value domain and default once (``Option``,
/// ``ParameterSpec``); the parser checks values against them, and the usage line and `--help`
/// are written from them.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    /// The positional arguments of each form of the command, e.g. `["MANIFEST"]`, or
    /// `["truth REGIONS TRUTH...", "compare A B"]`; empty when it takes none.
    public var positionals: [String]
    public var discussion: String
    public var options: [Option]
    public var parameters: [ParameterSpec]

    /// Whether positional arguments are accepted (described in ``positionals``).
    public var acceptsPositionals: Bool { !positionals.isEmpty }

    public init(
        name: String, abstract: String, positionals: [String] = [], discussion: String = "",
        options: [Option] = [], parameters: [ParameterSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.positionals = positionals
        self.discussion = discussion
        self.options = options + Option.common
        self.parameters = parameters
    }

    /// The command's own options, without the ones every command accepts.
    var ownOptions: [Option] { options.filter { !Option.common.contains($0) } }

    /// The usage line: the positionals, then the required options, then every other option and
    /// parameter in brackets (a repeatable one followed by `...`), wrapped. A command with several
    /// forms shows each form with `[options]`; `--help` lists them below.
    public var usage: String {
        let forms = positionals.isEmpty ? [""] : positionals
        if forms.count > 1 {
            return forms.map { "\(name) \($0) [options]" }.joined(separator: "\n       ")
        }
        var items: [String] = forms[0].isEmpty ? [] : [forms[0]]
        let own = ownOptions
        for o in own where o.default == .required { items.append(Self.synopsis(o)) }
        for o in own where o.default != .required {
            items.append("[" + Self.synopsis(o) + "]" + (o.repeatable ? "..." : ""))
        }
        for p in parameters { items.append("[\(p.optionName) \(Self.placeholder(for: p))]") }
        return Self.wrap(items, first: name, indent: "Usage: ".count + name.count + 1)
    }

    /// The command and its positionals, for messages: `regionsearch run MANIFEST [options]`.
    public var shortUsage: String {
        (positionals.isEmpty ? [name] : positionals.map { "\(name) \($0)" })
            .map { $0 + " [options]" }.joined(separator: " | ")
    }

    /// `--name PLACEHOLDER`, or `--name` for a flag.
    static func synopsis(_ o: Option) -> String { "--\(o.name)" + (o.isFlag ? "" : " \(o.placeholder)") }

    /// The full `--help` text.
    public var helpText: String {
        var out = "\(name) — \(abstract)\n\nUsage: \(usage)\n"
        if !discussion.isEmpty { out += "\n" + discussion + "\n" }
        if !options.isEmpty {
            out += "\nOptions:\n"
            for o in options { out += Self.wrapHelp(head: "  " + Self.synopsis(o), text: o.help + o.helpNote) }
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

    /// `first` followed by `items`, wrapped at `width` with continuation lines indented.
    static func wrap(_ items: [String], first: String, indent: Int, width: Int = 100) -> String {
        var lines: [String] = []
        var line = first
        for item in items {
            if line.count + 1 + item.count + (lines.isEmpty ? "Usage: ".count : 0) > width && line.count > indent {
                lines.append(line)
                line = String(repeating: " ", count: indent - 1)
            }
            line += " " + item
        }
        lines.append(line)
        return lines.joined(separator: "\n")
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

    /// Parses arguments (without the program name). Every option value is checked against its
    /// domain here, so a command reads typed values without further checks.
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
                if o.isFlag {
                    if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                    result.flags.insert(name)
                } else {
                    let text = try takeValue()
                    switch o.read(text) {
                    case .success(let value): result.values[name, default: []].append((text, value))
                    case .failure(let reason): throw UsageError("--\(name): \(reason)")
                    }
                }
            } else if let p = parameters.first(where: { $0.optionName == "--" + name }) {
                result.parameterTexts[p.key, default: []].append(try takeValue())
            } else {
                let all = options.map { $0.name } + parameters.map { String($0.optionName.dropFirst(2)) }
                let hint = closestMatch(name, in: all).map { " (did you mean '--\($0)'?)" } ?? ""
                throw UsageError("unknown option '--\(name)'\(hint)")
            }
        }
        for o in options where !o.isFlag && !o.repeatable {
            if let v = result.values[o.name], v.count > 1 {
                throw UsageError("option '--\(o.name)' given \(v.count) times")
            }
        }
        return result
    }
}
