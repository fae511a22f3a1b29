import CCairo
import RegionSearchCore

/// A Cairo failure: the operation and `cairo_status_to_string` of the surface or context status.
public enum CairoError: Error, CustomStringConvertible, ExitCoded {
    /// A surface or context is in an error state after `operation`.
    case status(operation: String, message: String)

    init(_ operation: String, _ status: cairo_status_t) {
        self = .status(operation: operation, message: String(cString: cairo_status_to_string(status)))
    }

    public var description: String {
        switch self {
        case .status(let op, let message): return "cairo \(op) failed: \(message)"
        }
    }

    /// Drawing fails only for lack of memory or a broken Cairo installation: "processing failed".
    public var exitStatus: ExitStatus { .failure }
}
