import PostgresNIO

/// A failure of the shared store, described for logs and `/readyz`: the server's message and
/// SQLSTATE, or why it could not be reached (postgres-nio's own errors describe themselves
/// only as "PSQLError", by design).
public struct PostgresStoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// The server's SQLSTATE, when the server answered with an error.
    public let sqlState: String?

    init(_ description: String, sqlState: String? = nil) {
        self.description = description
        self.sqlState = sqlState
    }

    /// Describes `error` (a driver or pool error becomes readable; the password is never in one).
    static func wrapping(_ error: any Error) -> PostgresStoreError {
        if let error = error as? PostgresStoreError { return error }
        if let error = error as? PSQLError {
            var text = "PostgreSQL \(error.code)"
            if let info = error.serverInfo {
                text += ": \(info[.message] ?? "") (SQLSTATE \(info[.sqlState] ?? "?"))"
            }
            if let underlying = error.underlying { text += ": \(underlying)" }
            return PostgresStoreError(text, sqlState: error.serverInfo?[.sqlState])
        }
        return PostgresStoreError("PostgreSQL: \(error)")
    }
}
