import Foundation
import MQTTTransport
import TelemetryCore

/// The retained `gateway/instances/{name}` message of clustered modes: `starting` while the
/// instance reads the membership, `online` (re-published every `cluster.heartbeatInterval` with
/// a growing `beat`) while it processes, `draining` while its devices' next owners warm up
/// before it leaves (`date` is when that began, the same in every re-announcement), `offline`
/// after it left (reason `shutdown`) or through the will of its membership connection (reason
/// `connectionLost`).
struct InstanceStatusMessage: Sendable {
    /// The states an announcement has.
    enum State: String, Sendable {
        case starting, online, draining, offline

        /// The membership phase it announces.
        var phase: MembershipTable.Phase {
            switch self {
            case .online: .online
            case .draining: .draining
            case .starting, .offline: .idle
            }
        }
    }

    let scheme: TopicScheme
    let instance: String
    let mode: String
    let startedAt: Double
    /// Tells this run's announcements from a previous run's retained ones.
    let incarnation: String

    init(scheme: TopicScheme, instance: String, mode: String, startedAt: Double, incarnation: String) {
        self.scheme = scheme
        self.instance = instance
        self.mode = mode
        self.startedAt = startedAt
        self.incarnation = incarnation
    }

    /// - Parameter date: the announcement's timestamp (now by default): warm-ups count from it.
    func message(_ state: State, beat: Int, reason: String? = nil, date: Double = Date().timeIntervalSince1970) -> MQTTMessage {
        var writer = JSONWriter()
        writer.object {
            $0.field("instance", instance)
            $0.field("state", state.rawValue)
            $0.field("mode", mode)
            $0.field("version", ProductVersion.current)
            $0.field("startedAt", startedAt)
            $0.field("incarnation", incarnation)
            $0.field("beat", beat)
            $0.field("date", state == .offline && reason == "connectionLost" ? startedAt : date)
            $0.field("reason", reason)
        }
        return MQTTMessage(.instance(instance), in: scheme, payload: writer.bytes, properties: MQTTProperties(contentType: "application/json"))
    }

    /// What an announcement says, or nil when it is not one (wrong JSON, or an empty retained
    /// message that cleared the topic).
    struct Parsed: Equatable {
        var instance: String
        var state: State
        var incarnation: String?
        var beat: Int?
        var date: Double?
    }

    static func parse(_ payload: [UInt8]) -> Parsed? {
        guard !payload.isEmpty,
            let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
            let instance = object["instance"] as? String, let state = (object["state"] as? String).flatMap(State.init(rawValue:))
        else { return nil }
        return Parsed(
            instance: instance, state: state, incarnation: object["incarnation"] as? String, beat: object["beat"] as? Int,
            date: (object["date"] as? NSNumber)?.doubleValue)
    }
}
