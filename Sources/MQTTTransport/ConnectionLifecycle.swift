/// The life cycle of one MQTT connection as a pure state machine: events in (a connect call's
/// result, CONNACK, a lost connection, the clock, the steps of a graceful stop), actions out
/// (connect, wait, give up an attempt, resubscribe, tell the owner, the next step of the stop).
/// ``ClientCore`` performs the actions with libmosquitto on its network thread; this type
/// decides, so every reconnect rule is tested without a broker. Time arrives as values (`now`);
/// nothing here reads a clock.
struct ConnectionLifecycle {
    /// Where the connection stands.
    enum Phase: Equatable {
        /// Not started yet.
        case idle
        /// A connect call went out at `since`; waiting for CONNACK.
        case connecting(since: ContinuousClock.Instant)
        /// CONNACK accepted.
        case connected
        /// Backing off until `until` before the next attempt.
        case waiting(until: ContinuousClock.Instant)
        /// The owner's hold was on when the connection ended: no attempt until it releases it
        /// (``Event/release``).
        case held
        /// Stopping a live connection gracefully (DISCONNECT, half-close, the broker's close).
        case disconnecting(GracefulDisconnect)
        /// Stopped for good.
        case stopped
    }

    /// What happened.
    enum Event: Equatable {
        /// The network thread starts.
        case start
        /// `mosquitto_connect` returned an error at once (DNS, TCP, TLS set-up).
        case connectCallFailed(reason: String)
        /// `mosquitto_connect` went out; CONNACK is awaited.
        case connectCallSent
        /// CONNACK arrived with this reason code (0: accepted).
        case connack(reasonCode: Int32, sessionPresent: Bool, reason: String)
        /// The network loop reported the connection gone; `protocolError` when libmosquitto
        /// closed it for a protocol error.
        case connectionLost(reason: String, protocolError: Bool = false)
        /// The broker sent DISCONNECT with this MQTT 5 reason code.
        case disconnected(reasonCode: Int32, reason: String)
        /// Time passed (the network loop returns at least every 100 ms).
        case tick
        /// The owner shuts the client down.
        case stop
        /// What the owner observed while performing a step of the graceful stop.
        case disconnectProgress(GracefulDisconnect.Observation)
        /// The owner allows reconnecting after a hold.
        case release
    }

    /// What to do, in order.
    enum Action: Equatable {
        /// Call `mosquitto_connect`; `attempt` counts the failures before it. With
        /// `widenedReceiveMaximum` the CONNECT announces ``ClientCore/widenedReceiveMaximum``
        /// instead of the configured receive maximum (see ``widenReceiveMaximum``).
        case connect(attempt: Int, widenedReceiveMaximum: Bool = false)
        /// Sleep (interruptibly) for `seconds`, counting a failure and telling the owner `reason`.
        case backOff(seconds: Double, reason: String)
        /// Abandon the attempt in progress (no CONNACK in time).
        case abortAttempt
        /// The connection (or attempt) is gone: fail what cannot survive it, and tell the owner
        /// if it `wasConnected` (its CONNACK had been accepted).
        case connectionEnded(reason: String, wasConnected: Bool = false)
        /// The broker kept no session: send every subscription again.
        case resubscribe
        /// The broker kept the session: send what changed in the subscriptions meanwhile.
        case resumeSubscriptions
        /// Tell the owner (and waiters) that the connection is up.
        case announceConnected(sessionPresent: Bool)
        /// The broker refused the connection.
        case announceRefused(reason: String)
        /// The broker ended our session for another client with our id.
        case announceTakeover
        /// The next attempt waits for ``Event/release`` (the owner's hold was on).
        case announceHeld
        /// Begin the graceful stop: take a duplicate of the socket, hand DISCONNECT to
        /// libmosquitto and report it as ``Event/disconnectProgress(_:)``.
        case disconnectAndStop
        /// Perform this step of the graceful stop and report what happened (until it is over).
        case disconnect(GracefulDisconnect.Step)
    }

    /// MQTT 5 DISCONNECT reason code 0x8E: another connection with our client id took over.
    static let sessionTakenOverReasonCode: Int32 = 0x8E

    let reconnect: MQTTClientConfiguration.Reconnect
    let connectTimeout: Double
    /// Whether the owner's hold is on now; its owner sets it before each event that may end a
    /// connection. On, a loss waits for ``Event/release`` instead of backing off.
    var holding = false
    /// Whether the owner's hold is on for a connection another client took over (reason 0x8E);
    /// set like ``holding``.
    var holdingAfterTakeover = false
    /// The bound of a graceful stop.
    let disconnectLimit: Duration
    private(set) var phase: Phase = .idle
    /// Consecutive failed attempts (reset by an accepted CONNACK).
    private(set) var failures = 0
    private var takenOver = false
    /// The last connection ended in a protocol error detected by libmosquitto: connect with a
    /// widened receive maximum until a connection ends otherwise. libmosquitto refuses QoS 2
    /// deliveries beyond its own receive maximum (closing the connection), and a resumed session
    /// can hold more in flight than that, all resent by the broker at every reconnect.
    private(set) var widenReceiveMaximum = false

