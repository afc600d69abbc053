/// A frame with its sort key: generator time, then device, then stream order.
struct PendingFrame: Sendable {
    var time: Double
    var deviceIndex: Int
    var streamOrder: Int
    var frame: SimulatedFrame

    static func precedes(_ lhs: PendingFrame, _ rhs: PendingFrame) -> Bool {
        (lhs.time, lhs.deviceIndex, lhs.streamOrder) < (rhs.time, rhs.deviceIndex, rhs.streamOrder)
    }
}
