/// One report of ``ErrorAggregator``: how many errors a key had since the last report.
public struct ErrorReport<Key: Hashable & Sendable>: Sendable, Equatable {
    /// The key the errors were recorded under. For an overflow report, the key of the last error counted in it.
    public var key: Key
    /// Whether this report counts errors of keys the aggregator could not track (its key table was full);
    /// it may then mix many keys.
    public var isOverflow: Bool
    /// How many errors the report covers (1 for the report that opens a window).
    public var count: Int
    /// The detail of the last error counted.
    public var detail: String
    /// The date of the first error counted, Unix epoch seconds.
    public var firstDate: Double
    /// The date of the last error counted, Unix epoch seconds.
    public var lastDate: Double

    /// Creates a report.
    /// - Parameters:
    ///   - key: the key (for overflow, the last key counted).
    ///   - isOverflow: whether it counts untracked keys.
    ///   - count: the number of errors covered.
    ///   - detail: the last error's detail.
    ///   - firstDate: the first error's date.
    ///   - lastDate: the last error's date.
    public init(key: Key, isOverflow: Bool = false, count: Int, detail: String, firstDate: Double, lastDate: Double) {
        self.key = key
        self.isOverflow = isOverflow
        self.count = count
        self.detail = detail
        self.firstDate = firstDate
        self.lastDate = lastDate
    }
}
