import Locking
import MQTTTransport
import TelemetryGateway

/// The gateway's two broker connections without a broker: what the runtime publishes is kept in
/// order with what it did to its connections (one timeline), acknowledgements come when the
/// test says so (or at once), and the test hands messages to the subscriber's handler itself.
/// Lets a test run the whole runtime, its drain and its journal, without a broker and without
/// waiting on real time.
final class ScriptedBroker: Sendable {
    /// One thing the runtime did to a connection.
    enum Step: Equatable, Sendable {
        case publisherStarted
        /// A message handed to the publisher (`send` or `publish`).
        case sent(topic: String, payload: String)
        case flushed(complete: Bool)
        case publisherShutDown
        case subscriberStarted
        case subscribed([String])
        case subscriberShutDown
    }

    private struct State {
        var timeline: [Step] = []
        /// Every message handed to the publisher, with its properties.
        var sent: [MQTTMessage] = []
        var acknowledgeAtOnce: Bool
        /// Completions of sent messages the broker has not acknowledged yet.
        var unacknowledged: [MQTTClient.CompletionHandler] = []
        var onMessage: MQTTClient.MessageHandler?
        var publisherEvents: MQTTClient.EventHandler?
        /// Sends wait here while held (a broker that stopped reading).
        var held: [CheckedContinuation<Void, Never>]?
        /// Which topics' sends are held while ``held`` is set.
        var holds: @Sendable (String) -> Bool = { _ in true }
        var waiters: [(condition: @Sendable ([Step]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: LockedState<State>

    /// - Parameter acknowledgeAtOnce: whether every publish is acknowledged as it is sent.
    init(acknowledgeAtOnce: Bool) {
        state = LockedState(State(acknowledgeAtOnce: acknowledgeAtOnce))
    }

    /// Connections the gateway builds on.
    var connections: BrokerConnections {
        BrokerConnections(
            makePublisher: { _, _, onEvent in
                self.state.withLock { $0.publisherEvents = onEvent }
                return Publisher(broker: self)
            },
            makeSubscriber: { _, _, onMessage, _ in
                self.state.withLock { $0.onMessage = onMessage }
                return Subscriber(broker: self)
            })
    }

    /// Everything so far, in order.
    var timeline: [Step] { state.withLock { $0.timeline } }

    /// Topics of the messages sent so far, in order.
    /// Every message handed to the publisher, in order, with its properties (user properties).
    var sentMessages: [MQTTMessage] { state.withLock { $0.sent } }

    var sentTopics: [String] {
        timeline.compactMap { if case .sent(let topic, _) = $0 { topic } else { nil } }
    }

    /// Hands a message to the subscriber's handler on this thread, as libmosquitto's network
    /// thread would (it may block: backpressure). False when no subscriber exists yet.
    @discardableResult
    func deliver(_ message: MQTTMessage) -> Bool {
        guard let handler = state.withLock({ $0.onMessage }) else { return false }
        handler(message)
        return true
    }

    /// Acknowledges every publish sent so far, and from now on each one as it is sent.
    func acknowledgeAll() {
        let completions = state.withLock { state in
            state.acknowledgeAtOnce = true
            defer { state.unacknowledged = [] }
            return state.unacknowledged
        }
        for completion in completions { completion(.acknowledged) }
    }

    /// From now on every send on a topic `topics` selects waits (as on a broker that stopped
    /// reading those) until ``releaseSends()``.
    func holdSends(_ topics: @escaping @Sendable (String) -> Bool = { _ in true }) {
        state.withLock { state in
            if state.held == nil { state.held = [] }
            state.holds = topics
        }
    }

    /// Lets the held sends and every later one through.
    func releaseSends() {
        let held = state.withLock { state in
            defer { state.held = nil }
            return state.held ?? []
        }
        for continuation in held { continuation.resume() }
    }

    /// Waits while sends on `topic` are held.
    private func passHold(_ topic: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                guard state.held != nil, state.holds(topic) else { return true }
                state.held?.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }

    /// Returns once the timeline satisfies `condition` (checked at every step).
    func wait(until condition: @escaping @Sendable ([Step]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state in
                if condition(state.timeline) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    private func record(_ step: Step, completion: MQTTClient.CompletionHandler? = nil) {
        let (ready, acknowledge) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
            state.timeline.append(step)
            let acknowledge = state.acknowledgeAtOnce
            if let completion, !acknowledge { state.unacknowledged.append(completion) }
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(state.timeline) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return (ready, acknowledge)
        }
        if acknowledge { completion?(.acknowledged) }
        for continuation in ready { continuation.resume() }
    }

    private var outstanding: Int { state.withLock { $0.unacknowledged.count } }

    private struct Publisher: OutboundConnection {
        let broker: ScriptedBroker

        func start() {
            broker.record(.publisherStarted)
            broker.state.withLock { $0.publisherEvents }?(.connected(sessionPresent: true))
        }

        func publish(_ message: MQTTMessage) async throws {
            await broker.passHold(message.topic)
            broker.state.withLock { $0.sent.append(message) }
            broker.record(.sent(topic: message.topic, payload: message.payloadString))
        }

        func send(_ message: MQTTMessage) async throws {
            await broker.passHold(message.topic)
            broker.state.withLock { $0.sent.append(message) }
            broker.record(.sent(topic: message.topic, payload: message.payloadString))
        }

        func send(_ message: MQTTMessage, onComplete: @escaping MQTTClient.CompletionHandler) async throws {
            await broker.passHold(message.topic)
            broker.state.withLock { $0.sent.append(message) }
            broker.record(.sent(topic: message.topic, payload: message.payloadString), completion: onComplete)
        }

        func flush(timeout: Double) async -> Bool {
            let complete = broker.outstanding == 0
            broker.record(.flushed(complete: complete))
            return complete
        }

        func shutdown() async {
            // Like the real client: what is still outstanding fails (its frames stay in the journal).
            let abandoned = broker.state.withLock { state in
                defer {
                    state.unacknowledged = []
                    state.publisherEvents = nil
                }
                return state.unacknowledged
            }
            for completion in abandoned { completion(.abandoned) }
            broker.record(.publisherShutDown)
        }

        var statistics: MQTTClientStatistics {
            var statistics = MQTTClientStatistics()
            statistics.publishesInFlight = broker.outstanding
            return statistics
        }
    }

    private struct Subscriber: InboundConnection {
        let broker: ScriptedBroker

        func start() { broker.record(.subscriberStarted) }
        func waitUntilConnected(timeout: Double) async throws {}
        func subscribe(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) async throws { broker.record(.subscribed(filters)) }
        func request(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) { broker.record(.subscribed(filters)) }
        func unsubscribe(_ filters: [String]) {}
        func resumeReconnecting() {}
        var statistics: MQTTClientStatistics { MQTTClientStatistics() }
        func shutdown() async {
            // Like the real client, nothing is handed over after it stopped (and the handler,
            // which holds the gateway's journal, is let go).
            broker.state.withLock { $0.onMessage = nil }
            broker.record(.subscriberShutDown)
        }
    }
}
