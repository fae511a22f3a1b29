import CGDAL
import Foundation
import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes tables to PostGIS through GDAL's PostgreSQL driver so that a failed or killed writer
/// leaves the previous tables exactly as they were.
///
/// ``write(_:srs:)`` writes all its tables in one transaction (`BEGIN` …
/// `COMMIT`). `overwrite`: per table, create the staging table `<table>__tmp_<pid>_<hex>` (the
/// table's name cut to fit its index names in 63 bytes),
/// `COPY` the features into it, build its GiST index, `DROP TABLE <table>`, `ALTER TABLE
/// <staging> RENAME TO <table>`, and rename the staging table's index, primary key and FID
/// sequence to the names a fresh table has (or, where another relation holds one, the first free
/// name after it: `<name>1`, `<name>2`, …). `append`: add the features to the existing table
/// (created when missing, as overwrite builds one). Until the commit other sessions see only the
/// old tables; a killed writer's connection drops, the server rolls the transaction back, and
/// neither a staging table nor any change remains. The old table is locked (ACCESS EXCLUSIVE,
/// taken just before the DROP) only from the swap to the commit; a wait for that lock ends after
/// `lock_timeout` (see ``write(_:srs:history:)``).
///
/// Each call opens its own connection and closes it at the end: the driver caches a connection's
/// layer list and knows nothing of tables renamed through SQL, so a second overwrite on one
/// connection would find a stale staging layer.
public final class PostGISTableWriter {
    /// What happens to a table that exists.
    public enum Mode: String, CaseIterable, Sendable {
        /// Replace it atomically (the default).
        case overwrite
        /// Add the features to it, all or nothing.
        case append
    }

    /// History rows for `append` (``write(_:srs:history:)``): each run's rows carry `run_id` and
    /// `valid_from`, and the rows of the run before are closed (`valid_to`) in the same
    /// transaction; a run whose `run_id` the table already holds appends nothing (a rerun).
    public struct History: Sendable, Equatable {
        /// The history columns, in this order, after the layer's own: text (ISO 8601 UTC times,
        /// which sort as text).
        public static let columns = ["run_id", "valid_from", "valid_to"]
        public var runID: String
        /// When the run published: the new rows' `valid_from` and the old ones' `valid_to`.
        public var time: String
        /// A table's own run id where it is not ``runID`` (the POI table: what its layer is made
        /// from), by table name.
        public var tableRunIDs: [String: String]

        public init(runID: String, time: String, tableRunIDs: [String: String] = [:]) {
            self.runID = runID
            self.time = time
            self.tableRunIDs = tableRunIDs
        }

        /// The history of one table: its own run id.
        public func forTable(_ table: String) -> History {
            History(runID: tableRunIDs[table] ?? runID, time: time)
        }
    }

    /// The `PG:` connection string, e.g. `PG:host=/tmp/sock dbname=gis user=postgres`.
    public let connection: String

    public init(connection: String) {
        self.connection = connection
    }

    /// Layer creation options: geometry column `geom`, FID column `fid`, a GiST index, 2D, unsized
    /// `varchar` for strings (`PRECISION=NO`), and field names kept exactly as the schema spells
    /// them (`LAUNDER=NO`), so that the columns are those of every other output format.
    public static let layerOptions = [
        "GEOMETRY_NAME=geom", "FID=fid", "SPATIAL_INDEX=GIST", "DIM=2", "PRECISION=NO", "LAUNDER=NO",
    ]

    private func open() throws(GDALError) -> GDALDataset {
        try GDALDataset(openingVector: connection, update: true, allowedDrivers: ["PostgreSQL"])
    }

    /// Opens the connection once, for update: the check made before a run's stages start. With
    /// `tables` (each table's first two fields, ``refuseForeignTable(_:layer:in:)``, and its
    /// mode), also the checks ``write(_:srs:history:)`` would fail on after the stages: the
    /// connection may write (a hot standby, or `default_transaction_read_only` set for the
    /// database or role, refuses every write), the schema active_schema names exists, the role
    /// may create a table in it where one is made (every overwrite, an append to a missing
    /// table), no table of these names is a user's, and a table overwrite replaces is the role's
    /// (only its owner may drop it) and nothing outside it depends on it (a view, another table's
    /// foreign key, a function: ``refuseDependents(of:in:)``). Those failed after an hour of stages, in GDAL's or the
    /// server's words; now before them, saying what to do. Reads only.
    public func checkConnection(tables: [(table: String, firstFields: [String], mode: Mode)] = [])
        throws(GDALError)
    {
        let dataset = try open()
        defer { try? dataset.close() }
        guard !tables.isEmpty else { return }
        try refuseReadOnly(in: dataset)
        let schema = try Self.schema(for: connection, in: dataset)
        for (table, fields, mode) in tables {
            try Self.validate(table)
            let name = QualifiedName(schema: schema, table: table)
            try refuseForeignTable(name, core: fields, in: dataset)
            let present = try exists(name, in: dataset)
            if mode == .overwrite || !present { try refuseWithoutCreate(name, in: dataset) }
            if mode == .overwrite && present {
                try refuseForeignOwner(name, in: dataset)
                try refuseDependents(of: name, in: dataset)
            }
        }
    }

    /// The first `count` columns of the first row of `sql`, as text (a null: ""); nil for no
    /// row. Columns, not one joined string: a role's name may hold any character. Each column
    /// needs a name of its own (`AS`): GDAL keeps one of two columns of one name, empty.
    private func texts(_ sql: String, count: Int, in dataset: GDALDataset) throws(GDALError) -> [String]? {
        guard let result = try dataset.executeSQL(sql), let row = try result.nextFeature() else { return nil }
        return (0..<count).map { column -> String in
            if case .string(let text) = row.value(at: column) { return text }
            return ""
        }
    }

    /// Refuses a connection whose transactions are read-only: a standby in recovery, or
    /// `default_transaction_read_only` on (the database's, the role's or the connection's).
    private func refuseReadOnly(in dataset: GDALDataset) throws(GDALError) {
        let sql = "SELECT current_setting('transaction_read_only') AS read_only, pg_is_in_recovery()::text AS standby"
        guard let state = try texts(sql, count: 2, in: dataset), state[0] == "on" else { return }
        if state[1] == "true" {
            throw .invalidArgument(
                "the connection is read-only (transaction_read_only = on): the server is a standby in recovery, "
                    + "which takes no writes; connect to the primary")
        }
        throw .invalidArgument(
            "the connection is read-only (transaction_read_only = on, from default_transaction_read_only of the "
                + "database, the role or the connection); connect to a database that takes writes, or turn it off: "
                + "ALTER DATABASE … RESET default_transaction_read_only (or ALTER ROLE …), or "
                + "options='-c default_transaction_read_only=off' in the PG: string")
    }

    /// Refuses to write where the role may not create the table: its schema lacks CREATE (and
    /// USAGE, without which nothing in it can be reached) for the role.
    private func refuseWithoutCreate(_ name: QualifiedName, in dataset: GDALDataset) throws(GDALError) {
        let schema = Self.literal(name.schema)
        let sql =
            "SELECT current_user::text AS role, has_schema_privilege(current_user, \(schema), 'CREATE')::text AS "
            + "can_create, has_schema_privilege(current_user, \(schema), 'USAGE')::text AS can_use"
        guard let parts = try texts(sql, count: 3, in: dataset), parts[1] != "true" || parts[2] != "true" else {
            return
        }
        let role = parts[0]
        let missing = [parts[1] == "true" ? nil : "CREATE", parts[2] == "true" ? nil : "USAGE"].compactMap { $0 }
            .joined(separator: ", ")
        throw .invalidArgument(
            "role \(role) has no \(missing) privilege on schema \(name.schema), and writing table \(name.table) "
                + "creates a table there (overwrite always, append when it is missing): GRANT \(missing) ON SCHEMA "
                + "\(Self.quote(name.schema)) TO \(Self.quote(role)), connect as a role that has it, or name a schema "
                + "it may create in (active_schema=)")
    }

