import GatewayTime
import Locking
import Logging
import TelemetryCore

/// The ownership of the clustered modes: partitions of the device ids leased in the shared
/// store (``LeaseStoring``), renewed by one statement per heartbeat, handed over make-before-break
/// and fenced by each partition's epoch (docs/scale-out.md, *Ownership*).
///
/// ``role(of:)`` reads a table of the partitions' roles under a lock (the network thread asks it
/// per frame); ``run()`` keeps the table current: every `heartbeat` seconds on the gateway's
/// clock it renews, reads the store's view, and sends what ``LeaseHolder`` plans.
public final class LeasedOwnership: OwnershipPort {
    private struct State {
        var holder: LeaseHolder
        var roles: [DeviceRole]
        var failedHeartbeats = 0
        var observer: (@Sendable (OwnershipChange) -> Void)?
        /// Whether a heartbeat and its plan went through once.
        var ready = false
        /// Heartbeats sent, and the number of the newest that registered this run.
        var heartbeatsSent = 0
        var registeredThrough = 0
        /// The readers of ``statusUpdates()``, by key.
        var readers: [Int: AsyncStream<OwnershipStatus>.Continuation] = [:]
        var nextReader = 0
        /// Whether a partition it holds was offered to another instance at the last view.
        var offering = false
        /// Live instances other than this one that partitions can be assigned to, at the last view.
        var successors = 0
        /// The instance that adopted this name, at the last heartbeat the store refused for it.
        var adoptedBy: String?
        /// Since when the subscriber has been trying to reach the broker in vain; nil while
        /// connected, before it first tries, and while this run holds its reconnection itself.
        var subscriberDownSince: SuspendingClock.Instant?
        /// Whether renewals are withheld for it (logged once per episode).
        var withholding = false
        /// Whether this run, holding nothing, stands aside for it: it heartbeats as draining, so
        /// nobody offers it partitions it could not subscribe (logged once per episode).
        var standingAside = false
        /// Warming partitions listed and subscribed, waiting for their SUBACKs (``prepared(_:subscribed:)``).
        var listed: Set<Int> = []
        /// Whether a listed partition's subscriptions are all acknowledged.
        var subscribed: (@Sendable (Int) -> Bool)?
        /// The other run of this name, at the first heartbeat the store refused for it, while
        /// this run waits to learn whether that run is dead (its row not renewed) or alive.
        var nameHeldBy: InstanceNameInUse?
        /// Why this run stops: another live run holds its name (``run()`` throws it).
        var stop: InstanceNameInUse?
    }

    private let store: any LeaseStoring
    private let clock: any GatewayClock
    private let heartbeat: Double
    private let logger: Logger
    /// This instance's name (``LeaseMember/name`` never changes), stamped on what it publishes.
    private let instanceName: String
    /// The adopter running this instance as a stand-in, stamped on what it publishes (the run
    /// it stands in for may be alive, publishing under the same name and epochs).
    private let standInOf: String?
    /// Told the round trip (seconds) of every heartbeat the store answered.
    private let heartbeatAnswered: @Sendable (Double) -> Void
    private let state: LockedState<State>

    /// An ownership holding nothing until ``run()`` takes its share.
    /// - Parameters:
    ///   - store: where the leases are.
    ///   - member: this instance's name and run.
    ///   - partitions: the split of device ids (the same in every instance).
    ///   - timing: the leases' time to live, margin and warm-up.
    ///   - heartbeat: seconds between heartbeats; well under `timing.ttl`.
    ///   - standInOf: the adopting instance, when this is the stand-in of an adopted run.
    ///   - clock: the gateway's clock.
    ///   - logger: where failed heartbeats are logged.
    ///   - heartbeatAnswered: told the round trip, in seconds, of every heartbeat the store
    ///     answered (a metric: a renewal that nears the lease time makes a live run look dead).
    public init(
        store: any LeaseStoring, member: LeaseMember, partitions: OwnershipPartitions = OwnershipPartitions(), timing: LeaseHolder.Timing,
        heartbeat: Double, standInOf: String? = nil, clock: any GatewayClock, logger: Logger, heartbeatAnswered: @escaping @Sendable (Double) -> Void = { _ in }
    ) {
        self.heartbeatAnswered = heartbeatAnswered
        self.store = store
        self.clock = clock
        self.heartbeat = heartbeat
        self.logger = logger
        instanceName = member.name
        self.standInOf = standInOf
        state = LockedState(
            State(holder: LeaseHolder(member: member, partitions: partitions, timing: timing), roles: Array(repeating: .none, count: partitions.count)))
    }

