/// How the simulator writes the JSON of its high-rate frames: its own tidy text, or what a
/// device with a stock JSON encoder sends (docs/performance.md measures all three).
public enum JSONStyle: String, Sendable, CaseIterable {
    /// The simulator's own frames: values at sensor resolution (10⁻⁶; headings 10⁻³), so at most
    /// 6 decimals, members in the contract encoders' order, no whitespace (≈ 67 KB per
    /// accelerometer batch).
    case tidy
    /// Full-precision doubles, as an app encoding Core Motion's values with a stock JSON encoder
    /// sends them: each value gets seeded detail below the sensor resolution and is written as
    /// the shortest text that reads back as the same double (15–17 significant digits); members
    /// in the encoders' order, no whitespace (≈ 97 KB per accelerometer batch).
    case precise
    /// The values of ``precise`` with every object's members in reverse order and insignificant
    /// whitespace after `,` and `:` (the separators of Python's `json.dumps`).
    case reordered
}