    /// Refuses to overwrite a table the role does not own (nor is a member of its owner role):
    /// PostgreSQL lets only the owner drop it.
    private func refuseForeignOwner(_ name: QualifiedName, in dataset: GDALDataset) throws(GDALError) {
        let sql =
            "SELECT pg_get_userbyid(c.relowner)::text AS owner, current_user::text AS role FROM pg_class c "
            + "WHERE c.oid = to_regclass(\(Self.literal(name.sql))) "
            + "AND NOT pg_has_role(current_user, c.relowner, 'USAGE')"
        guard let parts = try texts(sql, count: 2, in: dataset) else { return }
        let (owner, role) = (parts[0], parts[1])
        throw .invalidArgument(
            "table \(name.schema).\(name.table) is owned by \(owner), not by role \(role): \"mode\": \"overwrite\" "
                + "replaces the table, which only its owner (or a member of \(owner)) may do; connect as \(owner), "
                + "GRANT \(Self.quote(owner)) TO \(Self.quote(role)), or use \"mode\": \"append\" (with INSERT and "
                + "UPDATE granted on it)")
    }

    /// The largest value of the integer column `column` in `table` (in the schema tables go to);
    /// nil when the table does not exist, has no such column or no rows. Reads only.
    public func largestValue(of column: String, in table: String) throws(GDALError) -> Int? {
        try largestValue(inColumns: { $0 == column }, of: table)
    }

    /// The largest value in `table`'s integer columns whose names `accept` takes (an appended POI
    /// table's `region_1`, `region_2`, … of every night's keywords); nil when the table does not
    /// exist, has no such column or no value in them. Reads only.
    public func largestValue(inColumns accept: (String) -> Bool, of table: String) throws(GDALError) -> Int? {
        try Self.validate(table)
        let dataset = try open()
        defer { try? dataset.close() }
        // A table another session holds is waited for as long as a write waits, not for ever.
        try limitLockWait(own: !setsLockTimeout, local: false, in: dataset)
        let name = QualifiedName(schema: try Self.schema(for: connection, in: dataset), table: table)
        guard try exists(name, in: dataset) else { return nil }
        let chosen = try columns(of: name, in: dataset).filter(accept).sorted()
        guard !chosen.isEmpty else { return nil }
        let maxima = chosen.map { "max(\(Self.quote($0)))::bigint" }.joined(separator: ", ")
        let sql =
            chosen.count == 1 ? "SELECT \(maxima) FROM \(name.sql)" : "SELECT greatest(\(maxima)) FROM \(name.sql)"
        guard let result = try dataset.executeSQL(sql), let row = try result.nextFeature(),
            case .integer(let n) = row.value(at: 0)
        else { return nil }
        return Int(n)
    }

    /// The schema tables go to (see ``write(_:srs:history:)``).
    static func schema(for connection: String, in dataset: GDALDataset) throws(GDALError) -> String {
        guard let named = activeSchema(in: connection) else { return try targetSchema(in: dataset) }
        // GDAL looks a layer up as "schema.table" and splits at the first dot: a schema `a.b`
        // would find table `b.regions` of schema `a`.
        guard !named.contains(".") else {
            throw GDALError.invalidArgument(
                "the schema \(named) that active_schema (or schemas) names holds a '.', which GDAL takes for the "
                    + "end of the schema's name; use a schema whose name has none")
        }
        guard try schemaExists(named, in: dataset) else {
            throw GDALError.invalidArgument(
                "the schema \(named) that active_schema (or schemas) names does not exist; create it, "
                    + "or correct the PG: string")
        }
        return named
    }

    /// How long one attempt waits for a table's lock (`lock_timeout`, set for the transaction
    /// unless the connection sets its own: in `options='-c lock_timeout=…'` or `PGOPTIONS`, or a
    /// value other than 0 that the server's settings give, by `ALTER ROLE`/`ALTER DATABASE … SET
    /// lock_timeout` or `postgresql.conf`).
    public static let lockTimeout = "10s"
    /// Attempts before a table held by another session fails the write, and the pause between
    /// two attempts, in seconds.
    public static let lockAttempts = 3
    static let lockPause: UInt32 = 2

    /// Writes every table, each in its mode, in one transaction (see the type's documentation).
    ///
    /// A table another session holds (an open transaction that read it, a long query) blocks the
    /// `DROP` or `ALTER` of the swap; while it waits, every new reader of the table queues behind
    /// it, so a night that waits without end takes the table away from its readers too. Each
    /// attempt waits at most ``lockTimeout``; after ``lockAttempts`` the write fails with
    /// ``GDALError/tableInUse(_:)`` and the tables are as they were.
    /// - Returns: the number of features written per table.
    @discardableResult
    public func write(
        _ tables: [(table: String, layer: OutputLayer, mode: Mode)], srs: SpatialReference, history: History? = nil
    ) throws(GDALError) -> [Int] {
        for (table, _, _) in tables { try Self.validate(table) }
        let ownTimeout = !setsLockTimeout
        var attempt = 1
        var waited = Self.lockTimeout
        while true {
            do throws(GDALError) {
                return try writeOnce(tables, srs: srs, history: history, lockTimeout: ownTimeout, waited: &waited)
            } catch {
                guard Self.isLockTimeout(error) else { throw error }
                guard attempt < Self.lockAttempts else {
                    let held = Self.heldTable(in: error) ?? tables.map(\.table).joined(separator: ", ")
                    throw .tableInUse(
                        "another session holds a lock on \(held) (an open "
                            + "transaction that read it, or a long query); \(attempt) attempts each waited "
                            + "\(waited) (lock_timeout) for it, and the tables are as they were. End that session "
                            + "(pg_stat_activity shows it) or run again later; to wait longer, give "
                            + "options='-c lock_timeout=60s' in the PG: string")
                }
                attempt += 1
                sleep(Self.lockPause)
            }
        }
    }

    /// Whether the connection string or `PGOPTIONS` sets `lock_timeout` itself.
    var setsLockTimeout: Bool {
        let parameters = ConnectionParameters(
            connection.hasPrefix("PG:") ? connection.dropFirst(3) : Substring(connection))
        let options =
            (parameters.value(of: "options") ?? "") + " " + (ProcessInfo.processInfo.environment["PGOPTIONS"] ?? "")
        return options.contains("lock_timeout")
    }

    /// What ``lock(_:mode:in:)`` raises when the server gives up waiting for a table's lock.
    static let lockTimeoutMarker = "regionsearch: lock_timeout waiting for table"

    /// Whether the server cancelled a statement for waiting longer than `lock_timeout` for a lock:
    /// ``lock(_:mode:in:)``'s own message, which the server's language does not change, or the
    /// server's for a statement that waited on its own (English servers only).
    static func isLockTimeout(_ error: GDALError) -> Bool {
        error.messages.contains { $0.text.contains(lockTimeoutMarker) || $0.text.contains("lock timeout") }
    }

    /// The table ``lock(_:mode:in:)`` waited for, from its message (`schema.table`, unquoted);
    /// nil for a wait the server told in its own words, which name no table.
    static func heldTable(in error: GDALError) -> String? {
        for message in error.messages {
            guard let marker = message.text.range(of: lockTimeoutMarker + " ") else { continue }
            // `"schema"."table"` as ``QualifiedName/sql`` writes it: a table's name holds no quote
            // (``validate(_:limit:)``), a schema's may hold anything.
            let line = message.text[marker.upperBound...].prefix { $0 != "\n" }
            guard let dot = line.range(of: "\".\"", options: .backwards) else { return nil }
            let table = line[dot.upperBound...].prefix { $0 != "\"" }
            return table.isEmpty ? nil : String(table)
        }
        return nil
    }

