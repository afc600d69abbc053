/// The pause and resume events of one workout that are not yet part of a published segment,
/// kept in date order, and the segments they bound.
///
/// Segments are read from the events by date, never by arrival: a late pause that arrives after
/// the following resume still closes the segment at its own date. Published segments are frozen:
/// the events up to a published segment's end are consumed, and an event dated before that end
/// is refused as late.
struct RunTimeline: Sendable, Codable {
    /// One event, with the gateway time it arrived (for the finalize timeout).
    struct Entry: Sendable, Equatable, Codable {
        /// Unix epoch seconds.
        var date: Double
        /// Pause or resume.
        var type: PedometerEventType
        /// When the gateway received it, Unix epoch seconds of the gateway clock.
        var receivedAt: Double

        /// Date order; at equal dates a pause sorts before a resume, so a pause and a resume at
        /// the same instant close one segment and open the next.
        func precedes(_ other: Entry) -> Bool {
            date != other.date ? date < other.date : type.rawValue < other.type.rawValue
        }
    }

    /// What happened to an event.
    enum Insertion: Sendable, Equatable, Codable {
        /// Added in date order.
        case inserted
        /// Same date and type as a pending event, or as the pause that ended the last published
        /// segment: ignored.
        case duplicate
        /// Dated before the end of the last published segment (or the workout's start): ignored.
        case late
        /// The pending list is full: ignored.
        case overflow
    }

    /// A closed segment: a resume and the pause that ends it.
    struct Closed: Sendable, Equatable, Codable {
        /// The resume's date.
        var start: Double
        /// The pause's date.
        var end: Double
        /// When the gateway received the pause (the segment can only be complete after it).
        var closedAt: Double
        /// The pause's position in ``entries``.
        var position: Int
    }

    /// The pending events in date order.
    private(set) var entries: [Entry] = []
    /// Events dated before this, and a pause at it, are refused: the end of the last published
    /// segment, or the workout's start.
    private(set) var frozenUntil: Double
    /// Whether ``frozenUntil`` is a published segment's closing pause (not the workout's start).
    private var frozenByPause = false
    private let capacity: Int

    /// Creates the timeline of a workout that starts (an implicit resume) at `start`.
    /// - Parameters:
    ///   - start: the workout's start, Unix epoch seconds.
    ///   - receivedAt: when the workout frame arrived.
    ///   - capacity: the most pending events.
    init(start: Double, receivedAt: Double, capacity: Int) {
        frozenUntil = start
        self.capacity = capacity
        entries = [Entry(date: start, type: .resume, receivedAt: receivedAt)]
    }

    /// Adds an event in date order.
    /// - Parameter entry: the event.
    /// - Returns: what happened to it.
    mutating func insert(_ entry: Entry) -> Insertion {
        if entry.date == frozenUntil && entry.type == .pause { return frozenByPause ? .duplicate : .late }
        if entry.date < frozenUntil { return .late }
        let position = entries.firstIndex { entry.precedes($0) } ?? entries.endIndex
        if position > 0, entries[position - 1].date == entry.date, entries[position - 1].type == entry.type { return .duplicate }
        guard entries.count < capacity else { return .overflow }
        entries.insert(entry, at: position)
        return .inserted
    }

    /// The oldest segment the pending events close, if any. A resume while active and a pause
    /// while paused change nothing (see ``repeats(through:)``).
    var firstClosed: Closed? {
        var first: Closed?
        _ = walk {
            first = $0
            return false
        }
        return first
    }

    /// The start of the segment the pending events leave open, if any.
    var openStart: Double? { walk { _ in true } }

    /// Reads the events in date order, handing each closed segment to `body` until it returns
    /// false.
    /// - Returns: the start of the segment open where the reading stopped, if any.
    private func walk(_ body: (Closed) -> Bool) -> Double? {
        var openStart: Double?
        for (position, entry) in entries.enumerated() {
            switch (entry.type, openStart) {
            case (.resume, nil): openStart = entry.date
            case (.pause, let start?):
                openStart = nil
                guard body(Closed(start: start, end: entry.date, closedAt: entry.receivedAt, position: position)) else { return nil }
            case (.resume, _?), (.pause, nil): continue
            }
        }
        return openStart
    }

    /// Counts the events up to `position` that changed nothing: resumes while active and
    /// pauses while paused.
    func repeats(through position: Int) -> (resumes: Int, pauses: Int) {
        var active = false
        var repeats = (resumes: 0, pauses: 0)
        for entry in entries[...position] {
            switch (entry.type, active) {
            case (.resume, true): repeats.resumes += 1
            case (.pause, false): repeats.pauses += 1
            case (.resume, false), (.pause, true): active.toggle()
            }
        }
        return repeats
    }

    /// Consumes the events up to and including a segment's closing pause: the segment is
    /// published and its end is frozen.
    /// - Parameter segment: ``firstClosed``.
    mutating func consume(_ segment: Closed) {
        entries.removeFirst(segment.position + 1)
        frozenUntil = segment.end
        frozenByPause = true
    }

    /// Ends the workout at `date`: drops the events after it and closes an open segment there.
    /// - Parameters:
    ///   - date: the workout's end, Unix epoch seconds.
    ///   - receivedAt: when the workout frame arrived.
    /// - Returns: the number of events dropped for being after the end.
    mutating func end(at date: Double, receivedAt: Double) -> Int {
        let after = entries.firstIndex { $0.date > date } ?? entries.endIndex
        let dropped = entries.count - after
        entries.removeLast(dropped)
        // The closing pause bypasses the capacity (the end must always close the open segment)
        // and is only added when a segment is open, so it never counts as a repeated pause.
        if openStart != nil, date > frozenUntil {
            entries.append(Entry(date: date, type: .pause, receivedAt: receivedAt))
        }
        return dropped
    }
}
