/// What storing one chunk did.
public struct RecorderInsertOutcome: Sendable, Equatable {
    /// Samples that were new.
    public var inserted: Int
    /// Samples already stored (same identifier and timestamp), skipped.
    public var duplicates: Int

    /// Creates an outcome.
    public init(inserted: Int, duplicates: Int) {
        self.inserted = inserted
        self.duplicates = duplicates
    }
}