    /// Takes `mode`'s lock on the table `name`, when it exists, waiting at most `lock_timeout`.
    ///
    /// The server words its errors in its own language (`lc_messages`): a German server's "lock
    /// timeout" reads otherwise, and was not retried or explained. The lock is taken in a
    /// PL/pgSQL block that catches the wait's SQLSTATE by its name (`lock_not_available`, 55P03)
    /// and raises ``lockTimeoutMarker`` instead. The lock is the transaction's until it ends (a
    /// block that completes keeps what it took).
    private func lock(_ name: QualifiedName, mode: String, in dataset: GDALDataset) throws(GDALError) {
        // The block's body is a quoted literal, not dollar-quoted: a schema's name may hold `$`.
        let relation = Self.literal(name.sql)
        let body =
            "BEGIN IF to_regclass(\(relation)) IS NOT NULL THEN LOCK TABLE \(name.sql) IN \(mode) MODE; END IF; "
            + "EXCEPTION WHEN lock_not_available THEN RAISE EXCEPTION '\(Self.lockTimeoutMarker) %', \(relation); END"
        try dataset.executeSQL("DO " + Self.literal(body))
    }

    /// Limits the transaction's wait for a lock to ``lockTimeout`` unless the connection set a
    /// `lock_timeout` (`own` false) or the server's settings (the role's, the database's, its
    /// configuration file) give one other than 0;
    /// returns the limit in force, as the server shows it ("10s").
    /// `local` false: for the session (a read outside a transaction).
    @discardableResult
    private func limitLockWait(own: Bool, local: Bool = true, in dataset: GDALDataset) throws(GDALError) -> String {
        if own {
            let setting = try texts(
                "SELECT source, setting FROM pg_settings WHERE name = 'lock_timeout'", count: 2, in: dataset)
            if setting == nil || setting?[0] == "default" || setting?[1] == "0" {
                try dataset.executeSQL("SET \(local ? "LOCAL " : "")lock_timeout = \(Self.literal(Self.lockTimeout))")
            }
        }
        let limit = try texts("SELECT current_setting('lock_timeout') AS lock_timeout", count: 1, in: dataset)?[0]
        return limit.flatMap { $0.isEmpty ? nil : $0 } ?? Self.lockTimeout
    }

    private func writeOnce(
        _ tables: [(table: String, layer: OutputLayer, mode: Mode)], srs: SpatialReference, history: History?,
        lockTimeout: Bool, waited: inout String
    ) throws(GDALError) -> [Int] {
        // COPY instead of one INSERT per feature (about 20× faster); GDAL uses COPY by default
        // only for tables it has just created.
        return try GDALLibrary.withThreadLocalConfig([("PG_USE_COPY", "YES")]) { () throws(GDALError) -> [Int] in
            let dataset = try open()
            defer { try? dataset.close() }
            try dataset.startTransaction()
            do throws(GDALError) {
                waited = try limitLockWait(own: lockTimeout, in: dataset)
                // The schema active_schema names, when it exists, else the first of search_path
                // that exists. PostgreSQL skips a search_path schema that does not exist: a misspelt
                // active_schema wrote to `public`, where a table of that name was then replaced;
                // and GDAL leaves search_path alone for active_schema=public, which then went to
                // the database's first schema.
                let schema = try Self.schema(for: connection, in: dataset)
                var counts: [Int] = []
                // Every new table is built before any old one is dropped: what the old ones had is
                // read while they are all there (a policy on one may read another).
                let replaced = Set(tables.filter { $0.mode == .overwrite }.map(\.table))
                var prepared: [Replacement] = []
                for (table, layer, mode) in tables {
                    let name = QualifiedName(schema: schema, table: table)
                    switch mode {
                    case .overwrite:
                        prepared.append(
                            try prepareReplacement(name, with: layer, srs: srs, replaced: replaced, in: dataset))
                    case .append:
                        let history = history?.forTable(table)
                        // The lock before anything reads the table: a wait for it is then told as
                        // one in any language (``lock(_:mode:in:)``).
                        let lifted = try lockForAppend(name, layer: layer, history: history, in: dataset)
                        if let history, try alreadyAppended(name, history, in: dataset) {
                            if lifted { try restoreRowSecurity(name, in: dataset) }
                            counts.append(0)
                            continue
                        }
                        try append(name, with: layer, srs: srs, in: dataset, history: history)
                        if lifted { try restoreRowSecurity(name, in: dataset) }
                    }
                    counts.append(layer.count)
                }
                for replacement in prepared { try swap(replacement, in: dataset) }
                // Row security and policies once every table is in place: a policy names its own
                // table (and may read another one written tonight) by name, which on a staging table
                // named nothing yet, and tied the new table to the old one of the other name.
                let given = try give(prepared.flatMap(\.afterSwap), in: dataset)
                CrashPoint.reached("postgis-written")
                try dataset.commitTransaction()
                for case (let item, true) in zip(prepared.flatMap(\.afterSwap), given) {
                    if let note = item.noteWhenGiven { Log.warning(note) }
                }
                for replacement in prepared {
                    for what in replacement.lost {
                        Log.warning(
                            "\(replacement.name.schema).\(replacement.name.table): the old table's \(what) is not on "
                                + "the new one: \"mode\": \"overwrite\" builds a new table, and carries no columns but "
                                + "its own, triggers, rules, constraints but its key, statistics objects or storage settings; make it "
                                + "again after the run, or use \"mode\": \"append\"")
                    }
                }
                return counts
            } catch {
                try? dataset.rollbackTransaction()
                throw error
            }
        }
    }

    /// A table in a schema, for SQL: `"schema"."table"`.
    struct QualifiedName {
        var schema: String
        var table: String
        var sql: String { PostGISTableWriter.quote(schema) + "." + PostGISTableWriter.quote(table) }
        func sibling(_ name: String) -> QualifiedName { QualifiedName(schema: schema, table: name) }
    }

    /// The schema new tables go to on this connection: `current_schema()`, the first schema of
    /// `search_path` that exists (GDAL puts an `active_schema` first).
    static func targetSchema(in dataset: GDALDataset) throws(GDALError) -> String {
        if let result = try dataset.executeSQL("SELECT current_schema()"), let row = try result.nextFeature(),
            case .string(let name) = row.value(at: 0), !name.isEmpty
        {
            return name
        }
        throw .invalidArgument(
            "the connection's search_path names no existing schema, so there is no schema to write the table "
                + "into; give active_schema=NAME in the PG: string or create the schema")
    }

    /// The `active_schema` a `PG:` string names, if any, or the one schema of `schemas=` (the
    /// keys in any case, as GDAL takes them; a value in single quotes may hold spaces, `\'` and
    /// `\\` escaped, as libpq reads it).
    static func activeSchema(in connection: String) -> String? {
        let parameters = ConnectionParameters(
            connection.hasPrefix("PG:") ? connection.dropFirst(3) : Substring(connection))
        if let named = parameters.value(of: "active_schema") { return named.isEmpty ? nil : named }
        // GDAL takes `schemas=` of one schema as the active one too.
        let schemas = parameters.items.last { $0.key.lowercased() == "schemas" && !$0.value.isEmpty }?.value
        return schemas.flatMap { $0.contains(",") ? nil : $0 }
    }

    /// Whether the schema exists, by its exact name.
    static func schemaExists(_ schema: String, in dataset: GDALDataset) throws(GDALError) -> Bool {
        let sql = "SELECT count(*) FROM pg_namespace WHERE nspname = \(literal(schema))"
        guard let result = try dataset.executeSQL(sql), let row = try result.nextFeature(),
            case .integer(let n) = row.value(at: 0)
        else { return false }
        return n > 0
    }

    /// Refuses a table of that name that RegionSearch did not write: one has the geometry column
    /// `geom`, the FID column `fid` and the layer's first two fields (`region_id` and `keyword`,
    /// `poi_id` and `name`), which every version wrote first; the fields after them change with
    /// the version and the keywords (a POI table grows five per keyword), so they are not asked
    /// for. A user's table (`customers`) was dropped by overwrite without a word, and append
    /// failed on it with GDAL's "SetGeometry failed".
    private func refuseForeignTable(_ name: QualifiedName, layer: OutputLayer, in dataset: GDALDataset)
        throws(GDALError)
    {
        try refuseForeignTable(name, core: layer.schema.fields.prefix(2).map(\.name), in: dataset)
    }

