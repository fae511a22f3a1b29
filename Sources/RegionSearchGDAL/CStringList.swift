import CGDAL

/// Calls `body` with a NULL-terminated `char **` option list (GDAL's `CSLConstList`, which is
/// `char **` in C) built from `strings`; the strings live only for the call. Empty passes NULL.
func withCStringList<T, E: Error>(
    _ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) throws(E) -> T
) throws(E) -> T {
    if strings.isEmpty { return try body(nil) }
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { for p in pointers { free(p) } }
    return try pointers.withUnsafeMutableBufferPointer { (buffer) throws(E) -> T in try body(buffer.baseAddress) }
}

/// The same for parameters declared `const char *const *` (e.g. `GDALOpenEx`).
func withConstCStringList<T, E: Error>(
    _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws(E) -> T
) throws(E) -> T {
    try withCStringList(strings) { (list) throws(E) -> T in
        try body(list.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<CChar>?.self) })
    }
}
