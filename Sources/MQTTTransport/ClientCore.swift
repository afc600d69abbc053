internal import CMosquitto
import Foundation
import Logging
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The handle libmosquitto gives us. libmosquitto locks its own client state, and every call
/// we make on it after `start()` is either from the network thread or one of the calls
/// documented as thread-safe (publish, subscribe, disconnect).
struct MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The object libmosquitto's callbacks reach (through the userdata pointer) and the network
/// thread runs. ``MQTTClient`` owns it; it is split from the client so that a callback can
/// never drop the last reference to the object whose deinit joins the network thread.
///
/// It decides nothing about the connection itself: it copies what the callbacks hand over,
/// feeds it to its state machines under its lock (``ConnectionLifecycle`` for connecting,
/// reconnecting and the graceful stop, ``SubscriptionKeeper`` for what to subscribe when,
/// ``PublishTracker`` for outstanding publishes) and performs what they return outside it.
final class ClientCore: Sendable {
    private struct State {
        /// The owner asked to stop; the network thread feeds ``ConnectionLifecycle/Event/stop``.
        var stopRequested = false
        /// The owner allowed a reconnection after a takeover (consumed by the network thread).
        var releaseRequested = false
        var threadStarted = false
        var destroyed = false
        var tracker: PublishTracker
        var subscriptions: SubscriptionKeeper
        var connectWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiterID: UInt64 = 0
        var statistics = MQTTClientStatistics()
        /// The connection's state and rules (pure); driven by the network thread and the
        /// callbacks it runs.
        var lifecycle: ConnectionLifecycle
        /// The life cycle's reconnect jitter; seeded once per client, as the network thread feeds
        /// an event every loop round and a fresh seed would cost a system call each.
        var jitter = JitterRandom()
    }

    /// The receive maximum of a connection after a protocol error: libmosquitto refuses QoS 2
    /// deliveries beyond its own receive maximum (and closes the connection), and a resumed
    /// session can hold more in flight than that (a lower `receiveMaximum` than its creator's,
    /// or mosquitto 2.0.11 overshooting it). The broker resends them all at every reconnect, so
    /// only a receive maximum that covers them lets the session resume.
    static let widenedReceiveMaximum = 65_535

    let configuration: MQTTClientConfiguration
    private let logger: Logger
    private let onMessage: MQTTClient.MessageHandler?
    private let onEvent: MQTTClient.EventHandler?
    private let handle: MosquittoHandle
    private let state: LockedState<State>
    /// Wakes the network thread from a backoff sleep when the client is shut down.
    private let wakeup = MonotonicCondition()
    /// Wakes the network thread from its wait on the socket when another thread queued a
    /// packet or the client is shut down.
    private let loopWakeup: LoopWakeup
    /// Signalled (under `wakeup`) when the network thread has finished.
    private let finished = LockedState(false)

    init(
        configuration: MQTTClientConfiguration,
        logger: Logger,
        onMessage: MQTTClient.MessageHandler?,
        onEvent: MQTTClient.EventHandler?
    ) throws(MQTTTransportError) {
        MosquittoLibrary.ensureInitialized()
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "mqtt.client_id"] = "\(configuration.clientID)"
        self.logger = logger
        self.onMessage = onMessage
        self.onEvent = onEvent
        loopWakeup = try LoopWakeup()
        state = LockedState(
            State(
                tracker: PublishTracker(capacity: max(1, configuration.maximumInflightPublishes)),
                subscriptions: SubscriptionKeeper(retryDelay: .seconds(configuration.reconnect.maximumDelay)),
                lifecycle: ConnectionLifecycle(reconnect: configuration.reconnect, connectTimeout: configuration.connectTimeout)))