    private func refuseForeignTable(_ name: QualifiedName, core fields: [String], in dataset: GDALDataset)
        throws(GDALError)
    {
        guard try exists(name, in: dataset) else { return }
        let present = try columns(of: name, in: dataset)
        let core = ["geom", "fid"] + fields
        guard !core.allSatisfy(present.contains) else { return }
        // information_schema lists only the columns this role holds a privilege on: none seen is
        // a table it may not read, not one of no columns.
        if present.isEmpty {
            throw .invalidArgument(
                "table \(name.schema).\(name.table) exists, and this connection's role has no privilege on any of "
                    + "its columns, so it cannot tell whether RegionSearch wrote it; it is left as it is: connect as "
                    + "its owner (or a role granted SELECT, INSERT and UPDATE on it), or name another table (\"layer\")"
            )
        }
        throw .invalidArgument(
            "table \(name.schema).\(name.table) exists and is not one RegionSearch wrote (its columns: "
                + present.sorted().prefix(12).joined(separator: ", ")
                + "); it is left as it is: name another table (\"layer\") in the manifest, or drop or rename that "
                + "table yourself")
    }

    /// A table built beside the one it replaces, and what the swap must do.
    struct Replacement {
        var name: QualifiedName
        var staging: QualifiedName
        /// What the new table is given once every table of the write is in place (its row security
        /// and policies, ``keepGrants(of:on:in:)``).
        var afterSwap: [Kept]
        /// Policies on other tables replaced in the same write that read this one: dropped before
        /// it (PostgreSQL drops no table a policy reads), and made again on their new tables.
        var readBy: [(table: QualifiedName, policy: String)]
        /// What the old table had that the new one does not get (``keepAdditions(of:on:in:)``), in
        /// words, each said in a warning once the write is committed.
        var lost: [String] = []
    }

    /// Builds the new table beside `name` and reads what the swap needs; drops nothing.
    /// `replaced`: the tables the write replaces.
    private func prepareReplacement(
        _ name: QualifiedName, with layer: OutputLayer, srs: SpatialReference, replaced: Set<String>,
        in dataset: GDALDataset
    ) throws(GDALError) -> Replacement {
        try refuseForeignTable(name, layer: layer, in: dataset)
        let staging = try buildStaging(name, with: layer, srs: srs, in: dataset)
        try refuseDependents(of: name, in: dataset)
        let readBy = try policiesReading(name, in: dataset)
        if let other = readBy.first(where: { $0.table.schema != name.schema || !replaced.contains($0.table.table) }) {
            throw .invalidArgument(
                "the policy \(other.policy) on table \(other.table.schema).\(other.table.table) reads table "
                    + "\(name.schema).\(name.table), which \"mode\": \"overwrite\" replaces, and PostgreSQL drops no "
                    + "table a policy reads; the tables are as they were. Use \"mode\": \"append\" (the policy "
                    + "reading the rows WHERE valid_to IS NULL), or drop the policy")
        }
        let afterSwap = try keepGrants(of: name, on: staging, in: dataset)
        let additions = try keepAdditions(of: name, on: staging, in: dataset)
        return Replacement(
            name: name, staging: staging, afterSwap: additions.afterSwap + afterSwap, readBy: readBy,
            lost: additions.lost)
    }

    /// Creates the table `name` will be under a staging name, with the layer's features, and
    /// returns that name. Its index, primary key and sequence are named after the staging table,
    /// so none collides with a name another relation holds; ``renameDependents(of:from:in:)``
    /// gives them their final names once the table has its own.
    private func buildStaging(
        _ name: QualifiedName, with layer: OutputLayer, srs: SpatialReference, in dataset: GDALDataset
    ) throws(GDALError) -> QualifiedName {
        // pid + random: unique among concurrent writers of this and other processes. The table's
        // name is cut so that the staging table's index names (`_geom_geom_idx`, 14 bytes, the
        // longest) fit in PostgreSQL's 63 bytes: cut short by the server, they kept their staging
        // names after the swap (`renameDependents` finds them by the staging name).
        let tag = "__tmp_\(getpid())_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        let staging = name.sibling(String(name.table.prefix(max(0, 63 - 14 - tag.utf8.count))) + tag)
        try Self.validate(staging.table, limit: 63)
        var schema = layer.schema
        schema.name = staging.table
        let created = try dataset.createLayer(
            schema, srs: srs, options: Self.layerOptions + ["SCHEMA=\(name.schema)"])
        try layer.write(to: created)
        try created.sync()  // ends the COPY and runs the deferred CREATE TABLE / CREATE INDEX
        return staging
    }

    /// Drops the old table and gives the new one its name (and its index, key and sequence the
    /// names a fresh table has); first the policies of tonight's other tables that read it.
    private func swap(_ replacement: Replacement, in dataset: GDALDataset) throws(GDALError) {
        let name = replacement.name
        for (table, policy) in replacement.readBy {
            try lock(table, mode: "ACCESS EXCLUSIVE", in: dataset)
            try dataset.executeSQL("DROP POLICY IF EXISTS \(Self.quote(policy)) ON \(table.sql)")
        }
        try lock(name, mode: "ACCESS EXCLUSIVE", in: dataset)
        try dataset.executeSQL("DROP TABLE IF EXISTS \(name.sql)")
        try dataset.executeSQL("ALTER TABLE \(replacement.staging.sql) RENAME TO \(Self.quote(name.table))")
        try renameDependents(of: name, from: replacement.staging.table, in: dataset)
    }

    /// The policies on other tables whose expressions read the table `name`: (their table, name).
    private func policiesReading(_ name: QualifiedName, in dataset: GDALDataset) throws(GDALError)
        -> [(table: QualifiedName, policy: String)]
    {
        let sql =
            "SELECT DISTINCT n.nspname::text, c.relname::text, p.polname::text FROM pg_depend d "
            + "JOIN pg_policy p ON d.classid = 'pg_policy'::regclass AND d.objid = p.oid "
            + "JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = to_regclass(\(Self.literal(name.sql))) "
            + "AND p.polrelid <> d.refobjid ORDER BY 1, 2, 3"
        var out: [(table: QualifiedName, policy: String)] = []
        guard let result = try dataset.executeSQL(sql) else { return out }
        while let row = try result.nextFeature() {
            guard case .string(let schema) = row.value(at: 0), case .string(let table) = row.value(at: 1),
                case .string(let policy) = row.value(at: 2)
            else { continue }
            out.append((QualifiedName(schema: schema, table: table), policy))
        }
        return out
    }

    /// Refuses to replace a table a view reads: PostgreSQL drops no such table (GDAL's error
    /// named the view, every night). Said in words, with the way out.
    private func refuseDependentViews(of name: QualifiedName, in dataset: GDALDataset) throws(GDALError) {
        let sql =
            "SELECT string_agg(DISTINCT v.oid::regclass::text, ', ') FROM pg_depend d "
            + "JOIN pg_rewrite w ON w.oid = d.objid JOIN pg_class v ON v.oid = w.ev_class "
            + "WHERE d.refobjid = to_regclass(\(Self.literal(name.sql))) AND v.oid <> d.refobjid"
        guard let result = try dataset.executeSQL(sql), let row = try result.nextFeature(),
            case .string(let views) = row.value(at: 0), !views.isEmpty
        else { return }
        throw .invalidArgument(
            "the view(s) \(views) read table \(name.schema).\(name.table), which \"mode\": \"overwrite\" replaces, and "
                + "PostgreSQL drops no table a view reads; the table is as it was. Use \"mode\": \"append\" with a "
                + "view over its current rows (WHERE valid_to IS NULL), or drop the view(s)")
    }

