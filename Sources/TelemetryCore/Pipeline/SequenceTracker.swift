/// Follows the contract's optional `sequence` (+1 per frame, per device and stream) and classifies
/// each numbered frame as in order, after a gap, a duplicate, late (reordered) or a restart.
///
/// Per (device, stream) it keeps the highest number seen and a 64-bit window of which of the 64
/// numbers below it were seen, so a recent number arriving again is a duplicate and a recent
/// missing one arriving late is a reorder. Numbers compare in serial-number arithmetic (RFC 1982):
/// after `UInt64.max` comes 0, and nothing traps at the bounds. A number more than
/// ``reorderWindow`` below the highest is taken as a restart of the sender's numbering.
///
/// Duplicates and late frames are only counted; the caller still processes them (derivations
/// order by timestamp). Memory is bounded: at most `maxTrackedPairs` (device, stream) pairs are
/// tracked; frames of further pairs are ``SequenceObservation/untracked`` until ``forget(device:)``
/// (called when a device goes offline) frees room. Pure value type: no clock, no locks.
public struct SequenceTracker: Sendable {
    /// How far below the highest number a frame still counts as late rather than a restart; also
    /// the length of the duplicate-detection window.
    public static let reorderWindow: UInt64 = 64

    /// The most (device, stream) pairs tracked at once.
    public let maxTrackedPairs: Int

    private var devices: [DeviceID: [InboundStream: StreamState]] = [:]
    private var trackedPairs = 0
    private var counters: [InboundStream: SequenceCounters] = [:]

    /// Creates an empty tracker.
    /// - Parameter maxTrackedPairs: the most (device, stream) pairs tracked at once; 0 tracks none.
    public init(maxTrackedPairs: Int) {
        self.maxTrackedPairs = max(0, maxTrackedPairs)
    }

    /// The number of (device, stream) pairs tracked now.
    public var trackedPairCount: Int { trackedPairs }

    /// Classifies a frame's sequence number and adds it to the stream's counters.
    /// - Parameters:
    ///   - sequence: the frame's `sequence`.
    ///   - device: the publishing device.
    ///   - stream: the frame's stream.
    /// - Returns: what the number says about the stream.
    public mutating func record(_ sequence: UInt64, device: DeviceID, stream: InboundStream) -> SequenceObservation {
        let observation = observe(sequence, device: device, stream: stream)
        counters[stream, default: SequenceCounters()].record(observation)
        return observation
    }

    /// Drops everything tracked for a device (its next session may number from anywhere).
    /// - Parameter device: the device.
    public mutating func forget(device: DeviceID) {
        if let streams = devices.removeValue(forKey: device) { trackedPairs -= streams.count }
    }

    /// The cumulative counters of a stream, over all devices.
    /// - Parameter stream: the stream.
    public func counters(for stream: InboundStream) -> SequenceCounters {
        counters[stream] ?? SequenceCounters()
    }

    // MARK: Private

    /// The highest number seen and which of the 64 numbers below it were seen (bit i: highest − 1 − i).
    private struct StreamState: Sendable {
        var highest: UInt64
        var seenBelow: UInt64 = 0
    }

    private mutating func observe(_ sequence: UInt64, device: DeviceID, stream: InboundStream) -> SequenceObservation {
        guard var state = devices[device]?[stream] else {
            guard trackedPairs < maxTrackedPairs else { return .untracked }
            devices[device, default: [:]][stream] = StreamState(highest: sequence)
            trackedPairs += 1
            return .first
        }
        let ahead = sequence &- state.highest
        let observation: SequenceObservation
        if ahead == 0 {
            observation = .duplicate
        } else if ahead < 1 << 63 {
            // Newer: shift the window so the old highest becomes bit ahead − 1.
            state.seenBelow = ahead > Self.reorderWindow ? 0 : (state.seenBelow << 1 | 1) << (ahead - 1)
            state.highest = sequence
            observation = ahead == 1 ? .next : .gap(missing: ahead - 1)
        } else {
            let behind = state.highest &- sequence
            if behind > Self.reorderWindow {
                state = StreamState(highest: sequence)
                observation = .restarted
            } else {
                let bit: UInt64 = 1 << (behind - 1)
                observation = state.seenBelow & bit != 0 ? .duplicate : .reordered
                state.seenBelow |= bit
            }
        }
        devices[device]?[stream] = state
        return observation
    }
}
