/// Rate-limits error reports: at most about one report per key per interval, with a count.
///
/// Pure and clock-free: every date is passed in (Unix epoch seconds, finite).
///
/// - The first error for a key opens a window `[date, date + interval)` and is reported at once (count 1).
/// - Further errors for the key are counted, not reported.
/// - ``flush(now:)`` at or after a window's end returns one report with the errors counted in it (their
///   count, last detail, first and last date) and opens the next window at the old end. A window that
///   ends with no errors removes the key, so the key's next error is reported at once again.
///
/// A steady flood thus yields one report per interval per key. An error recorded after its window
/// ended but before the caller flushed is counted into that window's report (nothing is lost). If the
/// flush comes more than a whole interval late, the next window opens at `now` instead of the old end.
///
/// Memory is bounded by ``maxKeys``: when that many keys have open windows, errors of any other key are
/// counted into a single overflow window (reported the same way, with ``ErrorReport/isOverflow`` set and
/// the last such key) instead of adding keys.
///
/// ``flush(now:)`` walks all keys (O(keys)); ``nextDeadline()`` is O(1).
public struct ErrorAggregator<Key: Hashable & Sendable>: Sendable {
    /// The window length in seconds.
    public let interval: Double
    /// The most keys tracked at once; errors of further keys go into the overflow window.
    public let maxKeys: Int

    private var windows: [Key: Window] = [:]
    private var overflow: Window?
    /// The earliest window end, kept up to date so ``nextDeadline()`` needs no scan.
    private var earliestEnd: Double?
    /// Orders reports by when their key first opened a window: `Dictionary` order is seeded per
    /// process, and callers (and tests) want the same output for the same input.
    private var nextOrder: UInt64 = 0

    /// The number of errors counted but not reported yet (they will be in a later ``flush(now:)``).
    public private(set) var pendingCount = 0

    /// Creates an aggregator.
    /// - Parameters:
    ///   - interval: the window length in seconds; must be positive.
    ///   - maxKeys: the most keys tracked at once; must be at least 1. Defaults to 10,000.
    public init(interval: Double, maxKeys: Int = 10_000) {
        precondition(interval > 0 && interval.isFinite, "interval must be positive and finite, got \(interval)")
        precondition(maxKeys >= 1, "maxKeys must be at least 1, got \(maxKeys)")
        self.interval = interval
        self.maxKeys = maxKeys
    }

    /// The number of keys with an open window (the overflow window not included).
    public var trackedKeyCount: Int { windows.count }

    /// Records one error.
    /// - Parameters:
    ///   - key: what the error is about, e.g. (device, code, stream).
    ///   - detail: a human-readable reason; the last one counted goes into the report.
    ///   - date: when it happened, Unix epoch seconds.
    /// - Returns: a report to publish now when the error opens a window, else nil (it is counted).
    public mutating func record(_ key: Key, detail: String, at date: Double) -> ErrorReport<Key>? {
        if let index = windows.index(forKey: key) {
            windows.values[index].count(key, detail: detail, at: date)
            pendingCount += 1
            return nil
        }
        if windows.count < maxKeys {
            windows[key] = open(key, at: date)
            return ErrorReport(key: key, count: 1, detail: detail, firstDate: date, lastDate: date)
        }
        if overflow != nil {
            overflow!.count(key, detail: detail, at: date)
            pendingCount += 1
            return nil
        }
        overflow = open(key, at: date)
        return ErrorReport(key: key, isOverflow: true, count: 1, detail: detail, firstDate: date, lastDate: date)
    }

    /// Closes every window that has ended by `now`.
    /// - Parameter now: the current time, Unix epoch seconds.
    /// - Returns: one report per ended window that counted errors, in the order their keys first opened a
    ///   window, the overflow report last.
    public mutating func flush(now: Double) -> [ErrorReport<Key>] {
        guard let earliestEnd, now >= earliestEnd else { return [] }
        var reports: [(order: UInt64, report: ErrorReport<Key>)] = []
        var emptied: [Key] = []
        var newEarliest: Double?
        for index in windows.indices {
            var window = windows.values[index]
            if now >= window.end {
                guard let report = close(&window, isOverflow: false, now: now) else {
                    emptied.append(windows.keys[index])
                    continue
                }
                reports.append((window.order, report))
                windows.values[index] = window
            }
            newEarliest = min(newEarliest ?? window.end, window.end)
        }
        for key in emptied { windows.removeValue(forKey: key) }
        reports.sort { $0.order < $1.order }
        var result = reports.map(\.report)
        if var window = overflow {
            if now >= window.end {
                if let report = close(&window, isOverflow: true, now: now) {
                    result.append(report)
                    overflow = window
                } else {
                    overflow = nil
                }
            }
            if let overflow { newEarliest = min(newEarliest ?? overflow.end, overflow.end) }
        }
        self.earliestEnd = newEarliest
        return result
    }

    /// When ``flush(now:)`` next has something to do: the earliest end of an open window.
    /// - Returns: a Unix epoch date, or nil when no window is open.
    public func nextDeadline() -> Double? { earliestEnd }

    // MARK: Private

    /// A key's open window; the error that opened it was already reported.
    private struct Window: Sendable {
        var end: Double
        var order: UInt64
        /// Errors counted since the last report, with the last one's key and detail.
        var pending = 0
        var lastKey: Key
        var detail = ""
        var firstDate = 0.0
        var lastDate = 0.0

        mutating func count(_ key: Key, detail: String, at date: Double) {
            if pending == 0 { firstDate = date }
            pending += 1
            lastKey = key
            self.detail = detail
            lastDate = date
        }
    }

    private mutating func open(_ key: Key, at date: Double) -> Window {
        let window = Window(end: date + interval, order: nextOrder, lastKey: key)
        nextOrder += 1
        earliestEnd = min(earliestEnd ?? window.end, window.end)
        return window
    }

    /// Reports an ended window and opens the next one, or returns nil when it ended empty.
    private mutating func close(_ window: inout Window, isOverflow: Bool, now: Double) -> ErrorReport<Key>? {
        guard window.pending > 0 else { return nil }
        let report = ErrorReport(
            key: window.lastKey,
            isOverflow: isOverflow,
            count: window.pending,
            detail: window.detail,
            firstDate: window.firstDate,
            lastDate: window.lastDate
        )
        pendingCount -= window.pending
        // The next window starts where this one ended, unless the flush is so late that it would be over already.
        let start = now >= window.end + interval ? now : window.end
        window.end = start + interval
        window.pending = 0
        return report
    }
}
