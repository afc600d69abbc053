/// An append-only list, oldest first, that holds at most `capacity` elements: appending to a
/// full buffer drops the oldest element (counted in ``dropped``).
///
/// Unlike ``SampleRing`` it allocates only what it holds, so a device that sends little costs
/// little. Dropping from the front only moves a start offset; the storage is compacted once the
/// dead prefix outgrows the live part, so appends and removals stay amortised O(1).
struct BoundedBuffer<Element: Sendable>: Sendable, RandomAccessCollection {
    /// The most elements held.
    let capacity: Int
    private var storage: [Element] = []
    /// Storage index of the oldest live element.
    private var head = 0
    /// Elements dropped because the buffer was full, cumulative.
    private(set) var dropped = 0

    /// Creates an empty buffer.
    /// - Parameter capacity: the most elements held (at least 1).
    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - head }

    subscript(position: Int) -> Element { storage[head + position] }

    /// Appends an element, dropping the oldest when the buffer is full.
    mutating func append(_ element: Element) {
        storage.append(element)
        if count > capacity {
            dropped += 1
            removeFirst(1)
        }
    }

    /// Removes the `k` oldest elements (all of them when `k` ≥ ``count``).
    mutating func removeFirst(_ k: Int) {
        head += Swift.min(Swift.max(k, 0), count)
        if head > 1_024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Removes the `k` newest elements (all of them when `k` ≥ ``count``).
    mutating func removeLast(_ k: Int) {
        storage.removeLast(Swift.min(Swift.max(k, 0), count))
    }

    /// Removes every element, keeping ``dropped``.
    mutating func removeAll() {
        storage.removeAll(keepingCapacity: false)
        head = 0
    }

    /// The position of the first element for which `isAfter` holds, given that it holds for a
    /// suffix of the buffer (elements are in order); ``endIndex`` when it holds for none.
    func partitioningIndex(where isAfter: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}


extension BoundedBuffer: Codable where Element: Codable {}
