/// Per-key rate limit of dead letters: at most `maxPerSecond` per key and whole second of
/// gateway time. Pure: time comes in with each call.
///
/// Keys are device ids (or "" for the gateway-wide topic). The table is bounded: when it is
/// full, windows of past seconds are forgotten first; if it is still full, new keys share one
/// overflow window, so a flood of made-up ids cannot grow memory (it only limits them harder).
struct DeadLetterLimiter: Sendable {
    private struct Window: Sendable {
        var second: Int64
        var count: Int
    }

    private let maxPerSecond: Int
    private let maxKeys: Int
    private var windows: [String: Window] = [:]
    private static let overflowKey = "\u{0}overflow"

    init(maxPerSecond: Int, maxKeys: Int) {
        self.maxPerSecond = maxPerSecond
        self.maxKeys = max(1, maxKeys)
    }

    /// Counts one dead letter for `key` at `date`; returns whether it may be published.
    mutating func admit(_ key: String, at date: Double) -> Bool {
        let second = Int64(date.rounded(.down))
        var slot = key
        if windows[key] == nil, windows.count >= maxKeys {
            windows = windows.filter { $0.value.second >= second }
            if windows.count >= maxKeys { slot = Self.overflowKey }
        }
        var window = windows[slot] ?? Window(second: second, count: 0)
        if window.second != second { window = Window(second: second, count: 0) }
        guard window.count < maxPerSecond else {
            windows[slot] = window
            return false
        }
        window.count += 1
        windows[slot] = window
        return true
    }
}
