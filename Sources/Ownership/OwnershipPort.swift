import TelemetryCore

/// Who processes and publishes a device's frames on this instance, whatever the mode. The
/// gateway's frame path never asks it: its router's gate asks once per frame, and the role it
/// decided is applied where outputs leave.
///
/// Two adapters: ``SoleOwner`` (`cluster.mode: single`: every device is this instance's, no store,
/// nothing changes) and ``LeasedOwnership`` (the clustered modes: partitions leased in the shared
/// PostgreSQL store). Nothing outside configuration and assembly asks which one it has.
public protocol OwnershipPort: Sendable {
    /// The split of device ids into ownership partitions (the unit of ``OwnershipChange``).
    var partitions: OwnershipPartitions { get }

    /// This instance's role for `device` now. Called on the network thread for every frame: O(1),
    /// no I/O, no waiting.
    /// - Parameter device: the device level of the frame's topic (its routing key).
    func role(of device: some StringProtocol) -> DeviceRole

    /// `messages` as this instance may publish them: without those about devices it does not
    /// own (a warm-up's outputs), and, clustered, with the owner's `instance` and `epoch` as
    /// user properties on those about devices it owns.
    ///
    /// - Parameter role: for the outputs of one frame (all about its device), the role its device
    ///   had when the frame arrived (``role(of:)``); nil to go by each device's role now. A frame
    ///   received as the owner is published under the epoch it was received under even if the
    ///   partition changed hands before its worker got to it, since its successor subscribed only
    ///   then and the frame may have reached no other instance. Consumers keep the greater epoch.
    ///   Any other role: as with nil.
    func visible(_ messages: [OutboundMessage], receivedAs role: DeviceRole?) -> [OutboundMessage]

    /// What an operator sees of the ownership now (metrics, `/readyz`), and what a run waits
    /// for before it subscribes (``OwnershipStatus/ready``).
    var status: OwnershipStatus { get }

    /// The status as it changes: the status now first, then after each heartbeat (answered,
    /// refused or failed), adoption read, or leave. Only the newest waits for a slow reader,
    /// which loses nothing it needs: every field is the newest value, and the counts only grow.
    /// Ends when the calling task is cancelled.
    func statusUpdates() -> AsyncStream<OwnershipStatus>

    /// Registers the one observer of role changes, called in the order the changes happen, on
    /// the task that noticed them (it must only hand them over). Call once, before
    /// ``run()``; an adapter that never changes never calls it.
    func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void)

    /// Reports warming partitions whose devices are listed from the store and whose
    /// subscriptions were requested. `subscribed` tells whether the broker acknowledged every
    /// subscription of a partition's devices on a connected subscriber: the clustered adapter
    /// counts a partition as prepared from the first heartbeat at which it does (before that,
    /// the old holder's outputs would be the only ones, and a hand-over could leave frames to
    /// nobody), and accepts it only its warm-up time later; the sole owner has nothing to warm
    /// up. Called after the ``OwnershipChange/warming(partition:)`` it answers; a partition no
    /// longer warming is ignored. `subscribed` is called on the adapter's own task, not under
    /// its lock.
    func prepared(_ partitions: [Int], subscribed: @escaping @Sendable (Int) -> Bool)

    /// Keeps the ownership current until the calling task is cancelled (the clustered adapter's
    /// heartbeat); returns at once for an adapter that has nothing to keep.
    func run() async throws

    /// A graceful stop: hands what this instance holds to the others make-before-break for at
    /// most `seconds` (they warm up and take it over), then gives up the rest so they take it
    /// at once rather than after a lease runs out.
    func leave(within seconds: Double) async

    /// What the subscriber's connection to the broker did: the clustered adapter withholds its
    /// renewals once the subscriber has been trying to reach the broker, in vain, for half a
    /// lease time, so that another instance adopts this one and its stand-in serves its devices
    /// from its broker session (docs/scale-out.md, *Liveness: serving, not only heartbeats*).
    /// The sole owner ignores it.
    func subscriberChanged(_ change: SubscriberConnectivity)
}

extension OwnershipPort {
    /// `messages` by each device's role now (``visible(_:receivedAs:)`` with nil).
    public func visible(_ messages: [OutboundMessage]) -> [OutboundMessage] { visible(messages, receivedAs: nil) }

    /// Returns once this instance knows what it holds (``OwnershipStatus/ready``: the clustered
    /// adapter's first heartbeat answered; at once for the sole owner), or when the calling task
    /// is cancelled: the journal is replayed and the subscriber subscribes only then.
    public func ready() async {
        for await status in statusUpdates() where status.ready { return }
    }

    /// Returns once a heartbeat sent after the call registered this run in the store (at once for
    /// the sole owner), or when the calling task is cancelled. The subscriber waits for it after
    /// another client took its session over: that client is the stand-in of an adoption when the
    /// store refuses this run, and must keep the session.
    public func confirmed() async {
        var sentBefore: Int?
        for await status in statusUpdates() {
            // The first element is the status at the call.
            let floor = sentBefore ?? status.heartbeatsSent
            sentBefore = floor
            if status.registeredThrough > floor { return }
        }
    }
}