    public func role(of device: some StringProtocol) -> DeviceRole {
        state.withLock { $0.roles[$0.holder.partitions.partition(of: device)] }
    }

    public func visible(_ messages: [OutboundMessage], receivedAs role: DeviceRole?) -> [OutboundMessage] {
        if case .owner(let epoch)? = role { return messages.map { $0.device == nil ? $0 : stamped($0, epoch: epoch) } }
        guard messages.contains(where: { $0.device != nil }) else { return messages }
        return state.withLock { state in
            messages.compactMap { message in
                guard let device = message.device else { return message }
                guard case .owner(let epoch) = state.roles[state.holder.partitions.partition(of: device.rawValue)] else { return nil }
                return stamped(message, epoch: epoch)
            }
        }
    }

    /// `message` with this instance's name and `epoch` as its only `instance` and `epoch` user
    /// properties, and a stand-in's adopter as `stand-in` (a retained one announced again carries
    /// what it is published under now).
    private func stamped(_ message: OutboundMessage, epoch: Int64) -> OutboundMessage {
        var stamped = message
        if !stamped.userProperties.isEmpty { stamped.userProperties.removeAll { $0.name == "instance" || $0.name == "epoch" || $0.name == "stand-in" } }
        stamped.userProperties.append(UserProperty(name: "instance", value: instanceName))
        stamped.userProperties.append(UserProperty(name: "epoch", value: String(epoch)))
        if let standInOf { stamped.userProperties.append(UserProperty(name: "stand-in", value: standInOf)) }
        return stamped
    }

