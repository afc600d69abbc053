import PostgresStore

extension GatewayConfiguration {
    /// Where the recorder and the device snapshots live (keys under `store.*`,
    /// docs/scale-out.md, *The store*): one SQLite file each per instance (the default, nothing
    /// to run), or one PostgreSQL database shared by every instance.
    public struct Store: Sendable {
        /// The backends.
        public enum Backend: String, Sendable, CaseIterable {
            /// `recorder.database` and `state.path`, files of this instance.
            case sqlite
            /// The PostgreSQL database of `store.url`, shared.
            case postgres
        }

        /// Which backend holds the recorder and the device snapshots.
        public var backend = Backend.sqlite
        /// `postgres://user@host:port/database`; required with the postgres backend.
        public var url: String?
        /// File whose first line is the database password (used when the URL has none).
        public var passwordFile: String?
        /// The password read from ``passwordFile`` (not a key: never in a file, variable or log).
        public var password: String?

        /// The connection settings, when the backend is postgres and the URL parses.
        public var postgresSettings: PostgresStoreSettings? {
            guard backend == .postgres, let url, case .success(var settings) = PostgresStoreSettings.parse(url) else { return nil }
            if settings.password == nil { settings.password = password }
            return settings
        }

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Store {
    /// The `store.*` keys.
    package static let keys: [ConfigurationKey] = [
        .choice(
            "store.backend",
            "Where the recorder and device snapshots live: sqlite (recorder.database, state.path: files of this instance) or postgres (store.url, shared by every instance; required by cluster.mode partitioned).",
            \.store.backend
        )
        .checked { configuration in
            let mode = configuration.cluster.mode
            return mode != .single && configuration.store.backend != .postgres
                ? "cluster.mode \(mode.rawValue) needs store.backend: postgres (with store.url): the instances hold leases on partitions of the fleet and hand device snapshots over in the shared store, and answer recorder queries from its shared history; per-instance SQLite files can do neither. Keep cluster.mode single for one gateway on SQLite"
                : nil
        },
        .parsed(
            "store.url", "PostgreSQL of the postgres backend: postgres://user@host:port/database[?sslmode=disable|prefer|require] (password: store.passwordFile).",
            \.store.url,
            // A password written into the URL is never shown.
            describe: { $0.map { url in PostgresStoreSettings.parse(url).map(\.location).get(or: "(unparsable URL)") } ?? "(none)" },
            parse: { text in
                switch PostgresStoreSettings.parse(text) {
                case .success: .value(text)
                case .failure(let problem): .invalid(problem.message)
                }
            }
        )
        .checked { configuration in
            configuration.store.backend == .postgres && configuration.store.url == nil ? "store.backend is postgres: set store.url (or WG_STORE_URL)" : nil
        },
        .optionalText("store.passwordFile", "File whose first line is the PostgreSQL password (used when store.url has none; never logged).", \.store.passwordFile),
    ]
}

extension Result {
    /// The success value, or `fallback`.
    fileprivate func get(or fallback: Success) -> Success {
        if case .success(let value) = self { return value }
        return fallback
    }
}