    /// Refuses to replace a table that objects outside it depend on: a view, a foreign key of
    /// another table, a function whose SQL body (`BEGIN ATOMIC`) reads it or that takes its row
    /// type, another table's default drawing on its sequence. PostgreSQL drops no such table, and
    /// the swap failed after every stage in the server's words, whose hint (`DROP … CASCADE`)
    /// would drop the user's objects. Asked before the stages (``checkConnection(tables:)``) and
    /// again before the swap. The dependents are those that depend, normally, on the table, its
    /// row type or what goes with the table (its indexes, sequence, constraints, column
    /// defaults); a policy of another table that reads it is ``policiesReading(_:in:)``'s.
    private func refuseDependents(of name: QualifiedName, in dataset: GDALDataset) throws(GDALError) {
        try refuseDependentViews(of: name, in: dataset)
        let table = "to_regclass(\(Self.literal(name.sql)))"
        // In a subquery: GDAL reads the rows of a statement that starts with SELECT.
        let sql = """
            SELECT dependents FROM (WITH RECURSIVE own(classid, objid) AS (
              SELECT 'pg_class'::regclass::oid, c.oid FROM pg_class c WHERE c.oid = \(table)
              UNION SELECT 'pg_type'::regclass::oid, c.reltype FROM pg_class c WHERE c.oid = \(table)
              UNION SELECT d.classid, d.objid FROM pg_depend d
                JOIN own o ON d.refclassid = o.classid AND d.refobjid = o.objid WHERE d.deptype IN ('a', 'i'))
            SELECT string_agg(DISTINCT pg_describe_object(d.classid, d.objid, 0), ', ') AS dependents
            FROM pg_depend d JOIN own o ON d.refclassid = o.classid AND d.refobjid = o.objid
            WHERE d.deptype = 'n' AND d.classid <> 'pg_policy'::regclass
              AND NOT EXISTS (SELECT 1 FROM own x WHERE x.classid = d.classid AND x.objid = d.objid)
              AND NOT EXISTS (SELECT 1 FROM pg_rewrite w JOIN pg_class v ON v.oid = w.ev_class
                WHERE d.classid = 'pg_rewrite'::regclass AND w.oid = d.objid AND v.relkind IN ('v', 'm'))) q
            """
        guard let found = try texts(sql, count: 1, in: dataset), !found[0].isEmpty else { return }
        throw .invalidArgument(
            "table \(name.schema).\(name.table) cannot be replaced: \(found[0]) depend(s) on it, and "
                + "\"mode\": \"overwrite\" drops the table and makes a new one, which PostgreSQL does not do while "
                + "another object depends on it; the table is as it was. Use \"mode\": \"append\", or drop that "
                + "dependency (a foreign key: ALTER TABLE … DROP CONSTRAINT …; a function: DROP FUNCTION …) and make "
                + "it again after the run")
    }

    /// One statement that gives a new table what the old one had, and whether the write fails
    /// when the server refuses it (a restrictive policy: left out, it would show rows it hid).
    struct Kept {
        var table: QualifiedName
        var statement: String
        var required = false
        /// What the statement gives, in words for a warning when the server refuses it (instead of
        /// the statement, which names a temporary index).
        var about: String? = nil
        /// A warning once the write is committed, when the statement was run.
        var noteWhenGiven: String? = nil
    }

    /// Gives the staging table what the table it replaces was given: the privileges granted on it
    /// (a web map's read-only role) and on its columns, and its comment; returns its row-level
    /// security, policies (a role that sees only some rows) and owner, made now from the old
    /// table's catalogue for ``give(_:in:)`` to run once every table is in place. A new table
    /// has none of them: the first night's swap took the readers' access away, with exit 0, and a
    /// policy's rows became every row. A grant or a permissive policy the new table cannot take (a
    /// column it no longer has) is said and left out, which shows less, never more.
    private func keepGrants(of name: QualifiedName, on staging: QualifiedName, in dataset: GDALDataset)
        throws(GDALError) -> [Kept]
    {
        guard try exists(name, in: dataset) else { return [] }
        let from = "FROM pg_class c WHERE c.oid = to_regclass(\(Self.literal(name.sql)))"
        let target = Self.literal(staging.sql)
        // The statements, made by the server (quote_ident, format's %L), one per row.
        func statements(_ select: String) throws(GDALError) -> [String] {
            var out: [String] = []
            guard let result = try dataset.executeSQL(select) else { return out }
            while let row = try result.nextFeature() {
                if case .string(let text) = row.value(at: 0), !text.isEmpty { out.append(text) }
            }
            return out
        }
        let owner = try statements(
            "SELECT format('ALTER TABLE %s OWNER TO %I', \(Self.literal(name.sql)), pg_get_userbyid(c.relowner)) \(from) "
                + "AND pg_get_userbyid(c.relowner) <> current_user")
        let grants = try statements(
            "SELECT format('GRANT %s ON %s TO %s%s', a.privilege_type, \(target), "
                + "CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END, "
                + "CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) "
                + "FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee "
                + "WHERE c.oid = to_regclass(\(Self.literal(name.sql))) AND a.grantee <> c.relowner "
                + "ORDER BY r.rolname NULLS FIRST, a.privilege_type")
        let old = "to_regclass(\(Self.literal(name.sql)))"
        // Row security and policies name the table as it will be called: they are given after
        // the swap, and `pg_get_expr` writes a column the policy compares with another table's as
        // `<table>.<column>`.
        let final = Self.literal(name.sql)
        let columnGrants = try statements(
            "SELECT format('GRANT %s (%I) ON %s TO %s%s', a.privilege_type, att.attname, \(target), "
                + "CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END, "
                + "CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) "
                + "FROM pg_attribute att CROSS JOIN LATERAL aclexplode(att.attacl) a "
                + "LEFT JOIN pg_roles r ON r.oid = a.grantee "
                + "WHERE att.attrelid = \(old) AND att.attnum > 0 AND NOT att.attisdropped "
                + "ORDER BY att.attname, r.rolname NULLS FIRST, a.privilege_type")
        let rowSecurity = try statements(
            "SELECT format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', \(final)) \(from) AND c.relrowsecurity "
                + "UNION ALL SELECT format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', \(final)) \(from) "
                + "AND c.relforcerowsecurity")
        let permissive = try statements(policySelect(old: old, final: final, permissive: true))
        let restrictive = try statements(policySelect(old: old, final: final, permissive: false))
        let comment = try statements(
            "SELECT format('COMMENT ON TABLE %s IS %L', \(target), obj_description(c.oid, 'pg_class')) \(from) "
                + "AND obj_description(c.oid, 'pg_class') IS NOT NULL")
        // Comments on the columns the new table has (one it lacks goes with its column).
        let columnComments = try statements(
            "SELECT format('COMMENT ON COLUMN %s.%I IS %L', \(target), a.attname, col_description(a.attrelid, a.attnum)) "
                + "FROM pg_attribute a WHERE a.attrelid = \(old) AND a.attnum > 0 AND NOT a.attisdropped "
                + "AND col_description(a.attrelid, a.attnum) IS NOT NULL AND EXISTS (SELECT 1 FROM pg_attribute s "
                + "WHERE s.attrelid = to_regclass(\(target)) AND s.attname = a.attname AND s.attnum > 0 "
                + "AND NOT s.attisdropped) ORDER BY a.attnum")
        // Grants now, before the owner changes (last, below): granted by this session's role, they
        // stay valid. Each under a savepoint: one the server refuses is said and left out, never
        // the night's failure; the table is written either way. So is a new owner the server
        // refuses (an owner role without CREATE on the schema, which PostgreSQL requires of it).
        try give(
            (grants + columnGrants + comment + columnComments).map { Kept(table: name, statement: $0) }, in: dataset)
        // The owner last of all: row security and policies need the table's owner to give them,
        // and the writer owns the new table until then.
        return rowSecurity.map { Kept(table: name, statement: $0, required: true) }
            + restrictive.map { Kept(table: name, statement: $0, required: true) }
            + permissive.map { Kept(table: name, statement: $0) } + owner.map { Kept(table: name, statement: $0) }
    }