    public func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) {
        state.withLock { $0.observer = observer }
    }

    public func prepared(_ partitions: [Int], subscribed: @escaping @Sendable (Int) -> Bool) {
        guard !partitions.isEmpty else { return }
        state.withLock { state in
            state.listed.formUnion(partitions)
            state.subscribed = subscribed
        }
        markSubscribed()
    }

    /// Counts as prepared, from now, the listed partitions whose subscriptions the broker
    /// acknowledged; forgets those no longer warming.
    private func markSubscribed() {
        let (listed, subscribed) = state.withLock { state -> ([Int], (@Sendable (Int) -> Bool)?) in
            state.listed = state.listed.filter { state.holder.warming[$0] != nil && state.holder.prepared[$0] == nil }
            return (state.listed.sorted(), state.subscribed)
        }
        guard let subscribed, !listed.isEmpty else { return }
        let acknowledged = listed.filter(subscribed)
        guard !acknowledged.isEmpty else { return }
        let now = clock.monotonicNow()
        state.withLock { state in
            state.holder.prepared(acknowledged, at: now)
            state.listed.subtract(acknowledged)
        }
    }

    /// Seconds between heartbeats while a partition this instance holds is offered.
    static let offeringHeartbeat = 0.05

    public func statusUpdates() -> AsyncStream<OwnershipStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: OwnershipStatus.self, bufferingPolicy: .bufferingNewest(1))
        let now = clock.monotonicNow()
        // Registered and told the status under one lock, so no change comes between the two.
        let key = state.withLock { state -> Int in
            state.nextReader += 1
            state.readers[state.nextReader] = continuation
            continuation.yield(Self.status(of: state, at: now))
            return state.nextReader
        }
        continuation.onTermination = { [state] _ in _ = state.withLock { $0.readers.removeValue(forKey: key) } }
        return stream
    }

    /// Tells every reader of ``statusUpdates()`` the status now, under the lock, so readers see
    /// the changes in order.
    private func statusChanged() {
        let now = clock.monotonicNow()
        state.withLock { state in
            let status = Self.status(of: state, at: now)
            for reader in state.readers.values { reader.yield(status) }
        }
    }

    public var status: OwnershipStatus {
        let now = clock.monotonicNow()
        return state.withLock { Self.status(of: $0, at: now) }
    }

    private static func status(of state: State, at now: SuspendingClock.Instant) -> OwnershipStatus {
        OwnershipStatus(
            held: state.holder.held.count, warming: state.holder.warming.count, pastDeadline: state.holder.isPastDeadline(at: now),
            failedHeartbeats: state.failedHeartbeats, adopted: state.adoptedBy != nil, withholdingRenewals: state.withholding,
            standingAside: state.standingAside, ready: state.ready, heartbeatsSent: state.heartbeatsSent, registeredThrough: state.registeredThrough)
    }

    public func subscriberChanged(_ change: SubscriberConnectivity) {
        let now = clock.monotonicNow()
        state.withLock { state in
            switch change {
            case .connected, .held: state.subscriberDownSince = nil
            case .unreachable: if state.subscriberDownSince == nil { state.subscriberDownSince = now }
            }
        }
    }

    /// Whether the subscriber has been trying to reach the broker, in vain, for half a lease time.
    private static func subscriberDown(_ state: State, at now: SuspendingClock.Instant) -> Bool {
        state.subscriberDownSince.map { now - $0 >= .milliseconds(Int64(state.holder.timing.ttl * 500)) } ?? false
    }

    /// Whether the next heartbeat is withheld: the subscriber has been trying to reach the
    /// broker for half a lease time, this run holds partitions (holding none, it has nothing for
    /// a stand-in to serve: it stands aside instead, ``beat()``), and it is not adopted (an
    /// adopted run heartbeats to learn when the stand-in has left). Logs each change.
    private func withholdsRenewal() -> Bool {
        let now = clock.monotonicNow()
        let (withholding, changed, ttl) = state.withLock { state -> (Bool, Bool, Double) in
            let ttl = state.holder.timing.ttl
            let withholding = Self.subscriberDown(state, at: now) && !state.holder.held.isEmpty && state.adoptedBy == nil
            defer { state.withholding = withholding }
            return (withholding, withholding != state.withholding, ttl)
        }
        if changed {
            if withholding {
                logger.warning(
                    "ownership: the subscriber has not reached the broker for \(ttl / 2) s; renewing nothing, so that another instance adopts this one and its stand-in serves its devices from its broker session")
            } else {
                logger.notice("ownership: the subscriber reached the broker again; renewing")
            }
        }
        return withholding
    }

    /// While renewals are withheld: reads whether another instance adopted this run (nothing
    /// renewed), so the subscriber stops reconnecting and the run waits for the stand-in to leave.
    private func readAdoption() async {
        let member = state.withLock { $0.holder.member }
        guard let adopter = try? await store.adopter(of: member) else { return }
        let first = state.withLock { state in
            defer { state.adoptedBy = adopter }
            return state.adoptedBy == nil
        }
        apply { $0.left() }
        statusChanged()
        if first { logger.warning("ownership: \(member.name) was adopted by \(adopter) while the broker was unreachable; holding nothing, this run registers once it has left") }
    }

    /// Partitions held now, with their epochs.
    public var held: [Int: Int64] { state.withLock { $0.holder.held } }

    /// This instance as the store knows it, and the partitions it holds with their epochs, read together.
    public var leases: (member: LeaseMember, held: [Int: Int64]) { state.withLock { ($0.holder.member, $0.holder.held) } }

    /// The split of device ids into partitions.
    public var partitions: OwnershipPartitions { state.withLock { $0.holder.partitions } }

    /// Heartbeats until the calling task is cancelled. A heartbeat the store does not answer
    /// changes no role: the instance keeps processing and publishing what it holds (the
    /// decision in docs/scale-out.md, *When the store is unreachable*).
    /// - Throws: ``InstanceNameInUse`` once another live run holds this instance's name: a
    ///   second run started under it, or a run that replaced this one while it was frozen or
    ///   away from the store. This run then holds nothing and must end.
    public func run() async throws {
        while !Task.isCancelled {
            await step()
            if let stop = state.withLock({ $0.stop }) { throw stop }
            // While it offers a partition, the holder beats often: it learns at its next
            // heartbeat that the offer was taken, and publishes beside the taker until then.
            let offering = state.withLock { $0.offering }
            try await clock.sleep(for: offering ? min(heartbeat, Self.offeringHeartbeat) : heartbeat)
        }
    }

    /// One round of ``run()``: a heartbeat, or, while renewals are withheld because the
    /// subscriber cannot reach the broker, a read of this run's adoption. Public for tests that
    /// step a manual clock.
    public func step() async {
        if withholdsRenewal() { await readAdoption() } else { await beat() }
    }

    /// One heartbeat: renew, read the view, send the plan. Public for tests that step a manual clock.
    public func beat() async {
        let now = clock.monotonicNow()
        // A run holding nothing whose subscriber cannot reach the broker (a joiner on a broken
        // link) stands aside: it heartbeats as draining, so the assignment leaves it out and
        // nobody offers it what it could not subscribe; it is not withheld into an adoption (its
        // stand-in would have nothing to serve). It joins again once connected.
        let (member, aside, asideChanged) = state.withLock { state -> (LeaseMember, Bool, Bool) in
            var member = state.holder.member
            let aside = Self.subscriberDown(state, at: now) && state.holder.held.isEmpty && state.adoptedBy == nil
            if aside { member.draining = true }
            defer { state.standingAside = aside }
            return (member, aside, aside != state.standingAside)
        }
        if asideChanged {
            if aside {
                logger.warning("ownership: the subscriber has not reached the broker for half a lease time and this run holds nothing; standing aside (heartbeating as draining) until it is connected")
            } else {
                logger.notice("ownership: the subscriber reached the broker; no longer standing aside")
            }
        }
        let (timing, number) = state.withLock { state -> (LeaseHolder.Timing, Int) in
            state.heartbeatsSent += 1
            return (state.holder.timing, state.heartbeatsSent)
        }
        let sentAt = clock.monotonicNow()
        defer { statusChanged() }
        do {
            let renewed = try await store.heartbeat(member, ttl: timing.ttl)
            let answeredAt = clock.monotonicNow()
            heartbeatAnswered((answeredAt - sentAt).inSeconds)
            // Whether this answer began a quiet time (it came past the deadline), read in the
            // same step as the renewal.
            var quietBegan = false
            apply { holder in
                let wasQuiet = holder.quietUntil.map { $0 > sentAt } ?? false
                defer { quietBegan = !wasQuiet && (holder.quietUntil.map { $0 > answeredAt } ?? false) }
                return holder.renewed(renewed, sentAt: sentAt, answeredAt: answeredAt)
            }
            let failed = state.withLock { state in
                defer { (state.failedHeartbeats, state.adoptedBy, state.nameHeldBy) = (0, nil, nil) }
                return state.failedHeartbeats
            }
            if quietBegan {
                logger.notice(
                    "ownership: the store answered past this instance's deadline (after \(failed) failed heartbeats); for \(timing.ttl) s it takes no expired partition of another instance")
            }
            let view = try await store.view()
            state.withLock { state in
                state.successors = view.assignable.filter { $0 != member.name }.count
                // Only an offer to a live instance not draining: one left pointing at a dead or
                // draining instance (one standing aside) will not be accepted, and heartbeating
                // fast for it would only load the store.
                state.offering = state.holder.held.keys.contains { view.leases[$0]?.offeredTo.map { view.instances[$0] == false } ?? false }
            }
            markSubscribed()
            let now = clock.monotonicNow()
            var plan = state.withLock { $0.holder.plan(view, at: now) }
            // A subscriber that cannot reach the broker serves nothing it would take or accept:
            // both wait until it is connected (the plan asks again at every heartbeat).
            if state.withLock({ $0.subscriberDownSince != nil }) {
                plan.take = []
                plan.accept = [:]
            }
            apply { _ in plan.changes }
            if !plan.take.isEmpty {
                let taken = try await store.take(plan.take, by: member, ttl: timing.ttl)
                apply { $0.took(taken) }
            }
            for (successor, offered) in plan.offers.sorted(by: { $0.key < $1.key }) {
                try await store.offer(offered, to: successor, by: member)
            }
            if !plan.accept.isEmpty {
                let accepted = try await store.accept(plan.accept, by: member, ttl: timing.ttl)
                apply { $0.took(accepted) }
            }
            state.withLock { state in
                state.ready = true
                state.registeredThrough = max(state.registeredThrough, number)
            }
        } catch let adopted as InstanceNameAdopted {
            // The store answered: another instance adopted this name (this run was taken for
            // dead, or a restart came before the stand-in left). This run holds nothing and waits.
            // Nothing was renewed, so its deadline stays where it was: the refusal must not lift
            // the subscriber's hold (``OwnershipStatus/mayResumeSession``).
            let first = state.withLock { state in
                state.failedHeartbeats = 0
                defer { state.adoptedBy = adopted.adopter }
                return state.adoptedBy == nil
            }
            apply { $0.left() }
            if first { logger.warning("ownership: \(adopted); holding nothing, this run registers once it has left") }
        } catch let inUse as InstanceNameInUse {
            nameRefused(inUse)
        } catch {
            let failed = state.withLock {
                $0.failedHeartbeats += 1
                return $0.failedHeartbeats
            }
            if failed == 1 || failed % 30 == 0 {
                logger.warning("ownership: the store did not answer \(failed) heartbeat(s) in a row: \(error); keeping the partitions held")
            }
        }
    }

    /// The store refused this run's registration because another run holds the name. A run
    /// registered before was replaced (frozen or cut off from the store past its row's time to
    /// live): it stops. A run not registered yet waits while the other run's row is not renewed
    /// (a crashed run's row expires within a lease time; a restart on the crashed run's disk
    /// does not wait, ``LeaseMember/succeeds``) and stops as soon as it is (a live run).
    private func nameRefused(_ inUse: InstanceNameInUse) {
        enum Verdict { case replaced, live, firstWait, wait }
        let verdict = state.withLock { state -> Verdict in
            state.failedHeartbeats = 0
            defer { if state.stop == nil { state.nameHeldBy = inUse } }
            if state.ready {
                state.stop = inUse
                return .replaced
            }
            guard let seen = state.nameHeldBy else { return .firstWait }
            guard seen.incarnation == inUse.incarnation, seen.renewedAt != inUse.renewedAt else { return .wait }
            state.stop = inUse
            return .live
        }
        apply { $0.left() }
        switch verdict {
        case .replaced:
            logger.critical("ownership: this run was replaced: \(inUse); holding nothing and stopping")
        case .live:
            logger.critical("ownership: \(inUse); its row was renewed meanwhile, so it is alive: this run stops without touching it")
        case .firstWait:
            logger.warning(
                "ownership: \(inUse.name) is registered by run \(inUse.incarnation) (started \(inUse.startedAt)), whose row expires in \((max(0, inUse.expiresIn) * 10).rounded() / 10) s; waiting for it to expire (a run that died), or stopping if it is renewed (a live run under the same name)")
        case .wait:
            break
        }
    }

    public func leave(within seconds: Double) async {
        state.withLock { $0.holder.startDraining() }
        let end = clock.monotonicNow() + .nanoseconds(Int64((max(0, seconds) * 1e9).rounded()))
        while clock.monotonicNow() < end, !state.withLock({ $0.holder.held.isEmpty }) {
            await beat()
            // Nobody to hand over to (the last instance, or a single gateway on the store).
            if state.withLock({ $0.successors == 0 }) { break }
            // Not cancellable: the drain is bounded by `seconds`, and a cancelled sleep returns at once.
            try? await clock.sleep(for: min(heartbeat, Self.offeringHeartbeat, max(0, clock.secondsSince(end) * -1)))
        }
        let member = state.withLock { $0.holder.member }
        do {
            try await store.leave(member)
        } catch {
            logger.warning("ownership: could not hand back the leases at leave (\(error)); they run out after their time to live")
        }
        apply { $0.left() }
        statusChanged()
    }

    /// Applies a step of the holder under the lock, updates the role table, then tells the
    /// observer outside the lock, in order.
    private func apply(_ step: (inout LeaseHolder) -> [OwnershipChange]) {
        let (changes, observer) = state.withLock { state -> ([OwnershipChange], (@Sendable (OwnershipChange) -> Void)?) in
            let changes = step(&state.holder)
            for change in changes {
                switch change {
                case .gained(let partition, let epoch): state.roles[partition] = .owner(epoch: epoch)
                case .warming(let partition): state.roles[partition] = .warming
                case .lost(let partition): state.roles[partition] = .none
                }
            }
            return (changes, state.observer)
        }
        if let observer { changes.forEach(observer) }
    }
}
