/// A fixed-capacity ring buffer of samples, oldest first.
///
/// The storage is allocated once, at creation; appending to a full ring overwrites the oldest
/// element, so a deriver's memory stays bounded whatever a device sends, and nothing is
/// allocated per sample. Elements are addressed by position (0 = oldest) or by *absolute*
/// index: the number of elements appended before it since creation or the last ``removeAll()``,
/// which stays valid while the element is in the ring.
public struct SampleRing<Element: Sendable>: Sendable {
    private var storage: [Element]
    /// Storage index of the oldest element.
    private var head = 0
    /// The number of elements held, at most ``capacity``.
    public private(set) var count = 0
    /// The absolute index the next appended element gets.
    public private(set) var endIndex = 0

    /// Creates an empty ring.
    /// - Parameters:
    ///   - capacity: the most elements held (at least 1).
    ///   - filler: a value the storage is initialised with (never read back).
    public init(capacity: Int, filler: Element) {
        storage = Array(repeating: filler, count: max(1, capacity))
    }

    /// The most elements held.
    public var capacity: Int { storage.count }

    /// Whether the ring holds no element.
    public var isEmpty: Bool { count == 0 }

    /// The absolute index of the oldest element held (equals ``endIndex`` when empty).
    public var startIndex: Int { endIndex - count }

    /// Appends an element, overwriting the oldest when the ring is full.
    /// - Parameter element: the new newest element.
    public mutating func append(_ element: Element) {
        if count < storage.count {
            storage[slot(count)] = element
            count += 1
        } else {
            storage[head] = element
            head = slot(1)
        }
        endIndex += 1
    }

    /// Appends the elements `element` makes for `0..<newCount` in order, skipping those it
    /// returns nil for: the same as one ``append(_:)`` per element, with the storage lent once
    /// for all of them. A swing window appends 800 accelerometer samples a second per watch, and
    /// each `append` checked the storage's uniqueness and bounds on its own.
    public mutating func append(count newCount: Int, _ element: (Int) -> Element?) {
        var head = self.head
        var held = count
        var end = endIndex
        storage.withUnsafeMutableBufferPointer { storage in
            let capacity = storage.count
            for index in 0..<newCount {
                guard let element = element(index) else { continue }
                if held < capacity {
                    let slot = head + held
                    storage[slot >= capacity ? slot - capacity : slot] = element
                    held += 1
                } else {
                    storage[head] = element
                    head = head + 1 == capacity ? 0 : head + 1
                }
                end += 1
            }
        }
        self.head = head
        count = held
        endIndex = end
    }

    /// Removes the oldest element; does nothing when empty.
    public mutating func removeFirst() {
        guard count > 0 else { return }
        head = slot(1)
        count -= 1
    }

    /// Removes every element, keeping the storage; absolute indices restart at 0.
    public mutating func removeAll() {
        head = 0
        count = 0
        endIndex = 0
    }

    /// The element at `position`, 0 being the oldest.
    public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "ring position \(position) out of 0..<\(count)")
            return storage[slot(position)]
        }
        set {
            precondition(position >= 0 && position < count, "ring position \(position) out of 0..<\(count)")
            storage[slot(position)] = newValue
        }
    }

    /// The element with absolute index `index`.
    /// - Parameter index: an absolute index in `startIndex..<endIndex`.
    public subscript(absolute index: Int) -> Element {
        self[index - startIndex]
    }

    /// Whether the element with absolute index `index` is still held.
    public func contains(absolute index: Int) -> Bool {
        index >= startIndex && index < endIndex
    }

    /// The oldest element, if any.
    public var first: Element? { count > 0 ? storage[head] : nil }

    /// The newest element, if any.
    public var last: Element? { count > 0 ? storage[slot(count - 1)] : nil }

    /// The storage slot `offset` elements after the head, for `0 ≤ offset ≤ capacity`: one
    /// compare instead of a division per access (the swing deriver appends and reads 1,000
    /// samples a second per watch; the saving alone was below what the benchmarks resolve).
    @inline(__always)
    private func slot(_ offset: Int) -> Int {
        let slot = head + offset
        return slot >= storage.count ? slot - storage.count : slot
    }
}
