/// What a device's run-segment deriver ignored or dropped, cumulative (for diagnostics and tests;
/// each workout summary also reports the event counts of its workout).
public struct RunCounters: Sendable, Equatable, Codable {
    /// Pause/resume events with the same date and type as a pending one, or as the pause that
    /// ended the last published segment (redeliveries), ignored.
    public var duplicateEvents = 0
    /// Pause/resume events dated before the end of an already published segment, or before the
    /// workout's start (a pause also at it): they cannot reopen or change it, ignored.
    public var lateEvents = 0
    /// Resumes that arrived, in date order, while a segment was already active, ignored.
    public var repeatedResumes = 0
    /// Pauses that arrived, in date order, while no segment was active, ignored.
    public var repeatedPauses = 0
    /// Pause/resume events without an open workout of a tracked activity type, or dated after
    /// its end, ignored.
    public var eventsOutsideWorkout = 0
    /// Pause/resume events refused because the workout's pending list was full.
    public var droppedEvents = 0
    /// Segments without duration (a resume and a pause at the same instant), not published.
    public var emptySegments = 0
    /// Segments published by the finalize timeout, before data covering their end arrived.
    public var timedOutSegments = 0
    /// `pedometer/data` updates not newer than the last one, ignored.
    public var stalePedometerUpdates = 0
    /// `pedometer/data` updates that started a new cumulative series (a new `startDate`).
    public var pedometerRestarts = 0
    /// Altimeter samples not newer than the last one, ignored.
    public var staleAltitudeSamples = 0
    /// Times the altimeter's timestamps went back (a reboot): the clock anchor started over.
    public var altimeterRestarts = 0

    /// Creates zero counters.
    public init() {}
}