    /// Gives the staging table what a user added to the table it replaces, where that can be done
    /// safely, and names the rest; overwrite had dropped all of it without a word. Carried: the
    /// indexes a user made (built now on the staging table under a temporary name, and given their
    /// names once the old table is gone; one the new table cannot take, such as on a column it
    /// lacks, is a warning) and the table's publications (`ALTER PUBLICATION … ADD TABLE`, with
    /// their column lists and row filters, after the swap; with a warning that replication sends
    /// none of the new table's rows). Named in ``Replacement/lost``: triggers, rules, constraints
    /// other than the key, statistics objects, storage options, replica identity and tablespace,
    /// whose definitions name the table or its functions in ways not rewritten safely here.
    private func keepAdditions(of name: QualifiedName, on staging: QualifiedName, in dataset: GDALDataset)
        throws(GDALError) -> (afterSwap: [Kept], lost: [String])
    {
        guard try exists(name, in: dataset) else { return ([], []) }
        let old = "to_regclass(\(Self.literal(name.sql)))"
        var afterSwap: [Kept] = []
        var lost: [String] = []
        // The new table's own indexes (its key's, its GiST index) stand for an old one of the same
        // definition; the rest are the user's.
        let made = Set(
            try indexes(of: "to_regclass(\(Self.literal(staging.sql)))", in: dataset).map { $0.unique + $0.tail })
        for index in try indexes(of: old, in: dataset) where !made.contains(index.unique + index.tail) {
            guard !index.tail.isEmpty else {
                lost.append("index \(index.name) (its definition could not be read)")
                continue
            }
            let temporary = name.sibling(
                "regionsearch_index_\(getpid())_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))")
            let create =
                "CREATE \(index.unique == "true" ? "UNIQUE " : "")INDEX \(Self.quote(temporary.table)) ON "
                + "\(staging.sql) USING \(index.tail)"
            let built = try give([Kept(table: name, statement: create, about: "index \(index.name)")], in: dataset)
            if built == [true] {
                afterSwap.append(
                    Kept(
                        table: name, statement: "ALTER INDEX \(temporary.sql) RENAME TO \(Self.quote(index.name))",
                        about: "the name \(index.name) of its index"))
            }
        }
        // Publications: a column list and a row filter (PostgreSQL 15 and later) go with the table.
        let version = try texts("SELECT current_setting('server_version_num') AS version", count: 1, in: dataset)
        let filtered = (version.flatMap { Int($0[0]) } ?? 0) >= 150000
        let columns =
            filtered
            ? "CASE WHEN r.prattrs IS NULL THEN '' ELSE ' (' || (SELECT string_agg(quote_ident(a.attname), ', ' "
                + "ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = r.prrelid "
                + "AND a.attnum = ANY (r.prattrs::int2[])) || ')' END" : "''"
        let filter =
            filtered
            ? "CASE WHEN r.prqual IS NULL THEN '' ELSE ' WHERE (' || pg_get_expr(r.prqual, r.prrelid) || ')' END"
            : "''"
        let publications =
            "SELECT format('ALTER PUBLICATION %I ADD TABLE %s%s%s', p.pubname, \(Self.literal(name.sql)), "
            + "\(columns), \(filter)) AS statement, p.pubname::text AS publication FROM pg_publication_rel r "
            + "JOIN pg_publication p ON p.oid = r.prpubid WHERE r.prrelid = \(old) ORDER BY p.pubname"
        if let result = try dataset.executeSQL(publications) {
            while let row = try result.nextFeature() {
                guard case .string(let statement) = row.value(at: 0), case .string(let publication) = row.value(at: 1)
                else { continue }
                afterSwap.append(
                    Kept(
                        table: name, statement: statement, about: "its place in publication \(publication)",
                        noteWhenGiven: "\(name.schema).\(name.table) is in publication \(publication) again, but "
                            + "logical replication sent none of the new table's rows (it was filled before it joined "
                            + "the publication), so subscribers keep the old ones; use \"mode\": \"append\" for a "
                            + "replicated table"))
            }
        }
        let notCarried = """
            SELECT what FROM (
              SELECT 1 AS kind, 'trigger ' || quote_ident(t.tgname) AS what FROM pg_trigger t
                WHERE t.tgrelid = \(old) AND NOT t.tgisinternal
              UNION ALL SELECT 2, 'rule ' || quote_ident(r.rulename) FROM pg_rewrite r
                WHERE r.ev_class = \(old) AND r.rulename <> '_RETURN'
              UNION ALL SELECT 3, 'constraint ' || quote_ident(k.conname) || ' (' || pg_get_constraintdef(k.oid) || ')'
                FROM pg_constraint k WHERE k.conrelid = \(old) AND k.contype NOT IN ('p', 'n')
              UNION ALL SELECT 4, 'statistics object ' || quote_ident(x.stxname) FROM pg_statistic_ext x
                WHERE x.stxrelid = \(old)
              UNION ALL SELECT 5, 'storage options (' || array_to_string(c.reloptions, ', ') || ')' FROM pg_class c
                WHERE c.oid = \(old) AND c.reloptions IS NOT NULL
              UNION ALL SELECT 6, 'replica identity ' || CASE c.relreplident WHEN 'f' THEN 'FULL'
                WHEN 'n' THEN 'NOTHING' ELSE 'USING INDEX' END FROM pg_class c
                WHERE c.oid = \(old) AND c.relreplident <> 'd'
              UNION ALL SELECT 7, 'tablespace ' || quote_ident(s.spcname) FROM pg_class c
                JOIN pg_tablespace s ON s.oid = c.reltablespace WHERE c.oid = \(old)
              UNION ALL SELECT 8, 'column ' || quote_ident(a.attname) || ' (with its values)' FROM pg_attribute a
                WHERE a.attrelid = \(old) AND a.attnum > 0 AND NOT a.attisdropped
                  AND NOT EXISTS (SELECT 1 FROM pg_attribute s WHERE s.attrelid = to_regclass(\(Self.literal(staging.sql)))
                    AND s.attname = a.attname AND s.attnum > 0 AND NOT s.attisdropped)
                  AND a.attname !~ \(Self.literal(Self.keywordColumnPattern))) q
            ORDER BY kind, what
            """
        if let result = try dataset.executeSQL(notCarried) {
            while let row = try result.nextFeature() {
                if case .string(let what) = row.value(at: 0) { lost.append(what) }
            }
        }
        return (afterSwap, lost)
    }

    /// A POI table's per-keyword columns (`score_2`, `match_2`, `region_2`, `region_2_level`,
    /// `region_2_path`): they come and go with the manifest's keywords, so one the new table lacks
    /// is no user's column lost (a POSIX regular expression, for `!~`).
    static let keywordColumnPattern = "^(score|match|region)_[0-9]+(_level|_path)?$"

    /// The indexes of the table `relation` (an SQL expression for its oid) that back no
    /// constraint: name, whether unique ("true"), and the definition after `USING` (method,
    /// columns, options, predicate: `btree (keyword)`), which names no table. Cut from
    /// `pg_get_indexdef` by position (the length of the `CREATE … ON schema.table USING ` it
    /// begins with, made from the catalogue), not by looking for `USING`, which a quoted name may
    /// hold; "" where it does not begin so (a partitioned table's `ON ONLY`).
    private func indexes(of relation: String, in dataset: GDALDataset) throws(GDALError)
        -> [(name: String, unique: String, tail: String)]
    {
        let sql =
            "SELECT x.relname::text AS name, x.uniq::text AS uniq, CASE WHEN starts_with(x.def, x.prefix) "
            + "THEN substr(x.def, length(x.prefix) + 1) ELSE '' END AS tail FROM (SELECT ic.relname, "
            + "i.indisunique AS uniq, pg_get_indexdef(i.indexrelid) AS def, 'CREATE ' || CASE WHEN i.indisunique "
            + "THEN 'UNIQUE ' ELSE '' END || 'INDEX ' || quote_ident(ic.relname) || ' ON ' || quote_ident(n.nspname) "
            + "|| '.' || quote_ident(t.relname) || ' USING ' AS prefix FROM pg_index i "
            + "JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid "
            + "JOIN pg_namespace n ON n.oid = t.relnamespace WHERE i.indrelid = \(relation) "
            + "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid "
            + "AND k.conrelid = i.indrelid)) x ORDER BY 1"
        var out: [(name: String, unique: String, tail: String)] = []
        guard let result = try dataset.executeSQL(sql) else { return out }
        while let row = try result.nextFeature() {
            guard case .string(let index) = row.value(at: 0), case .string(let unique) = row.value(at: 1) else {
                continue
            }
            var tail = ""
            if case .string(let text) = row.value(at: 2) { tail = text }
            out.append((index, unique, tail))
        }
        return out
    }

