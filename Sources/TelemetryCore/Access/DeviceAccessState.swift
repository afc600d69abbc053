/// What the gateway knows about one device for the access checks: its latest `hello`, its
/// latest motion authorization and its latest workout state. Updated only from frames that
/// passed the registry check.
///
/// Ordering rules (all deterministic, none reads a clock):
/// - **Descriptor**: the latest `hello` received wins (hellos carry no date).
/// - **Authorization** has two sources. An `authorization` frame carries a `date`: it applies
///   when no dated authorization was seen yet or its date is newer than the last applied one; an
///   older date is stale and ignored; at an equal date the more restrictive status wins
///   (`denied` > `restricted` > `notDetermined` > `authorized`), so the result does not depend on
///   arrival order (except that a live `hello` received after the frame of that date stands). A `hello`'s `authorization` field is undated: a live `hello` is the device's
///   current word and applies; a `hello` the broker delivers as retained (replayed when the
///   gateway subscribes) may be older than what was seen live, so it only applies when no
///   authorization is known yet.
/// - **Workout**: a `workout` frame applies when its date is newer than the last applied one;
///   older is ignored; at an equal date the later state in the session's life wins
///   (`ended` > `paused` > `running`), then the greater activity type name. A `paused` or
///   `ended` frame without `activityType` keeps the session's type (HKWorkoutSession state
///   changes carry only a state and a date).
public struct DeviceAccessState: Sendable, Equatable, Codable {
    /// Where the current authorization came from.
    public enum AuthorizationSource: Sendable, Equatable, Codable {
        /// The `hello`'s `authorization` field.
        case hello
        /// An `authorization` frame with this date (Unix epoch seconds).
        case authorizationFrame(date: Double)
    }

    /// What an update did.
    public enum Update: Sendable, Equatable {
        /// The state changed.
        case applied
        /// The frame was accepted but changed nothing (same value again).
        case unchanged
        /// The frame was older than what is known (or a retained `hello` repeated a known
        /// authorization) and was ignored for this field.
        case stale
    }

    /// The latest `hello`, or nil when none was seen.
    public private(set) var descriptor: DeviceDescriptor?
    /// The current motion authorization, or nil when neither a `hello` nor an `authorization` frame was seen.
    public private(set) var authorization: AuthorizationStatus?
    /// Where ``authorization`` came from.
    public private(set) var authorizationSource: AuthorizationSource?
    /// The date of the newest applied `authorization` frame (kept across `hello`s, so an older
    /// frame stays stale after a live `hello`).
    public private(set) var authorizationFrameDate: Double?
    /// The latest workout event, or nil when none was seen.
    public private(set) var workout: WorkoutEvent?

    /// Creates an empty state (nothing seen).
    public init() {}

    /// Whether a workout session is running (the latest workout state is `running`).
    public var isWorkoutRunning: Bool { workout?.state == .running }

    /// Records a `hello`.
    /// - Parameters:
    ///   - descriptor: the decoded descriptor.
    ///   - retained: whether the broker delivered it as a retained message.
    /// - Returns: `.applied` when the descriptor or the authorization changed, `.unchanged` when
    ///   both were already the same, `.stale` when only a retained hello's differing
    ///   authorization was ignored.
    @discardableResult
    public mutating func apply(hello descriptor: DeviceDescriptor, retained: Bool) -> Update {
        let descriptorChanged = self.descriptor != descriptor
        self.descriptor = descriptor
        var authorizationUpdate = Update.unchanged
        if retained, authorization != nil {
            authorizationUpdate = authorization == descriptor.authorization ? .unchanged : .stale
        } else if authorization != descriptor.authorization || authorizationSource != .hello {
            authorizationUpdate = authorization == descriptor.authorization ? .unchanged : .applied
            authorization = descriptor.authorization
            authorizationSource = .hello
        }
        if descriptorChanged || authorizationUpdate == .applied { return .applied }
        return authorizationUpdate
    }

    /// Records an `authorization` frame.
    /// - Parameter change: the decoded change.
    /// - Returns: `.applied` when the status changed, `.unchanged` when it was the same (the date
    ///   still advances), `.stale` when the frame was older (or lost the equal-date tie).
    @discardableResult
    public mutating func apply(authorization change: AuthorizationChange) -> Update {
        if let last = authorizationFrameDate {
            if change.date < last { return .stale }
            if change.date == last {
                // Only a frame of the same date that set the current status can be outranked; a
                // live hello after that frame is newer than any frame of its date.
                let winsTie =
                    authorizationSource == .authorizationFrame(date: last)
                    && authorization.map { Self.restrictiveness(change.status) > Self.restrictiveness($0) } ?? true
                if !winsTie { return change.status == authorization ? .unchanged : .stale }
            }
        }
        authorizationFrameDate = change.date
        authorizationSource = .authorizationFrame(date: change.date)
        let changed = authorization != change.status
        authorization = change.status
        return changed ? .applied : .unchanged
    }

    /// Records a `workout` frame.
    /// - Parameter event: the decoded workout event.
    /// - Returns: `.applied` when the state or activity changed, `.unchanged` when only the date
    ///   advanced, `.stale` when the frame was older (or lost the equal-date tie).
    @discardableResult
    public mutating func apply(workout event: WorkoutEvent) -> Update {
        var event = event
        // A pause or end without a type belongs to the session it changes.
        if event.activityType == nil { event.activityType = workout?.activityType }
        if let current = workout {
            if event.date < current.date { return .stale }
            if event.date == current.date {
                if event == current { return .unchanged }
                let rank = Self.lifecycleOrder(event.state)
                let currentRank = Self.lifecycleOrder(current.state)
                // Equal dates: the later lifecycle state wins, then the greater activity name, so
                // the outcome does not depend on arrival order.
                if rank < currentRank || (rank == currentRank && (event.activityType ?? "") < (current.activityType ?? "")) { return .stale }
            }
        }
        let changed = workout?.state != event.state || workout?.activityType != event.activityType
        workout = event
        return changed ? .applied : .unchanged
    }

    /// Tie-break rank at equal dates: higher wins. Anything but `authorized` blocks data, and the
    /// user's explicit refusal ranks highest.
    static func restrictiveness(_ status: AuthorizationStatus) -> Int {
        switch status {
        case .authorized: 0
        case .notDetermined: 1
        case .restricted: 2
        case .denied: 3
        }
    }

    /// Tie-break rank at equal dates: a session runs, may pause, then ends.
    static func lifecycleOrder(_ state: WorkoutState) -> Int {
        switch state {
        case .running: 0
        case .paused: 1
        case .ended: 2
        }
    }
}
