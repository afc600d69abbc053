import MQTTTransport
import TelemetryCore

/// What a replay sends: the stored (retained) frames first, then the live frames at their
/// times, after fault injection (``FaultPlan/schedule(_:)``).
public struct ReplaySchedule: Sendable, Equatable {
    /// One live frame to send.
    public struct Entry: Sendable, Equatable {
        /// Seconds after the replay's start (before `--speed` scaling).
        public var time: Double
        /// The frame.
        public var frame: CapturedFrame
        /// An injected duplicate.
        public var isCopy: Bool
    }

    /// Frames from the broker's retained store, sent first, in recorded order.
    public var stored: [CapturedFrame]
    /// The live frames in sending order.
    public var entries: [Entry]
    /// What was injected.
    public var report: InjectionReport

    /// Every frame in sending order.
    public var frames: [CapturedFrame] { stored + entries.map(\.frame) }

    /// The sequence anomalies a gateway must count for this schedule, per kind: the frames in
    /// sending order through the gateway's own classification (``SequenceTracker``, which
    /// forgets a device when its status goes offline, as the frame processor does).
    /// Frames that do not decode are not numbered, as in the gateway.
    /// - Parameter inboundRoot: the gateway's inbound topic root.
    public func expectedSequenceAnomalies(inboundRoot: String = TopicScheme.defaultInboundRoot) -> SequenceCounters {
        let scheme = TopicScheme(inboundRoot: inboundRoot)
        var tracker = SequenceTracker(maxTrackedPairs: .max)
        var total = SequenceCounters()
        for frame in frames {
            guard case .device(let device, let stream) = scheme.parseInbound(frame.topic),
                let encoding = PayloadEncoding(contentType: frame.properties.contentType),
                case .success(let decoded) = FrameDecoder.decode(frame.payload, encoding: encoding, stream: stream)
            else { continue }
            if let sequence = decoded.sequence { total.record(tracker.record(sequence, device: device, stream: stream)) }
            if case .status(let status, _) = decoded, status.state == .offline { tracker.forget(device: device) }
        }
        return total
    }
}

/// What a replay injected, printed by `wearable-sim replay`.
public struct InjectionReport: Sendable, Equatable, CustomStringConvertible {
    /// Frames in the capture.
    public var captured = 0
    /// Frames from the broker's retained store (sent first, never faulted).
    public var stored = 0
    /// Live frames after `--cut-at`, not sent.
    public var cut = 0
    /// Frames left out.
    public var dropped = 0
    /// Frames sent twice.
    public var duplicated = 0
    /// Swaps of a frame with the next of its topic.
    public var reordered = 0
    /// Frames sent later than recorded.
    public var delayed = 0
    /// Frames published in all (stored + live + copies).
    public var published = 0

    /// Creates an empty report.
    public init() {}

    public var description: String {
        "captured=\(captured) stored=\(stored) cut=\(cut) dropped=\(dropped) duplicated=\(duplicated) reordered=\(reordered) delayed=\(delayed) published=\(published)"
    }
}