    /// A SELECT that makes a `CREATE POLICY` statement for each permissive (or restrictive) policy
    /// of the table `old` (an SQL expression for its oid), on the table `final` (a literal).
    private func policySelect(old: String, final: String, permissive: Bool) -> String {
        "SELECT format('CREATE POLICY %I ON %s AS %s FOR %s TO %s%s%s', p.polname, \(final), "
            + "CASE WHEN p.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END, "
            + "CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' "
            + "WHEN 'd' THEN 'DELETE' ELSE 'ALL' END, "
            + "(SELECT string_agg(CASE WHEN g = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(g)) END, ', ' "
            + "ORDER BY g) FROM unnest(p.polroles) g), "
            + "CASE WHEN p.polqual IS NULL THEN '' ELSE ' USING (' || pg_get_expr(p.polqual, p.polrelid) || ')' END, "
            + "CASE WHEN p.polwithcheck IS NULL THEN '' "
            + "ELSE ' WITH CHECK (' || pg_get_expr(p.polwithcheck, p.polrelid) || ')' END) "
            + "FROM pg_policy p WHERE p.polrelid = \(old) AND \(permissive ? "" : "NOT ")p.polpermissive "
            + "ORDER BY p.polname"
    }

    /// Runs each statement under a savepoint. One the server refuses is said in a warning, whole,
    /// and left out, and the write goes on; unless it is `required`: then the write fails and
    /// every table is as it was (a restrictive policy left out would show rows it hid).
    /// Returns, per statement, whether it was run.
    @discardableResult
    private func give(_ kept: [Kept], in dataset: GDALDataset) throws(GDALError) -> [Bool] {
        var given: [Bool] = []
        for item in kept {
            try dataset.executeSQL("SAVEPOINT regionsearch_keep")
            do throws(GDALError) {
                try dataset.executeSQL(item.statement)
                try dataset.executeSQL("RELEASE SAVEPOINT regionsearch_keep")
                given.append(true)
            } catch {
                given.append(false)
                try dataset.executeSQL("ROLLBACK TO SAVEPOINT regionsearch_keep")
                let why = error.messages.map(\.text).joined(separator: "; ")
                let statement =
                    item.about ?? item.statement.split(whereSeparator: \.isNewline).joined(separator: " ")
                let table = "\(item.table.schema).\(item.table.table)"
                if item.required {
                    throw .invalidArgument(
                        "\(table): the new table cannot be given what the old one had, and without it would "
                            + "show rows the old one hid (\(statement)): \(why); the tables are as they were. Change "
                            + "or drop that on the old table, or write to another table")
                }
                Log.warning(
                    "\(table): the new table could not be given what the old one had (\(statement)): \(why); "
                        + "give it by hand")
            }
        }
        return given
    }

    /// Whether the table's current rows (`valid_to` null) are this run's and no other's: a rerun
    /// appends nothing. A run whose rows were closed since (a night back to an earlier result:
    /// keywords A and B, then A, then A and B again) appends them again: counted over all rows,
    /// the second A-and-B night appended nothing and the A night's rows stayed current.
    private func alreadyAppended(_ name: QualifiedName, _ history: History, in dataset: GDALDataset)
        throws(GDALError) -> Bool
    {
        guard try exists(name, in: dataset) else { return false }
        let present = try columns(of: name, in: dataset)
        guard present.contains("run_id") && present.contains("valid_to") else { return false }
        let run = Self.literal(history.runID)
        func count(_ condition: String) throws(GDALError) -> Int64 {
            let sql = "SELECT count(*) FROM \(name.sql) WHERE valid_to IS NULL AND \(condition)"
            guard let result = try dataset.executeSQL(sql), let row = try result.nextFeature(),
                case .integer(let n) = row.value(at: 0)
            else { return 0 }
            return n
        }
        let ours = try count("run_id = \(run)")
        let others = try count("run_id IS DISTINCT FROM \(run)")
        return ours > 0 && others == 0
    }

    /// The names of a table's columns.
    private func columns(of name: QualifiedName, in dataset: GDALDataset) throws(GDALError) -> Set<String> {
        let sql =
            "SELECT column_name FROM information_schema.columns WHERE table_schema = \(Self.literal(name.schema)) "
            + "AND table_name = " + Self.literal(name.table)
        var names: Set<String> = []
        if let result = try dataset.executeSQL(sql) {
            while let row = try result.nextFeature() {
                if case .string(let column) = row.value(at: 0) { names.insert(column) }
            }
        }
        return names
    }

    /// The column type GDAL's PostgreSQL driver gives a field of `kind` with ``layerOptions``.
    static func columnType(_ kind: FieldKind) -> String {
        switch kind {
        case .string: return "varchar"
        case .integer64: return "int8"
        case .real: return "float8"
        }
    }

    /// Takes the lock an append needs, before anything reads the table: the table to itself when
    /// columns must be added, else only that nobody changes it wholesale (readers go on). Taken
    /// once, in the mode the whole append needs: a read first and a stronger lock later can
    /// deadlock two appenders. The columns are read from the catalogue, which locks no table.
    ///
    /// Row-level security that applies to the writer (its policies would filter what the append
    /// reads and updates, and PostgreSQL refuses COPY into such a table) is lifted for the
    /// transaction where the writer owns the table and forced it on itself (`FORCE ROW LEVEL
    /// SECURITY`, given back by ``restoreRowSecurity(_:in:)`` before the commit, so no other
    /// session sees it lifted); for a writer that is not the owner the append is refused in words.
    /// Returns whether it was lifted.
    private func lockForAppend(
        _ name: QualifiedName, layer: OutputLayer, history: History?, in dataset: GDALDataset
    ) throws(GDALError) -> Bool {
        guard try exists(name, in: dataset) else { return false }
        let present = try columns(of: name, in: dataset)
        let altered =
            layer.schema.fields.contains { !present.contains($0.name) }
            || (history != nil && History.columns.contains { !present.contains($0) })
        // 'owner': the writer is the owner or a member of its role, which row security spares
        // unless forced; 'exempt': a superuser or a role with BYPASSRLS, which it always spares.
        let sql =
            "SELECT CASE WHEN NOT c.relrowsecurity OR r.rolsuper OR r.rolbypassrls THEN 'exempt' "
            + "WHEN pg_has_role(current_user, c.relowner, 'USAGE') THEN "
            + "CASE WHEN c.relforcerowsecurity THEN 'forced' ELSE 'exempt' END ELSE 'applies' END "
            + "FROM pg_class c, pg_roles r WHERE c.oid = to_regclass(\(Self.literal(name.sql))) "
            + "AND r.rolname = current_user"
        var security = "exempt"
        if let result = try dataset.executeSQL(sql), let row = try result.nextFeature(),
            case .string(let text) = row.value(at: 0)
        {
            security = text
        }
        switch security {
        case "applies":
            throw .invalidArgument(
                "table \(name.schema).\(name.table) has row-level security that applies to this connection's role, and "
                    + "PostgreSQL appends no rows through it (COPY); append as the table's owner or a role with "
                    + "BYPASSRLS, or write to another table")
        case "forced":
            try lock(name, mode: "ACCESS EXCLUSIVE", in: dataset)
            try dataset.executeSQL("ALTER TABLE \(name.sql) NO FORCE ROW LEVEL SECURITY")
            return true
        default:
            try lock(name, mode: altered ? "ACCESS EXCLUSIVE" : "ROW EXCLUSIVE", in: dataset)
            return false
        }
    }

