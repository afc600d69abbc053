/// Whether this instance may still count itself live, judged on its own clock from the echoes of
/// its own announcements (partitioned mode): a pure value, time arrives as arguments.
///
/// The others expire an instance whose announcements stopped for `cluster.expiry`, and take its
/// devices over. An instance frozen that long (SIGSTOP, a stalled VM) does not know; when it
/// thaws, its connections deliver what the broker queued meanwhile, stamped with the thaw's
/// time. So an instance counts as live at `t` only if one of its announcements came back less
/// than `expiry` before `t`, and once that failed (a **lapse**) it stays out, whatever echoes
/// arrive after, until it has announced itself again and begun anew (a newcomer's warm-up).
///
/// Any gap of `expiry` between two echoes, or between an echo and a frame's arrival, is a lapse,
/// so the order in which the connections' threads deliver their backlogs after a thaw does not
/// matter: a frame admitted after an echo that followed the gap finds the lapse already set.
struct SelfLiveness: Sendable {
    /// Seconds without an echo after which the others count this instance as gone.
    let expiry: Double
    /// When the latest echo arrived; nil while not counting (not online).
    private(set) var lastEcho: Double?
    /// Whether a lapse was found since counting began.
    private(set) var lapsed = false

    init(expiry: Double) { self.expiry = expiry }

    /// Whether this instance counts itself live (counting, no lapse).
    var live: Bool { lastEcho != nil && !lapsed }

    /// Starts counting from an echo at `now` (this instance's `online` announcement came back),
    /// clearing a lapse.
    mutating func begin(at now: Double) {
        lastEcho = now
        lapsed = false
    }

    /// Stops counting (this instance left or is idle).
    mutating func stop() {
        lastEcho = nil
        lapsed = false
    }

    /// One of this instance's announcements came back at `now`.
    /// - Returns: whether this reveals a lapse (the previous echo is `expiry` older).
    mutating func echo(at now: Double) -> Bool {
        guard let last = lastEcho else { return false }
        lastEcho = max(last, now)
        return markLapse(if: now - last >= expiry)
    }

    /// Whether this instance was live when a frame arrived at `time`.
    /// - Returns: whether this reveals a lapse (no echo within `expiry` before `time`).
    mutating func check(at time: Double) -> Bool {
        guard let last = lastEcho else { return false }
        return markLapse(if: time - last >= expiry)
    }

    /// Records a lapse learnt otherwise (the broker published this instance's will).
    /// - Returns: whether it is new.
    mutating func lapse() -> Bool { markLapse(if: lastEcho != nil) }

    private mutating func markLapse(if condition: Bool) -> Bool {
        guard condition, !lapsed else { return false }
        lapsed = true
        return true
    }
}
