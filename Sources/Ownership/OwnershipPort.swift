/// Who processes and publishes a device's frames on this instance: the one question the router,
/// the shard workers and the state keeper ask about ownership, whatever the mode.
///
/// Two adapters: ``SoleOwner`` (`cluster.mode: single`: every device is this instance's, no store,
/// nothing changes) and ``LeasedOwnership`` (the clustered modes: partitions leased in the shared
/// PostgreSQL store). Nothing outside configuration and assembly asks which one it has.
public protocol OwnershipPort: Sendable {
    /// This instance's role for `device` now. Called on the network thread for every frame: O(1),
    /// no I/O, no waiting.
    /// - Parameter device: the device level of the frame's topic (its routing key).
    func role(of device: some StringProtocol) -> DeviceRole

    /// Registers the one observer of role changes, called in the order the changes happen, on
    /// the task that noticed them (it must only hand them over). Call once, before
    /// ``run()``; an adapter that never changes never calls it.
    func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void)

    /// Keeps the ownership current until the calling task is cancelled (the clustered adapter's
    /// heartbeat); returns at once for an adapter that has nothing to keep.
    func run() async throws

    /// Gives up everything this instance holds so other instances take it now, not after a
    /// lease runs out (a graceful stop, after the workers flushed their snapshots).
    func leave() async
}
