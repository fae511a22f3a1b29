import RegionSearchCore

/// What a reader can tell about the record its `next()` returned last, so that the ingest
/// driver can write a record it refuses (bad coordinates) to the rejects file as it appeared in
/// the input, and say precisely why.
///
/// The answers are only valid until the following call to `next()`: readers keep no copy of
/// the text of accepted records. Readers that do not adopt this protocol get a description built
/// from the ``RawRecord`` instead.
protocol RecordSourceDiagnostics: RecordSource {
    /// The last record as it appeared in the input (without its line terminator).
    func lastRecordText() -> String
    /// The coordinate text of the last record when it was present but could not be read as
    /// numbers (the reader then reported NaN); nil when the coordinates were missing or numeric.
    func lastCoordinateText() -> String?
}

extension RawRecord {
    /// A faithful one-line description of a record for readers without ``RecordSourceDiagnostics``
    /// (binary formats): the fields the reader extracted, as a JSON object.
    var descriptionForRejects: String {
        JSONValue.object([
            ("id", .string(id)), ("name", .string(name)),
            ("keywords", .array(keywords.map { .string($0) })),
            ("lon", lon.isFinite ? .number(lon) : .null), ("lat", lat.isFinite ? .number(lat) : .null),
        ]).serialized()
    }
}