        if !configuration.cleanStart && configuration.sessionExpiry == 0 {
            throw MQTTTransportError(.invalidConfiguration, "cleanStart=false needs sessionExpiry > 0: MQTT 5 keeps no session with expiry 0")
        }
        if !configuration.cleanStart && configuration.clientID.isEmpty {
            throw MQTTTransportError(.invalidConfiguration, "a persistent session needs a fixed client id")
        }
        guard let pointer = mosquitto_new(
            configuration.clientID.isEmpty ? nil : configuration.clientID, configuration.cleanStart, nil)
        else {
            throw MQTTTransportError(.library, "mosquitto_new failed (out of memory or invalid client id)")
        }
        handle = MosquittoHandle(pointer: pointer)
        do {
            try configure()
        } catch {
            mosquitto_destroy(pointer)
            throw error
        }
    }

    deinit {
        // The network thread holds a strong reference until it ends, so by now it has ended.
        state.withLock { state in
            if !state.destroyed {
                mosquitto_destroy(handle.pointer)
                state.destroyed = true
            }
        }
    }

    // MARK: Set-up

    private func configure() throws(MQTTTransportError) {
        let mosq = handle.pointer
        try check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "set protocol version 5")
        try check(mosquitto_int_option(mosq, MOSQ_OPT_RECEIVE_MAXIMUM, Int32(clamping: configuration.receiveMaximum)), "set receive maximum")
        try check(mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1), "set TCP_NODELAY")
        // Other threads publish while ours runs the loop: tell libmosquitto to lock and to leave
        // the writing to the loop (which LoopWakeup wakes) instead of writing from their thread.
        try check(mosquitto_threaded_set(mosq, true), "enable threaded mode")
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(mosq, username, configuration.password), "set username/password")
        }
        if let tls = configuration.tls ?? (configuration.broker.usesTLS ? MQTTClientConfiguration.TLS() : nil) {
            try check(
                mosquitto_tls_set(mosq, tls.caFile, tls.caPath, tls.certificateFile, tls.keyFile, nil),
                "configure TLS (CA \(tls.caFile ?? tls.caPath ?? "none"))")
            if !tls.verifyHostname {
                try check(mosquitto_tls_insecure_set(mosq, true), "disable hostname verification")
            }
        }
        if let will = configuration.will {
            var properties = PropertyList.make(will.properties)
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(
                    mosq, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue), will.retain, properties)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                // libmosquitto takes ownership of the list only on success.
                mosquitto_property_free_all(&properties)
                try check(rc, "set the will on \(will.topic)")
            }
        }
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_v5_callback_set(mosq, clientCoreOnConnect)
        mosquitto_disconnect_v5_callback_set(mosq, clientCoreOnDisconnect)
        mosquitto_publish_v5_callback_set(mosq, clientCoreOnPublish)
        mosquitto_subscribe_v5_callback_set(mosq, clientCoreOnSubscribe)
        mosquitto_message_v5_callback_set(mosq, clientCoreOnMessage)
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTTransportError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            let code: MQTTTransportError.Code = rc == MOSQ_ERR_INVAL.rawValue ? .invalidConfiguration : .library
            throw MQTTTransportError(code, "could not \(what): \(MosquittoLibrary.describe(rc))", reasonCode: Int(rc))
        }
    }

    // MARK: Network thread

    func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard !state.threadStarted, !state.stopRequested else { return false }
            state.threadStarted = true
            return true
        }
        guard shouldStart else { return }
        let name = configuration.threadName ?? "mqtt:\(configuration.clientID.suffix(10))"
        let thread = Thread { [self] in
            CurrentThread.setName(name)
            runNetworkLoop()
        }
        thread.start()
    }

    private var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    private func runNetworkLoop() {
        defer {
            finished.withLock { $0 = true }
            wakeup.lock()
            wakeup.broadcast()
            wakeup.unlock()
        }
        let connectProperties = PropertyList.connectProperties(sessionExpiry: configuration.sessionExpiry)
        defer {
            var list = connectProperties
            mosquitto_property_free_all(&list)
        }
        perform(feed(.start), connectProperties: connectProperties)
        // Coalescing: whether a read happened since the last pause (this thread's alone).
        var readSincePause = false
        while !isStopRequested {
            let phase = state.withLock { $0.lifecycle.phase }
            switch phase {
            case .connecting, .connected:
                let rc = runLoopRound(connecting: phase != .connected, readSincePause: &readSincePause)
                if rc != MOSQ_ERR_SUCCESS.rawValue {
                    let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : MosquittoLibrary.describe(rc)
                    perform(feed(.connectionLost(reason: reason)), connectProperties: connectProperties)
                }
            case .waiting(let until):
                sleep(until: until)
            case .held:
                if state.withLock({ state in
                    defer { state.releaseRequested = false }
                    return state.releaseRequested
                }) {
                    perform(feed(.release), connectProperties: connectProperties)
                } else {
                    sleep(until: .now + .milliseconds(100))
                }
            case .idle, .disconnecting, .stopped:
                break
            }
            perform(feed(.tick), connectProperties: connectProperties)
            let due = state.withLock { $0.subscriptions.due(now: .now, connected: $0.lifecycle.phase == .connected) }
            send(due, logging: "retrying refused subscription")
        }
        // Only this thread (and the callbacks it runs) moves the phase.
        let wasConnected = state.withLock { $0.lifecycle.phase == .connected }
        perform(feed(.stop))
        connectionEnded(reason: "client shut down", wasConnected: wasConnected, final: true)
    }

    /// Lets the network thread reconnect after a hold (see
    /// ``MQTTClientConfiguration/holdsReconnect``); wakes it.
    func resumeReconnecting() {
        state.withLock { $0.releaseRequested = true }
        wakeup.lock()
        wakeup.broadcast()
        wakeup.unlock()
    }

    /// Feeds an event to the life cycle (under the lock); returns its actions.
    private func feed(_ event: ConnectionLifecycle.Event) -> [ConnectionLifecycle.Action] {
        // The owner's hold, asked outside the lock (it may take locks of its own); a tick
        // keeps the answer of the event before it (the loop ticks many times a second).
        let holding = event == .tick ? nil : configuration.holdsReconnect?()
        let holdingAfterTakeover = event == .tick ? nil : configuration.holdsReconnectAfterTakeover?()
        return state.withLock {
            if let holding { $0.lifecycle.holding = holding }
            if let holdingAfterTakeover { $0.lifecycle.holdingAfterTakeover = holdingAfterTakeover }
            return $0.lifecycle.handle(event, now: .now, random: &$0.jitter)
        }
    }

    /// Performs the life cycle's actions with libmosquitto (on the network thread).
    private func perform(_ actions: [ConnectionLifecycle.Action], connectProperties: OpaquePointer? = nil) {
        let mosq = handle.pointer
        for action in actions {
            switch action {
            case .connect(let attempt, let widened):
                emit(.connecting(attempt: attempt))
                applyReceiveMaximum(widened: widened)
                // libmosquitto's TCP connect blocks; a broker that drops SYNs would hold this
                // thread for the kernel's SYN retries (~2 min) instead of connectTimeout.
                let (rc, timedOut) = BlockingConnectWatchdog.run(until: .now + .seconds(configuration.connectTimeout)) {
                    mosquitto_connect_bind_v5(
                        mosq, configuration.broker.host, Int32(configuration.broker.port), Int32(configuration.keepalive), nil,
                        connectProperties)
                }
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    perform(feed(.connectCallSent))
                } else if timedOut {
                    perform(feed(.connectCallFailed(reason: "no TCP connection to \(configuration.broker) within \(configuration.connectTimeout) s")))
                } else {
                    let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : MosquittoLibrary.describe(rc)
                    perform(feed(.connectCallFailed(reason: "connect to \(configuration.broker) failed: \(reason)")))
                }
            case .backOff(let seconds, let reason):
                state.withLock { $0.statistics.connectionFailures += 1 }
                logger.warning("MQTT \(reason); retrying in \(seconds) s")
                emit(.connectFailed(reason: reason, retryIn: seconds))
            case .abortAttempt:
                mosquitto_disconnect(mosq)
            case .connectionEnded(let reason, let wasConnected):
                connectionEnded(reason: reason, wasConnected: wasConnected)
            case .resubscribe:
                // No session on the broker means no subscriptions: without them we would stay
                // connected and receive nothing.
                send(state.withLock { $0.subscriptions.resendAll() }, logging: "re-subscribed after connecting without a session")
            case .resumeSubscriptions:
                // The kept session has what the broker acknowledged; what changed meanwhile goes now.
                let (subscribe, unsubscribe) = state.withLock { $0.subscriptions.resume() }
                send(subscribe, logging: "subscribed what was asked for while disconnected")
                state.withLock { _ in sendUnsubscribe(unsubscribe) }
            case .announceConnected(let sessionPresent):
                announceConnected(sessionPresent: sessionPresent)
            case .announceRefused(let reason):
                logger.error("MQTT broker \(configuration.broker) refused the connection: \(reason)")
                emit(.refused(reason: reason))
            case .announceTakeover:
                state.withLock { $0.statistics.sessionTakeovers += 1 }
                logger.error(
                    "MQTT session taken over: another client connected to \(configuration.broker) as '\(configuration.clientID)'; is a second gateway using the same mqtt.clientId? Waiting the longest backoff before reconnecting")
                emit(.sessionTakenOver)
            case .announceHeld:
                state.withLock { $0.releaseRequested = false }
                logger.warning("MQTT connection to \(configuration.broker) ended; not reconnecting until the gateway says it may")
                emit(.reconnectHeld)
            case .disconnectAndStop:
                disconnectGracefully()
            case .disconnect:
                // Steps come only from the graceful stop, which performs them itself.
                break
            }
        }
    }

    /// Performs the graceful stop ``ConnectionLifecycle`` steps through (see
    /// ``GracefulDisconnect`` for why it only writes, then half-closes and reads): each step's
    /// outcome goes back to the life cycle, which says what is next and when it is over.
    private func disconnectGracefully() {
        let mosq = handle.pointer
        let socket = mosquitto_socket(mosq)
        // Taken before the DISCONNECT: libmosquitto closes its own socket once it is written.
        let held = socket >= 0 ? dup(socket) : -1
        defer { if held >= 0 { close(held) } }
        var properties = PropertyList.disconnectProperties(endingSession: configuration.endsSessionAtStop && configuration.sessionExpiry > 0)
        defer { mosquitto_property_free_all(&properties) }
        let queued = mosquitto_disconnect_v5(mosq, Int32(MQTT_RC_NORMAL_DISCONNECTION.rawValue), properties) == MOSQ_ERR_SUCCESS.rawValue
        var observation: GracefulDisconnect.Observation = queued ? .queued(holdingSocket: held >= 0) : .notQueued
        while true {
            var next: GracefulDisconnect.Step = .finished
            for case .disconnect(let step) in feed(.disconnectProgress(observation)) { next = step }
            switch next {
            case .write(let until):
                observation = writeDisconnect(through: held >= 0 ? held : socket, until: until)
            case .halfClose:
                Glibc.shutdown(held, Int32(SHUT_WR))
                observation = .halfClosed
            case .read(let until):
                observation = readUntilClosed(held, until: until)
            case .finished:
                return
            case .gaveUp:
                logger.warning(
                    "MQTT could not send DISCONNECT to \(configuration.broker) within \(GracefulDisconnect.limit): the broker may publish the will")
                return
            }
        }
    }

    /// One write round of the graceful stop: waits until `descriptor` (the connection's socket)
    /// takes data, then lets libmosquitto write what it holds, DISCONNECT last.
    private func writeDisconnect(through descriptor: Int32, until deadline: ContinuousClock.Instant) -> GracefulDisconnect.Observation {
        let mosq = handle.pointer
        // libmosquitto closes its socket once the DISCONNECT is written.
        if mosquitto_socket(mosq) < 0 { return .wrote(disconnectOut: true) }
        guard isReady(descriptor, for: POLLOUT, until: deadline) else { return .timedOut }
        guard mosquitto_loop_write(mosq, 1) == MOSQ_ERR_SUCCESS.rawValue else { return .writeFailed }
        return .wrote(disconnectOut: mosquitto_socket(mosq) < 0)
    }

    /// One read round of the graceful stop: waits until the broker sends or closes, then reads
    /// (and drops) what it sent.
    private func readUntilClosed(_ descriptor: Int32, until deadline: ContinuousClock.Instant) -> GracefulDisconnect.Observation {
        guard isReady(descriptor, for: POLLIN, until: deadline) else { return .timedOut }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let count = read(descriptor, &buffer, buffer.count)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return .brokerClosed }
        return .readSome
    }

    /// Waits until `events` are ready on `descriptor` or `deadline` passes; true when ready.
    private func isReady(_ descriptor: Int32, for events: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(events), revents: 0)
        while case let remaining = deadline - ContinuousClock.now, remaining > .zero {
            let (seconds, attoseconds) = remaining.components
            // Rounded up, so that a timeout means the deadline has passed.
            let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            // Interrupted by a signal: wait for the rest of the time.
            if ready < 0 && errno != EINTR { return false }
        }
        return false
    }

    /// One round of libmosquitto's external loop (``NetworkLoopRound`` says what to wait for and
    /// call): waits with `poll()`, at most 100 ms, on the socket and on ``LoopWakeup`` (after a
    /// coalescing pause when the last round read and nothing more is queued), then reads,
    /// writes and runs the keepalive. Returns libmosquitto's result as `mosquitto_loop` did; a
    /// failed read or write has already been reported through the disconnect callback.
    private func runLoopRound(connecting: Bool, readSincePause: inout Bool) -> Int32 {
        let mosq = handle.pointer
        let socket = mosquitto_socket(mosq)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        let coalescing = configuration.receiveCoalescing
        let wait = NetworkLoopRound.wait(readSincePause: readSincePause, coalescing: coalescing, connecting: connecting)
        let (ready, socketEvents, woken) = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { entries in
            entries[0] = pollfd(fd: socket, events: NetworkLoopRound.interest(wantWrite: mosquitto_want_write(mosq)), revents: 0)
            entries[1] = pollfd(fd: loopWakeup.descriptor, events: Int16(POLLIN), revents: 0)
            var ready = poll(entries.baseAddress, 2, wait == .block ? 100 : 0)
            if wait == .checkThenPause && ready == 0 {
                // Everything that had arrived is read (and acknowledged: a queued PUBACK makes the
                // socket writable, so the check was not empty). Let the next messages gather.
                readSincePause = false
                pause(coalescing, wakingOn: &entries[1])
                ready = poll(entries.baseAddress, 2, 100)
            }
            return (ready, entries[0].revents, entries[1].revents & Int16(POLLIN) != 0)
        }
        // Interrupted by a signal (the connect watchdog's late SIGURG): just a short round.
        if ready < 0 { return errno == EINTR ? MOSQ_ERR_SUCCESS.rawValue : MOSQ_ERR_ERRNO.rawValue }
        if woken { loopWakeup.drain() }
        for call in NetworkLoopRound.calls(socketEvents: socketEvents, woken: woken, connecting: connecting) {
            let rc: Int32
            switch call {
            case .read:
                rc = readGroup(mosq, socket: socket)
                readSincePause = true
            case .write:
                rc = mosquitto_loop_write(mosq, 1)
            case .handshake:
                rc = mosquitto_want_write(mosq) ? mosquitto_loop_read(mosq, 1) : MOSQ_ERR_SUCCESS.rawValue
            case .housekeeping:
                return mosquitto_loop_misc(mosq)
            }
            // As mosquitto_loop: the round ends at an error or once libmosquitto closed the
            // socket (after writing DISCONNECT, or a lost connection it reported).
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(mosq) < 0 { return rc }
        }
        // Another thread queued a packet (a SUBSCRIBE): its answer is read when it arrives, not
        // after a pause, so the next round blocks instead.
        if woken { readSincePause = false }
        return MOSQ_ERR_SUCCESS.rawValue
    }

    /// Reads what the socket holds as a group: `mosquitto_loop_read` again while each call
    /// handed over a message, at most ``readGroupLimit`` messages or ``readGroupDuration``
    /// seconds. On a connection that only subscribes libmosquitto reads one packet per call (it
    /// sizes a call by its own outgoing queue), so without the group every message cost a round:
    /// a `poll()`, and a PUBACK written alone. The PUBACKs queued while the group was read are
    /// written at its end, after every callback (and so every journal append) returned, corked
    /// into one TCP segment when there are several.
    private func readGroup(_ mosq: OpaquePointer, socket: Int32) -> Int32 {
        let started = ContinuousClock.now
        var received = 0
        while true {
            let before = messagesReceived
            let rc = mosquitto_loop_read(mosq, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(mosq) < 0 { return rc }
            // No message: the socket is drained, a packet is partly read, or it was not a
            // PUBLISH (a SUBACK, a PINGRESP); the next round's poll() tells.
            guard messagesReceived != before else { break }
            received += 1
            if received >= Self.readGroupLimit || ContinuousClock.now - started > Self.readGroupDuration { break }
        }
        guard received > 0 else { return MOSQ_ERR_SUCCESS.rawValue }
        state.withLock { $0.statistics.readGroups += 1 }
        if let gate = configuration.acknowledgementGate {
            let readAt = ContinuousClock.now
            while true {
                let decision = gate.decide(groupReadAt: readAt, waitingAtMost: .milliseconds(100))
                if decision == .acknowledge { break }
                // Refused, or the broker ended the connection meanwhile: nothing to acknowledge on it.
                if decision == .refuse || Self.peerClosed(socket) { return closeWithoutAcknowledging(mosq, socket: socket) }
            }
        }
        guard mosquitto_want_write(mosq) else { return MOSQ_ERR_SUCCESS.rawValue }
        if received > 1 { Self.setCork(socket, true) }
        let rc = mosquitto_loop_write(mosq, 1)
        if received > 1 { Self.setCork(socket, false) }
        return rc
    }

    /// Ends the connection without writing what libmosquitto queued (the group's PUBACKs): the
    /// socket is shut down, then read until libmosquitto sees the end and reports the lost
    /// connection (its reconnect drops the queued packets). Messages the socket still held are
    /// handed over on the way; unacknowledged, the broker delivers them again too.
    private func closeWithoutAcknowledging(_ mosq: OpaquePointer, socket: Int32) -> Int32 {
        logger.warning("MQTT connection to \(configuration.broker) closed without acknowledging its last messages: the broker keeps them in the session")
        Glibc.shutdown(socket, Int32(SHUT_RDWR))
        var rc = MOSQ_ERR_SUCCESS.rawValue
        // Bounded: a shut-down socket reads its end within what it held.
        for _ in 0..<100_000 where mosquitto_socket(mosq) >= 0 {
            rc = mosquitto_loop_read(mosq, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        return rc == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_CONN_LOST.rawValue : rc
    }

    /// Whether the broker closed its side of `socket` (or it failed): poll(2) without waiting.
    private static func peerClosed(_ socket: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: pollReadHangUp, revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        return entry.revents & (pollReadHangUp | Int16(POLLHUP | POLLERR)) != 0
    }

    /// Linux's POLLRDHUP (the peer shut its side down), which Glibc's module leaves out
    /// (it needs `_GNU_SOURCE`).
    private static let pollReadHangUp: Int16 = 0x2000

    /// The most messages read in one group: the keepalive and the wake-up are served between groups.
    static let readGroupLimit = 64
    /// The longest a group is read (a callback may wait for room downstream).
    static let readGroupDuration = Duration.milliseconds(50)

    private var messagesReceived: UInt64 { state.withLock { $0.statistics.messagesReceived } }

    /// Holds back (`true`) or sends (`false`) what is written on `socket`: `TCP_CORK`. Not a
    /// TCP socket (or refused): the writes go out one by one, as without it.
    private static func setCork(_ socket: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits `seconds` (in whole milliseconds, rounded up: `poll()`'s unit) on the wake-up
    /// alone, the socket not watched, returning early when another thread queued a packet or the
    /// client is shut down; counted in the statistics.
    private func pause(_ seconds: Double, wakingOn wakeupEntry: inout pollfd) {
        state.withLock { $0.statistics.receivePauses += 1 }
        _ = poll(&wakeupEntry, 1, Int32(min((seconds * 1000).rounded(.up), 60_000)))
        wakeupEntry.revents = 0
    }

    /// Sends SUBSCRIBEs from the network thread and registers them: their SUBACK can only be
    /// handled on this thread, after the registration.
    private func send(_ requests: [SubscriptionKeeper.Request], logging what: String) {
        for request in requests {
            if let mid = sendSubscribe(request.filters, qos: request.qos, options: request.options) {
                state.withLock { $0.subscriptions.sent(mid: mid, filters: request.filters, completion: nil) }
                logger.info("MQTT \(what) \(request.filters)")
            }
        }
    }

    /// Waits until `instant`, woken early by a shutdown.
    private func sleep(until instant: ContinuousClock.Instant) {
        let deadline = SuspendingClock.now + (instant - ContinuousClock.now)
        wakeup.lock()
        while !isStopRequested, wakeup.wait(until: deadline) {}
        wakeup.unlock()
    }

    /// Marks the connection as gone and fails what cannot survive it: QoS 0 publishes that
    /// libmosquitto will discard on reconnect, and subscribe calls still awaiting a SUBACK.
    private func connectionEnded(reason: String, wasConnected: Bool, final: Bool = false) {
        let (failedPublishes, handoffs, drained, failedSubscribes, waiters, abandoned) = state.withLock { state in
            let outcome = state.tracker.failAll { final || $0.qos == .atMostOnce }
            let subscribes = state.subscriptions.connectionEnded()
            var waiters: [CheckedContinuation<Void, any Error>] = []
            if final {
                waiters = Array(state.connectWaiters.values) + state.tracker.takeAllSlotWaiters()
                state.connectWaiters.removeAll()
            }
            return (outcome.failed, outcome.handoffs, outcome.drained, subscribes, waiters, outcome.abandoned)
        }
        if wasConnected {
            if isStopRequested {
                logger.info("MQTT disconnected from \(configuration.broker)")
            } else {
                logger.warning("MQTT connection to \(configuration.broker) lost: \(reason)")
            }
            emit(.disconnected(reason: reason))
        }
        let error = MQTTTransportError(final ? .shutdown : .connectionLost, reason)
        for continuation in failedPublishes + failedSubscribes + waiters { continuation.resume(throwing: error) }
        for handler in abandoned { handler(.abandoned) }
        for continuation in handoffs { continuation.resume() }
        for continuation in drained { continuation.resume() }
    }

    private func emit(_ event: MQTTClientEvent) {
        onEvent?(event)
    }

    // MARK: Callbacks (network thread)

    fileprivate func didConnect(reasonCode: Int32, flags: Int32) {
        let reason = reasonCode == 0 ? "" : MosquittoLibrary.describeReason(reasonCode)
        perform(feed(.connack(reasonCode: reasonCode, sessionPresent: flags & 1 == 1, reason: reason)))
    }

    /// The connection is up: wake the waiters and tell the owner.
    private func announceConnected(sessionPresent: Bool) {
        let waiters = state.withLock { state in
            state.statistics.connections += 1
            defer { state.connectWaiters.removeAll() }
            return Array(state.connectWaiters.values)
        }
        logger.info("MQTT connected to \(configuration.broker) (session present: \(sessionPresent))")
        emit(.connected(sessionPresent: sessionPresent))
        for waiter in waiters { waiter.resume() }
    }

    /// Sets the receive maximum the next CONNECT announces (and libmosquitto enforces).
    private func applyReceiveMaximum(widened: Bool) {
        let value = widened ? Self.widenedReceiveMaximum : configuration.receiveMaximum
        _ = mosquitto_int_option(handle.pointer, MOSQ_OPT_RECEIVE_MAXIMUM, Int32(clamping: value))
        if widened {
            logger.warning(
                "MQTT the last connection ended in a protocol error, as when the session holds more QoS 2 messages in flight than receive maximum \(configuration.receiveMaximum); connecting with receive maximum \(value) until a connection ends otherwise")
        }
    }

    fileprivate func didDisconnect(reasonCode: Int32) {
        // libmosquitto reports its own errors (below 0x80, 0 being a normal DISCONNECT) through
        // the same callback as a broker's DISCONNECT reason codes.
        if reasonCode > 0, reasonCode < 0x80 {
            perform(
                feed(.connectionLost(reason: MosquittoLibrary.describe(reasonCode), protocolError: reasonCode == MOSQ_ERR_PROTOCOL.rawValue)))
            return
        }
        let reason = reasonCode == 0 ? "normal disconnect" : MosquittoLibrary.describeReason(reasonCode)
        perform(feed(.disconnected(reasonCode: reasonCode, reason: reason)))
    }

    fileprivate func didPublish(mid: Int32, reasonCode: Int32) {
        let succeeded = reasonCode < 0x80
        guard let outcome = state.withLock({ $0.tracker.complete(mid: mid, succeeded: succeeded) }) else { return }
        if !succeeded {
            logger.debug("MQTT broker rejected publish \(mid): \(MosquittoLibrary.describeReason(reasonCode))")
        }
        outcome.pending.onComplete?(succeeded ? .acknowledged : .rejected(reasonCode: Int(reasonCode)))
        outcome.slotHandoff?.resume()
        if let completion = outcome.pending.completion {
            if succeeded {
                completion.resume()
            } else {
                completion.resume(
                    throwing: MQTTTransportError(
                        .rejectedByBroker, MosquittoLibrary.describeReason(reasonCode), reasonCode: Int(reasonCode)))
            }
        }
        for waiter in outcome.drained { waiter.resume() }
    }

    fileprivate func didSubscribe(mid: Int32, granted: [Int32]) {
        let settled = state.withLock { state in
            let settled = state.subscriptions.acknowledged(mid: mid, granted: granted, now: .now)
            state.statistics.subscriptionsRefused += UInt64(settled?.refused.count ?? 0)
            return settled
        }
        guard let settled else { return }
        if !settled.granted.isEmpty { emit(.subscribed(filters: settled.granted)) }
        guard let (filter, code) = settled.refused.first else {
            settled.completion?.resume()
            return
        }
        for (filter, code) in settled.refused {
            logger.error(
                "MQTT broker refused subscription \(filter): \(MosquittoLibrary.describeReason(code)); retrying in \(configuration.reconnect.maximumDelay) s")
            emit(.subscriptionFailed(filter: filter, reasonCode: Int(code)))
        }
        settled.completion?.resume(
            throwing: MQTTTransportError(
                .rejectedByBroker, "subscription to \(filter) refused: \(MosquittoLibrary.describeReason(code))",
                reasonCode: Int(code)))
    }

    fileprivate func didReceive(_ message: UnsafePointer<mosquitto_message>, properties: OpaquePointer?) {
        let raw = message.pointee
        let topic = raw.topic.map { String(cString: $0) } ?? ""
        let payload: [UInt8]
        if let bytes = raw.payload, raw.payloadlen > 0 {
            // The one copy of the payload: the journal, the router and the decoder share this array.
            let count = Int(raw.payloadlen)
            let readAhead = MQTTMessage.receivedPayloadReadAhead
            payload = [UInt8](unsafeUninitializedCapacity: count + readAhead) { buffer, initialized in
                let start = buffer.baseAddress!
                start.initialize(from: bytes.assumingMemoryBound(to: UInt8.self), count: count)
                (start + count).initialize(repeating: 0x20, count: readAhead)
                initialized = count
            }
        } else {
            payload = []
        }
        // libmosquitto calls us only for a PUBLISH whose QoS it handles (0, 1 or 2: the two QoS
        // bits of the fixed header; 3 is a protocol error that drops the connection before any
        // callback) or for the release of a stored QoS 2 one. Another value means its memory is
        // not what we read, and guessing a QoS would hide that: stop.
        guard let qos = MQTTQoS(rawValue: Int(raw.qos)) else {
            preconditionFailure("libmosquitto handed over a message on \(topic) with QoS \(raw.qos), which MQTT does not have")
        }
        let received = MQTTMessage(topic: topic, payload: payload, qos: qos, retain: raw.retain, properties: PropertyList.read(properties))
        state.withLock {
            $0.statistics.messagesReceived += 1
            $0.statistics.bytesReceived += UInt64(payload.count + topic.utf8.count)
        }
        onMessage?(received)
    }

    // MARK: Operations (any thread)

    func waitUntilConnected(timeout: Double) async throws {
        try await withDeadline(seconds: timeout, what: "connecting to \(configuration.broker)") {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, MQTTTransportError> = self.state.withLock { state in
                    if state.lifecycle.phase == .connected { return .success(true) }
                    if state.stopRequested { return .failure(MQTTTransportError(.shutdown, "client is shut down")) }
                    state.nextWaiterID += 1
                    state.connectWaiters[state.nextWaiterID] = continuation
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onTimeout: {
            // Fail every connect waiter; those that raced past the deadline just retry.
            let waiters = self.state.withLock { state in
                defer { state.connectWaiters.removeAll() }
                return Array(state.connectWaiters.values)
            }
            for waiter in waiters { waiter.resume(throwing: MQTTTransportError(.timeout, "not connected within \(timeout) s")) }
        }
    }

    func subscribe(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let error: MQTTTransportError? = state.withLock { state in
                let sendNow = state.subscriptions.request(filters, qos: qos, options: options, connected: state.lifecycle.phase == .connected)
                guard !state.stopRequested else { return MQTTTransportError(.shutdown, "client is shut down") }
                guard sendNow else {
                    return MQTTTransportError(.notConnected, "not connected; \(filters) will be subscribed on connect")
                }
                // Under our lock so that the SUBACK callback finds the entry.
                guard let mid = sendSubscribe(filters, qos: qos, options: options) else {
                    return MQTTTransportError(.library, "mosquitto_subscribe_multiple failed for \(filters)")
                }
                state.subscriptions.sent(mid: mid, filters: filters, completion: continuation)
                return nil
            }
            if let error { continuation.resume(throwing: error) }
        }
    }

    /// Asks for `filters` without waiting: they are remembered like ``subscribe(_:qos:options:)``'s,
    /// sent now in batches if connected (else on the next connection), and each SUBACK is
    /// reported as ``MQTTClientEvent/subscribed(filters:)`` (refusals as `subscriptionFailed`).
    func request(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) {
        guard !filters.isEmpty else { return }
        state.withLock { state in
            guard !state.stopRequested,
                state.subscriptions.request(filters, qos: qos, options: options, connected: state.lifecycle.phase == .connected)
            else { return }
            for start in stride(from: 0, to: filters.count, by: SubscriptionKeeper.batchLimit) {
                let batch = Array(filters[start..<min(start + SubscriptionKeeper.batchLimit, filters.count)])
                // Under our lock so that the SUBACK callback finds the entry.
                if let mid = sendSubscribe(batch, qos: qos, options: options) {
                    state.subscriptions.sent(mid: mid, filters: batch, completion: nil)
                }
            }
        }
    }

    /// Forgets `filters` (no longer re-sent after a reconnect) and, if connected, sends
    /// UNSUBSCRIBE for them in batches.
    func unsubscribe(_ filters: [String]) {
        guard !filters.isEmpty else { return }
        state.withLock { state in
            sendUnsubscribe(state.subscriptions.remove(filters, connected: state.lifecycle.phase == .connected && !state.stopRequested))
        }
        loopWakeup.signal()
    }

    /// Sends UNSUBSCRIBE for `filters` in batches (under the state lock, like SUBSCRIBE).
    private func sendUnsubscribe(_ filters: [String]) {
        for start in stride(from: 0, to: filters.count, by: SubscriptionKeeper.batchLimit) {
            let batch = Array(filters[start..<min(start + SubscriptionKeeper.batchLimit, filters.count)])
            let duplicated = batch.map { strdup($0) }
            defer { duplicated.forEach { free($0) } }
            let rc = duplicated.withUnsafeBufferPointer { buffer in
                mosquitto_unsubscribe_multiple(handle.pointer, nil, Int32(batch.count), UnsafePointer(buffer.baseAddress!), nil)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.warning("MQTT unsubscribe from \(batch.count) filters failed: \(MosquittoLibrary.describe(rc)); they stay until the next reconnect")
            }
        }
    }

    /// Sends SUBSCRIBE for `filters` with `options` (subscription identifier, retain handling);
    /// returns the message id or nil on failure.
    private func sendSubscribe(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) -> Int32? {
        var mid: Int32 = 0
        let duplicated = filters.map { strdup($0) }
        var properties: OpaquePointer? = nil
        if let identifier = options.identifier {
            mosquitto_property_add_varint(&properties, Int32(MQTT_PROP_SUBSCRIPTION_IDENTIFIER.rawValue), UInt32(identifier))
        }
        defer {
            duplicated.forEach { free($0) }
            mosquitto_property_free_all(&properties)
        }
        let rc = duplicated.withUnsafeBufferPointer { buffer in
            mosquitto_subscribe_multiple(
                handle.pointer, &mid, Int32(filters.count), UnsafePointer(buffer.baseAddress!), Int32(qos.rawValue),
                options.bits(retainAsPublished: configuration.retainAsPublished), properties)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            logger.error("MQTT subscribe to \(filters) failed: \(MosquittoLibrary.describe(rc))")
            return nil
        }
        loopWakeup.signal()
        return mid
    }

    func publish(_ message: MQTTMessage, awaitAcknowledgement: Bool, onComplete: MQTTClient.CompletionHandler? = nil) async throws {
        try await acquireSlot()
        let properties = PropertyList.make(message.properties)
        defer {
            var list = properties
            mosquitto_property_free_all(&list)
        }
        if awaitAcknowledgement {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if let error = enqueue(message, properties: properties, completion: continuation) {
                    continuation.resume(throwing: error)
                }
            }
        } else if let error = enqueue(message, properties: properties, completion: nil, onComplete: onComplete) {
            throw error
        }
    }

    /// Hands the message to libmosquitto and registers it, under the lock the PUBACK callback
    /// takes: the acknowledgement can arrive before `mosquitto_publish_v5` returns the id.
    /// Returns an error if libmosquitto did not take the message (the slot is released).
    private func enqueue(
        _ message: MQTTMessage, properties: OpaquePointer?, completion: CheckedContinuation<Void, any Error>?,
        onComplete: MQTTClient.CompletionHandler? = nil
    ) -> MQTTTransportError?
    {
        let (error, handoff, drained) = state.withLock { state -> (MQTTTransportError?, CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
            guard !state.stopRequested, !state.destroyed else {
                let abandoned = state.tracker.abandonSlot()
                return (MQTTTransportError(.shutdown, "client is shut down"), abandoned.handoff, abandoned.drained)
            }
            var mid: Int32 = 0
            let rc = message.payload.withUnsafeBytes { bytes in
                mosquitto_publish_v5(
                    handle.pointer, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos.rawValue),
                    message.retain, properties)
            }
            // While offline libmosquitto still queues QoS 1/2 (returning NO_CONN) and sends them
            // after reconnecting; QoS 0 is not queued.
            if rc == MOSQ_ERR_SUCCESS.rawValue || (rc == MOSQ_ERR_NO_CONN.rawValue && message.qos != .atMostOnce) {
                state.tracker.register(mid: mid, qos: message.qos, completion: completion, onComplete: onComplete)
                return (nil, nil, [])
            }
            let abandoned = state.tracker.abandonSlot()
            let code: MQTTTransportError.Code = rc == MOSQ_ERR_NO_CONN.rawValue ? .notConnected : .library
            return (
                MQTTTransportError(code, "publish to \(message.topic) failed: \(MosquittoLibrary.describe(rc))", reasonCode: Int(rc)),
                abandoned.handoff, abandoned.drained
            )
        }
        // libmosquitto queued it (threaded mode); the network thread writes it.
        if error == nil { loopWakeup.signal() }
        handoff?.resume()
        for waiter in drained { waiter.resume() }
        return error
    }

    private func acquireSlot() async throws {
        if state.withLock({ $0.tracker.tryAcquireSlot() }) { return }
        let waiterID = LockedState<UInt64?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let acquired = state.withLock { state -> Bool in
                    if state.tracker.tryAcquireSlot() { return true }
                    waiterID.withLock { $0 = state.tracker.enqueueSlotWaiter(continuation) }
                    return false
                }
                if acquired { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                waiterID.withLock { $0 }.flatMap { state.tracker.removeSlotWaiter($0) }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    func flush(timeout: Double) async -> Bool {
        let waiterID = LockedState<UInt64?>(nil)
        do {
            try await withDeadline(seconds: timeout, what: "flushing publishes") {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let id = self.state.withLock { state in
                        let id = state.tracker.addDrainWaiter(continuation)
                        waiterID.withLock { $0 = id }
                        return id
                    }
                    if id == nil { continuation.resume() }
                }
            } onTimeout: {
                // The deadline must end the wait even if the broker never answers (frozen):
                // take our waiter out and fail it, or the caller would hang.
                let waiter = self.state.withLock { state in
                    waiterID.withLock { $0 }.flatMap { state.tracker.removeDrainWaiter($0) }
                }
                waiter?.resume(throwing: MQTTTransportError(.timeout, "publishes still outstanding after \(timeout) s"))
            }
            return true
        } catch {
            return false
        }
    }

    var statistics: MQTTClientStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.isConnected = state.lifecycle.phase == .connected
            statistics.publishesAcknowledged = state.tracker.counters.acknowledged
            statistics.publishesFailed = state.tracker.counters.failed
            statistics.publishWaits = state.tracker.counters.waitedForSlot
            statistics.publishesInFlight = state.tracker.slotsInUse
            statistics.subscriptionsHeld = state.subscriptions.count
            statistics.subscriptionsPending = state.subscriptions.pending
            return statistics
        }
    }

    func shutdown() async {
        let started = requestStop()
        guard started else { return }
        // Join the network thread without blocking the cooperative pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                self.waitForNetworkThread()
                continuation.resume()
            }.start()
        }
    }

    /// Stops and joins synchronously (deinit path).
    func stopAndJoin() {
        if requestStop() { waitForNetworkThread() }
    }

    /// Returns true if a network thread was running and must be waited for.
    private func requestStop() -> Bool {
        let threadStarted = state.withLock { state -> Bool in
            state.stopRequested = true
            return state.threadStarted
        }
        configuration.acknowledgementGate?.interrupt()
        wakeup.lock()
        wakeup.broadcast()
        wakeup.unlock()
        loopWakeup.signal()
        if !threadStarted {
            connectionEnded(reason: "client shut down", wasConnected: false, final: true)
        }
        return threadStarted
    }

    private func waitForNetworkThread() {
        wakeup.lock()
        while !finished.withLock({ $0 }) {
            wakeup.wait()
        }
        wakeup.unlock()
    }
}

// MARK: - C trampolines

private func core(_ userdata: UnsafeMutableRawPointer?) -> ClientCore? {
    guard let userdata else { return nil }
    return Unmanaged<ClientCore>.fromOpaque(userdata).takeUnretainedValue()
}

private func clientCoreOnConnect(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ rc: Int32, _ flags: Int32, _: OpaquePointer?) {
    core(userdata)?.didConnect(reasonCode: rc, flags: flags)
}

private func clientCoreOnDisconnect(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ rc: Int32, _: OpaquePointer?) {
    core(userdata)?.didDisconnect(reasonCode: rc)
}

private func clientCoreOnPublish(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32, _ reason: Int32, _: OpaquePointer?) {
    core(userdata)?.didPublish(mid: mid, reasonCode: reason)
}

private func clientCoreOnSubscribe(
    _: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32, _ count: Int32, _ granted: UnsafePointer<Int32>?,
    _: OpaquePointer?
) {
    let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
    core(userdata)?.didSubscribe(mid: mid, granted: codes)
}

private func clientCoreOnMessage(
    _: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ message: UnsafePointer<mosquitto_message>?, _ properties: OpaquePointer?
) {
    guard let message else { return }
    core(userdata)?.didReceive(message, properties: properties)
}
