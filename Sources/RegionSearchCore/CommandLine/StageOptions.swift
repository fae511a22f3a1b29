/// The typed settings of one stage, built and validated once from its resolved ``Parameters``
/// (from a manifest or a command line).
///
/// `specs` is the single declaration of the stage's parameters: it drives `--help`, manifest
/// validation, the command line the runner passes and the canonical set hashed into the cache
/// key. `init(_:)` reads every value through its spec and checks what a spec's domain cannot
/// express (a bounding box's syntax, a keyword's text), so a manifest fails before anything runs.
public protocol StageOptions: Sendable {
    /// The stage's parameters, in the order `--help` lists them.
    static var specs: [ParameterSpec] { get }
    /// The options from parameters resolved against ``specs`` (defaults filled in).
    init(_ parameters: Parameters) throws(ParameterError)
}

/// A parameter value that its spec's domain admits but the stage cannot use; rendered with the
/// manifest key (`ingest.bbox: …`) or the option (`--bbox: …`) by whoever read it.
public struct ParameterError: Error, CustomStringConvertible {
    public var spec: ParameterSpec
    /// The item of a list parameter the problem is in.
    public var index: Int?
    public var reason: String

    public init(_ spec: ParameterSpec, index: Int? = nil, _ reason: String) {
        self.spec = spec
        self.index = index
        self.reason = reason
    }

    /// `key` or `key[i]`.
    public var keyPath: String { spec.key + (index.map { "[\($0)]" } ?? "") }

    public var description: String { "\(keyPath): \(reason)" }

    /// The error as a manifest problem: `context.key: reason`.
    public func usage(context: String) -> UsageError { UsageError("\(context).\(keyPath): \(reason)") }

    /// The error as a command-line problem: `--option: reason`.
    var commandLineUsage: UsageError { UsageError("\(spec.optionName): \(reason)") }
}

extension StageOptions {
    /// Resolves a manifest object against ``specs`` and builds the options; errors name the key
    /// prefixed with `context` (e.g. `graph.max_edge_m`).
    public static func resolve(_ object: JSONValue?, context: String) throws(UsageError) -> (Parameters, Self) {
        let parameters = try Parameters.resolve(object, specs: specs, context: context)
        do {
            return (parameters, try Self(parameters))
        } catch {
            throw error.usage(context: context)
        }
    }

    /// The options from command-line parameters; errors name the option.
    public static func fromCommandLine(_ parameters: Parameters) throws(UsageError) -> Self {
        do {
            return try Self(parameters)
        } catch {
            throw error.commandLineUsage
        }
    }
}
