extension JSONValue {
    /// The key path (`inputs[0].path`, from `path`) of the first key or string value that holds
    /// a NUL, or nil. Paths, names and SQL given to the system or to GDAL are read only up to a
    /// NUL: a manifest or input spec holding one would name another file, layer or filter than
    /// it shows.
    public func firstNUL(at path: String = "") -> String? {
        switch self {
        case .string(let s): return s.utf8.contains(0) ? path : nil
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let found = item.firstNUL(at: "\(path)[\(i)]") { return found }
            }
        case .object(let members):
            for (key, item) in members {
                let inner = path.isEmpty ? key : path + "." + key
                if key.utf8.contains(0) { return inner }
                if let found = item.firstNUL(at: inner) { return found }
            }
        default: break
        }
        return nil
    }
}