    init(reconnect: MQTTClientConfiguration.Reconnect, connectTimeout: Double, disconnectLimit: Duration = GracefulDisconnect.limit) {
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.disconnectLimit = disconnectLimit
    }

    /// Applies an event at `now`; returns the actions to perform, in order.
    mutating func handle(_ event: Event, now: ContinuousClock.Instant, random: inout some RandomNumberGenerator) -> [Action] {
        switch phase {
        case .stopped:
            return []
        case .disconnecting(var disconnect):
            guard case .disconnectProgress(let observation) = event else { return [] }
            let step = disconnect.handle(observation, now: now)
            phase = step == .finished || step == .gaveUp ? .stopped : .disconnecting(disconnect)
            return [.disconnect(step)]
        case .held:
            switch event {
            case .release:
                phase = .idle
                return [connect()]
            case .stop:
                phase = .stopped
                return []
            default:
                return []
            }
        case .idle, .connecting, .connected, .waiting:
            break
        }
        switch event {
        case .start:
            guard phase == .idle else { return [] }
            return [connect()]
        case .stop:
            guard phase == .connected else {
                phase = .stopped
                return []
            }
            phase = .disconnecting(GracefulDisconnect(now: now, limit: disconnectLimit))
            return [.disconnectAndStop]
        case .disconnectProgress, .release:
            return []
        case .connectCallSent:
            phase = .connecting(since: now)
            return []
        case .connectCallFailed(let reason):
            return backOff(now: now, reason: "connect failed: \(reason)", random: &random)
        case .connack(let reasonCode, let sessionPresent, let reason):
            guard case .connecting = phase else { return [] }
            guard reasonCode == 0 else {
                widenReceiveMaximum = false
                return [.announceRefused(reason: reason), .connectionEnded(reason: "refused: \(reason)")]
                    + backOff(now: now, reason: "refused: \(reason)", random: &random)
            }
            phase = .connected
            failures = 0
            return [sessionPresent ? .resumeSubscriptions : .resubscribe, .announceConnected(sessionPresent: sessionPresent)]
        case .disconnected(let reasonCode, let reason):
            guard phase == .connected || isConnecting else { return [] }
            var actions: [Action] = []
            if reasonCode == Self.sessionTakenOverReasonCode {
                takenOver = true
                actions.append(.announceTakeover)
            }
            widenReceiveMaximum = false
            return actions + [.connectionEnded(reason: reason, wasConnected: phase == .connected)]
                + backOff(now: now, reason: "disconnected by the broker: \(reason)", random: &random)
        case .connectionLost(let reason, let protocolError):
            guard phase == .connected || isConnecting else { return [] }
            widenReceiveMaximum = protocolError
            return [.connectionEnded(reason: reason, wasConnected: phase == .connected)]
                + backOff(now: now, reason: "connection ended: \(reason)", random: &random)
        case .tick:
            switch phase {
            case .connecting(let since) where now - since > .seconds(connectTimeout):
                let reason = "no CONNACK within \(connectTimeout) s"
                widenReceiveMaximum = false
                return [.abortAttempt, .connectionEnded(reason: reason)] + backOff(now: now, reason: reason, random: &random)
            case .waiting(let until) where now >= until:
                phase = .idle
                return [connect()]
            default:
                return []
            }
        }
    }

    private func connect() -> Action {
        .connect(attempt: failures, widenedReceiveMaximum: widenReceiveMaximum)
    }

    private var isConnecting: Bool {
        if case .connecting = phase { return true }
        return false
    }

    /// Counts a failure and schedules the next attempt: full jitter normally, the long delay
    /// after a session takeover (so two clients with one id do not knock each other off).
    private mutating func backOff(now: ContinuousClock.Instant, reason: String, random: inout some RandomNumberGenerator) -> [Action] {
        if holding || (takenOver && holdingAfterTakeover) {
            takenOver = false
            failures += 1
            phase = .held
            return [.announceHeld]
        }
        let delay = takenOver ? reconnect.takeoverDelay(using: &random) : reconnect.jitteredDelay(afterFailures: failures, using: &random)
        let why = takenOver ? "session taken over by another client with our client id" : reason
        takenOver = false
        failures += 1
        phase = .waiting(until: now + .seconds(delay))
        return [.backOff(seconds: delay, reason: why)]
    }
}