    /// Forces row-level security on the table again, as ``lockForAppend(_:layer:history:in:)``
    /// found it.
    private func restoreRowSecurity(_ name: QualifiedName, in dataset: GDALDataset) throws(GDALError) {
        try dataset.executeSQL("ALTER TABLE \(name.sql) FORCE ROW LEVEL SECURITY")
    }

    private func append(
        _ name: QualifiedName, with layer: OutputLayer, srs: SpatialReference, in dataset: GDALDataset,
        history: History?
    ) throws(GDALError) {
        try refuseForeignTable(name, layer: layer, in: dataset)
        guard try exists(name, in: dataset) else {
            // Built as overwrite builds a table, then renamed: GDAL names the new table's GiST index
            // `<table>_geom_geom_idx` itself, and a table a DBA renamed away (`regions_2025`)
            // still holds that name, so the CREATE INDEX failed every night.
            let staging = try buildStaging(name, with: layer, srs: srs, in: dataset)
            try dataset.executeSQL("ALTER TABLE \(staging.sql) RENAME TO \(Self.quote(name.table))")
            try renameDependents(of: name, from: staging.table, in: dataset)
            return
        }
        // A table an earlier version made lacks the fields added since: they are added (its
        // old rows: null), of the types GDAL gives a new table, so that a nightly append goes
        // on after an upgrade.
        var present = try columns(of: name, in: dataset)
        for field in layer.schema.fields where !present.contains(field.name) {
            try dataset.executeSQL(
                "ALTER TABLE \(name.sql) ADD COLUMN \(Self.quote(field.name)) \(Self.columnType(field.kind))")
            present.insert(field.name)
        }
        if let history {
            // A table appended to before history rows gets the columns (its old rows: null), when
            // the layer did not bring them (the runner's do: `FeatureLayer.withHistory`).
            for column in History.columns where !present.contains(column) {
                try dataset.executeSQL("ALTER TABLE \(name.sql) ADD COLUMN \(Self.quote(column)) varchar")
            }
            // Every current row: this run's rows are appended whole, also when some of its
            // rows were current beside another's (``alreadyAppended(_:_:in:)``).
            try dataset.executeSQL(
                "UPDATE \(name.sql) SET valid_to = \(Self.literal(history.time)) WHERE valid_to IS NULL")
        }
        // Always "schema.table": GDAL names a bare table from the connection's current schema,
        // which need not be `public` (active_schema=public with search_path = gis, public
        // appended to gis.t while the other statements went to public.t).
        let target = try dataset.layer(named: "\(name.schema).\(name.table)")
        try target.bindFields(layer.schema)
        try layer.write(to: target)
        try target.sync()
    }

    private func exists(_ name: QualifiedName, in dataset: GDALDataset) throws(GDALError) -> Bool {
        let sql =
            "SELECT count(*) FROM pg_tables WHERE schemaname = \(Self.literal(name.schema)) AND tablename = "
            + Self.literal(name.table)
        guard let result = try dataset.executeSQL(sql), let row = try result.nextFeature() else { return false }
        if case .integer(let n) = row.value(at: 0) { return n > 0 }
        return false
    }

    /// Indexes, constraints and sequences keep their names across `ALTER TABLE … RENAME`; rename
    /// the ones derived from the staging name (`<staging>_pkey`, `<staging>_geom_geom_idx`,
    /// `<staging>_fid_seq`). Renaming a constraint's index renames the constraint too.
    ///
    /// A name another relation of the schema holds is not taken: a table a DBA renamed away
    /// (`ALTER TABLE regions RENAME TO regions_2025`) keeps `regions_pkey`, `regions_fid_seq` and
    /// `regions_geom_geom_idx`, and the rename failed every later night. The first free name of
    /// `<name>`, `<name>1`, `<name>2`, … is taken, as PostgreSQL chooses a name of its own, so the
    /// same names come back night after night; the choice is said in a log line.
    private func renameDependents(of name: QualifiedName, from staging: String, in dataset: GDALDataset)
        throws(GDALError)
    {
        let namespace = "(SELECT oid FROM pg_namespace WHERE nspname = \(Self.literal(name.schema)))"
        let sql = """
            SELECT c.relname, c.relkind FROM pg_class c
            WHERE c.relnamespace = \(namespace)
              AND c.relkind IN ('i', 'S') AND starts_with(c.relname, \(Self.literal(staging)))
            ORDER BY c.relname
            """
        var renames: [(String, String, String)] = []
        if let result = try dataset.executeSQL(sql) {
            while let row = try result.nextFeature() {
                if case .string(let old) = row.value(at: 0), case .string(let kind) = row.value(at: 1) {
                    renames.append((old, name.table + old.dropFirst(staging.count), kind == "S" ? "SEQUENCE" : "INDEX"))
                }
            }
        }
        for (old, wanted, kind) in renames {
            var new = String(wanted.prefix(63))
            if let holder = try relationHolding(new, in: namespace, dataset: dataset) {
                var suffix = 0
                repeat {
                    suffix += 1
                    new = String(wanted.prefix(63 - String(suffix).utf8.count)) + String(suffix)
                } while try relationHolding(new, in: namespace, dataset: dataset) != nil
                Log.info(
                    "\(name.schema).\(name.table): the name \(String(wanted.prefix(63))) is taken (\(holder)), so "
                        + "the new table's \(kind.lowercased()) is named \(new)")
            }
            try dataset.executeSQL("ALTER \(kind) \(name.sibling(old).sql) RENAME TO \(Self.quote(new))")
        }
    }

    /// What holds the relation name `relation` in the schema `namespace` (an SQL expression for
    /// its oid), in words for a log line ("an index of table regions_2025"); nil when the name is
    /// free.
    private func relationHolding(_ relation: String, in namespace: String, dataset: GDALDataset)
        throws(GDALError) -> String?
    {
        let sql =
            "SELECT coalesce((SELECT 'an index of table ' || i.indrelid::regclass FROM pg_index i "
            + "WHERE i.indexrelid = c.oid), (SELECT 'a sequence of table ' || d.refobjid::regclass FROM pg_depend d "
            + "WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass "
            + "AND d.deptype IN ('a', 'i') LIMIT 1), 'the relation ' || c.oid::regclass) "
            + "FROM pg_class c WHERE c.relnamespace = \(namespace) "
            + "AND c.relname = \(Self.literal(relation))"
        guard let holder = try texts(sql, count: 1, in: dataset) else { return nil }
        return holder[0].isEmpty ? "another relation" : holder[0]
    }

    /// Longest table name: the staging suffix (`__tmp_<pid>_<8 hex>`, at most 24 bytes) must fit
    /// in PostgreSQL's 63-byte identifiers.
    public static let maximumTableNameLength = 39

    /// Table names are restricted to what needs no quoting in SQL: `[a-z_][a-z0-9_]*`, at most
    /// ``maximumTableNameLength`` bytes.
    public static func validate(_ name: String, limit: Int = maximumTableNameLength) throws(GDALError) {
        let bytes = Array(name.utf8)
        func allowed(_ b: UInt8) -> Bool { b == UInt8(ascii: "_") || (97...122).contains(b) || (48...57).contains(b) }
        let ok =
            !bytes.isEmpty && bytes.count <= limit && !(48...57).contains(bytes[0]) && bytes.allSatisfy(allowed)
        if !ok {
            throw .invalidArgument(
                "table name '\(name)' must match [a-z_][a-z0-9_]* (lower case, no quoting needed in SQL) "
                    + "and have at most \(limit) characters")
        }
    }

    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as an SQL string constant, the same value whatever the server's settings.
    ///
    /// An escape string (`E'…'`) with backslashes and quotes doubled: a plain `'…'` reads a
    /// backslash as an escape where `standard_conforming_strings` is off (a role's or database's
    /// setting), so a schema named `x\' OR 1=1; --` ended the constant early and the rest ran as
    /// SQL. An escape string reads backslashes the same way under either setting.
    static func literal(_ text: String) -> String {
        "E'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }
}
