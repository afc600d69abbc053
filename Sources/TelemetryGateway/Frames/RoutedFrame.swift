import TelemetryCore

/// A received frame or command as the router decided it, once: what its topic is, which shard
/// takes it, how its journal record is let go and under which role its outputs leave. Every
/// later stage reads these; none decides them again.
struct RoutedFrame: Sendable {
    /// What a routed message asks of its worker.
    enum Command: Sendable {
        /// A device frame to check and process (or to report, its topic being invalid).
        case frame(InboundTopic)
        /// A head-pose reset command for a device.
        case resetPose(DeviceID)
    }

    /// The message, with its journal sequence.
    var frame: InboundFrame
    let command: Command
    /// The shard whose worker takes it (by its routing key).
    let shard: Int
    /// Lets its journal record go once its effect is safe; nil when it has none (the journal is
    /// off or bypassed, or a warming partition's frame, which its holder journals).
    let release: FrameRelease?
    /// Under which role its outputs leave (applied by the ``OutputSink``).
    let publication: Publication

    /// Payload and topic bytes, as queues and holds count them.
    var bytes: Int { frame.payload.count + frame.topic.utf8.count }

    /// The device it is about, if its topic names a valid one.
    var device: DeviceID? {
        switch command {
        case .frame(.device(let device, _)), .resetPose(let device): device
        case .frame(.invalid): nil
        }
    }

    /// Whether it is a recorder upload: history, stored even for a device held elsewhere by now.
    var isRecorderUpload: Bool {
        if case .frame(.device(_, .recorderAccelerometer)) = command { return true }
        return false
    }

    /// Its parsed topic, for a frame (nil for a command).
    var topic: InboundTopic? {
        if case .frame(let topic) = command { return topic }
        return nil
    }
}
