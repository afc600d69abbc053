/// The JSON payloads of the headphone events (examples in `docs/headphones.md`). Every event
/// carries `deviceId`, an `eventId` derived only from its input (the same input gives the same
/// id in any run) and the input's `date` or `timestamp`.
extension HeadphoneDeriver {
    /// `headphone/connection`, retained, QoS 1: `state`, `reason`, `sensorLocation` (the bud
    /// that streamed last, the resuming sample's bud for `streamResumed`, `null` before any bud
    /// was seen), `date`, `version`, and `timestamp` for motion-based transitions.
    static func connectionMessage(_ transition: HeadphoneConnectionTransition, sensorLocation: SensorLocation?, context: DerivationContext) -> OutboundMessage {
        let id = context.device.rawValue
        var writer = JSONWriter(capacity: 240)
        writer.object {
            $0.field("deviceId", id)
            $0.field("eventId", EventID.make(id, TopicScheme.Leaf.headphoneConnection.rawValue, transition.state.rawValue, transition.reason.rawValue, transition.inputKey))
            $0.field("state", transition.state.rawValue)
            $0.field("reason", transition.reason.rawValue)
            $0.key("sensorLocation")
            if let sensorLocation { $0.value(sensorLocation.name) } else { $0.null() }
            $0.field("date", transition.date)
            $0.field("version", transition.version)
            $0.field("timestamp", transition.timestamp)
        }
        return OutboundMessage(.headphoneConnection, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `headphone/sensor-location`, QoS 1: `from`, `to`, `timestamp` (the first sample of `to`).
    static func handoffMessage(_ handoff: BudHandoffDetector.Handoff, context: DerivationContext) -> OutboundMessage {
        let id = context.device.rawValue
        var writer = JSONWriter(capacity: 160)
        writer.object {
            $0.field("deviceId", id)
            $0.field("eventId", EventID.make(id, TopicScheme.Leaf.headphoneSensorLocation.rawValue, handoff.from.name, handoff.to.name, "\(handoff.timestamp)"))
            $0.field("from", handoff.from.name)
            $0.field("to", handoff.to.name)
            $0.field("timestamp", handoff.timestamp)
        }
        return OutboundMessage(.headphoneSensorLocation, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `headphone/pose`, QoS 0: `timestamp`, `quaternion` (components to 10⁻⁶), `yaw`, `pitch`,
    /// `roll` (degrees to 10⁻³), `referenceTimestamp`.
    static func poseMessage(_ pose: HeadPose, context: DerivationContext) -> OutboundMessage {
        let id = context.device.rawValue
        let quaternion = pose.quaternion
        var writer = JSONWriter(capacity: 240)
        writer.object {
            $0.field("deviceId", id)
            $0.field("eventId", EventID.make(id, TopicScheme.Leaf.headphonePose.rawValue, "\(pose.timestamp)", "\(pose.referenceTimestamp)"))
            $0.field("timestamp", pose.timestamp)
            $0.key("quaternion")
            $0.object {
                $0.field("x", quaternion.x.rounded(toPlaces: 6))
                $0.field("y", quaternion.y.rounded(toPlaces: 6))
                $0.field("z", quaternion.z.rounded(toPlaces: 6))
                $0.field("w", quaternion.w.rounded(toPlaces: 6))
            }
            $0.field("yaw", pose.yaw.rounded(toPlaces: 3))
            $0.field("pitch", pose.pitch.rounded(toPlaces: 3))
            $0.field("roll", pose.roll.rounded(toPlaces: 3))
            $0.field("referenceTimestamp", pose.referenceTimestamp)
        }
        return OutboundMessage(.headphonePose, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `headphone/posture`, QoS 1: `state` headDown/upright, `startTimestamp`, `timestamp`,
    /// `duration` (s), `pitch` (degrees).
    static func postureMessage(_ event: PostureMonitor.Event, context: DerivationContext) -> OutboundMessage {
        let id = context.device.rawValue
        var writer = JSONWriter(capacity: 200)
        writer.object {
            $0.field("deviceId", id)
            $0.field("eventId", EventID.make(id, TopicScheme.Leaf.headphonePosture.rawValue, event.kind.rawValue, "\(event.startTimestamp)", "\(event.timestamp)"))
            $0.field("state", event.kind.rawValue)
            $0.field("startTimestamp", event.startTimestamp)
            $0.field("timestamp", event.timestamp)
            $0.field("duration", event.duration.rounded(toPlaces: 6))
            $0.field("pitch", event.pitch.rounded(toPlaces: 3))
        }
        return OutboundMessage(.headphonePosture, of: context.device, in: context.scheme, payload: writer.bytes)
    }

    /// `headphone/gesture`, QoS 1: `gesture` nod/shake, `startTimestamp`, `timestamp`, `swings`,
    /// `peakRotationRate` (rad/s).
    static func gestureMessage(_ gesture: GestureDetector.Gesture, context: DerivationContext) -> OutboundMessage {
        let id = context.device.rawValue
        var writer = JSONWriter(capacity: 200)
        writer.object {
            $0.field("deviceId", id)
            $0.field("eventId", EventID.make(id, TopicScheme.Leaf.headphoneGesture.rawValue, gesture.kind.rawValue, "\(gesture.startTimestamp)"))
            $0.field("gesture", gesture.kind.rawValue)
            $0.field("startTimestamp", gesture.startTimestamp)
            $0.field("timestamp", gesture.timestamp)
            $0.field("swings", gesture.swings)
            $0.field("peakRotationRate", gesture.peakRotationRate.rounded(toPlaces: 3))
        }
        return OutboundMessage(.headphoneGesture, of: context.device, in: context.scheme, payload: writer.bytes)
    }
}
